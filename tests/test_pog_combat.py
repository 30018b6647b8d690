"""Paths of Glory combat (base 12; 15.1-15.2 for forts; 14.3.4 for supply) through the ruleset.

Each case in tests/cases/paths_of_glory/combat*.toml plays `orders` in turn on its position, as
the engine does: after an order, while dice are due (pending is Chance), the order's `dice` are
drawn. `expect` holds what a player checks afterwards (units, forts, control, trenches, the
combat's record, who decides next) or `error`, the rule and field the last order breaks.
"""

from __future__ import annotations

import pytest
from pbem.rules.paths_of_glory.ruleset import PathsOfGlory
from pbem.rules.paths_of_glory.state import PogState
from pog_cases import load_cases, position

from pbem.dice import FixedDice
from pbem.errors import IllegalOrder
from pbem.ruleset import Chance, Decision

RULESET = PathsOfGlory()
CASES = load_cases("combat*.toml")


def play(state: PogState, orders: list[dict]) -> PogState:
    for order in orders:
        order = dict(order)
        dice = FixedDice(list(order.pop("dice", [])))
        RULESET.apply(state, state.active, order)
        while isinstance(RULESET.pending(state), Chance):
            RULESET.resolve(state, dice, None)
        assert not dice.values, f"dice left over after {order}: {dice.values}"
    return state


def combat_record(state: PogState) -> dict:
    return state.action.get("combat") or state.combats[-1]


def check_expect(state: PogState, expect: dict) -> None:
    for unit, where in expect.get("units", {}).items():
        where = {"space": where} if isinstance(where, str) else where
        here = state.units[unit]
        assert {k: getattr(here, k) for k in where} == where, unit
    for unit in expect.get("removed", []):
        assert unit in state.removed, unit
    for space, fort in expect.get("forts", {}).items():
        assert state.forts.get(space) == fort, space
    for space, side in expect.get("control", {}).items():
        assert state.control[space] == side, space
    for space, level in expect.get("trenches", {}).items():
        assert state.trenches.get(space, 0) == level, space
    if "combat" in expect:
        record = combat_record(state)
        for key, value in expect["combat"].items():
            assert _read(record, key) == value, key
    if "next" in expect:
        step = RULESET.pending(state)
        assert isinstance(step, Decision)
        combat = state.action.get("combat")
        assert (f"{combat['step']}:{combat['deciding']}" if combat else "action") == expect["next"]


def _read(record: dict, key: str):
    """A dotted key into the combat record: attacker_fire.column, flank.success..."""
    value = record
    for part in key.split("."):
        value = value[part]
    return value


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_combat_case(case):
    state = position(case)
    state.active = case.get("active", state.active)
    expect = case["expect"]
    if "error" in expect:
        play(state, case["orders"][:-1])
        with pytest.raises(IllegalOrder) as raised:
            play(state, case["orders"][-1:])
        assert raised.value.rule == expect["error"]["rule"], str(raised.value)
        assert raised.value.field == expect["error"].get("field", raised.value.field), str(raised.value)
        return
    check_expect(play(state, case["orders"]), expect)


def test_every_combat_case_names_a_rule_of_combat_forts_or_supply():
    for name, case in CASES:
        assert case["rule"].split(" ")[-1].split(".")[0] in ("12", "15", "14", "11", "9", "10"), name
