"""Rule cases for Paths of Glory (our DATC): tests/cases/paths_of_glory/*.toml.

Each file holds [[case]] tables: id, rule (the rule number it tests, from the seeds or "base N"),
title, position (a compact position: see state.position_from_case), and per kind of case what to
do (orders, forced dice) and what to expect (the state after, or the error and its rule).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pbem.rules.paths_of_glory import card_zones, trenches
from pbem.rules.paths_of_glory.data import variant_names
from pbem.rules.paths_of_glory.ruleset import PathsOfGlory
from pbem.rules.paths_of_glory.state import PogState, position_from_case

from pbem.dice import FixedDice
from pbem.ruleset import Chance, Decision, Seat, Setup

RULESET = PathsOfGlory()

CASES = Path(__file__).parent / "cases" / "paths_of_glory"
DEFAULT_VARIANTS = frozenset({"vesting_holland", "italy_19_1"})  # on by default, as the seeds have them


def load_cases(pattern: str) -> list[tuple[str, dict]]:
    found = []
    for path in sorted(CASES.glob(pattern)):
        for case in tomllib.loads(path.read_text())["case"]:
            assert case.get("rule") and case.get("id"), f"{path.name}: every case names its id and rule"
            found.append((f"{path.stem}:{case['id']} [{case['rule']}]", case))
    return found


def position(case: dict):
    """The case's position; with `options` or `scenario`, the charter's too (a two-player setup)."""
    variants = frozenset(case.get("variants", DEFAULT_VARIANTS))
    assert variants <= set(variant_names()), variants
    state = position_from_case(case.get("position", {}), variants)
    if "options" in case or "scenario" in case:
        roster = (Seat("ap", ("ap",), "player"), Seat("cp", ("cp",), "player"))
        state.setup = Setup(case.get("scenario", "august_1914"), roster, options=dict(case.get("options", {})))
    return state


# ---------------------------------------------------------------------------------- playing orders

def play(state: PogState, orders: list[dict], answer_card_steps: bool = True) -> PogState:
    """Apply the orders with their forced dice. A combat card step (base 12.2.6) that the case does
    not answer with its next order is answered with no cards while the order has dice left, which
    carry on past it: a case names the cards only where they are its point (a case with
    `answer_card_steps = false` answers none, to show that no step is asked)."""
    for i, order in enumerate(orders):
        order = dict(order)
        dice = FixedDice(list(order.pop("dice", [])))
        RULESET.apply(state, state.active, order)
        following = orders[i + 1]["kind"] if i + 1 < len(orders) else None
        while True:
            if isinstance(RULESET.pending(state), Chance):
                RULESET.resolve(state, dice, None)
            elif answer_card_steps and _card_step(state) and following != "play_cards" and dice.values:
                RULESET.apply(state, state.active, {"kind": "play_cards"})
            else:
                break
        assert not dice.values, f"dice left over after {order}: {dice.values}"
    return state


def _card_step(state: PogState) -> bool:
    combat = state.action.get("combat")
    return bool(combat) and combat["step"] == "cards"


# the decisions `next` names by their kind
STEPS = ("offensives", "peace_offer", "draw_step", "keep", "initiative", "last_extra", "mandated_economic",
         "show_hand", "enemy_choice")


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
    for space, side in expect.get("trench_owner", {}).items():
        assert trenches.owner(state, space) == side, space
    for key, value in expect.get("tracks", {}).items():
        assert state.tracks.get(key, 0) == value, key
    if "chart" in expect:  # 8.1.8: the whole Action Chart
        assert state.chart == expect["chart"]
    for field in ("mo", "war_status", "commitment"):
        for key, value in expect.get(field, {}).items():
            assert getattr(state, field).get(key) == value, f"{field}.{key}"
    for nation in expect.get("at_war", []):
        assert nation in state.at_war, nation
    for field in ("turn", "round", "active"):
        if field in expect:
            assert getattr(state, field) == expect[field], field
    for side, sizes in expect.get("hands", {}).items():
        assert state.hands.get(side) == sizes, side
    for event in expect.get("events", []):
        assert event in state.events, event
    for event in expect.get("events_ended", []):
        assert event not in state.events, event
    for zone, cards in expect.get("cards", {}).items():  # named by card or event id
        assert state.cards.get(zone, []) == sorted(card_zones.key(card) for card in cards), zone
    if "result" in expect:
        assert RULESET.pending(state).result == expect["result"]
    if "combat" in expect:
        record = combat_record(state)
        for key, value in expect["combat"].items():
            assert _read(record, key) == value, key
    if expect.get("next") == "dice":
        assert isinstance(RULESET.pending(state), Chance)
    elif "next" in expect:
        step = RULESET.pending(state)
        assert isinstance(step, Decision)
        combat, kind = state.action.get("combat"), state.action.get("kind")
        now = f"{combat['step']}:{combat['deciding']}" if combat else kind if kind in STEPS else "action"
        assert now == expect["next"]


def _read(record: dict, key: str):
    """A dotted key into the combat record: attacker_fire.column, flank.success..."""
    value = record
    for part in key.split("."):
        value = value[part]
    return value
