"""Empires in Arms rule cases: the position a case book's case starts from (`position`, one way
for every book), and playing its steps through the ruleset as the engine would: each step is one
entry, or one sealed round, with the dice its roll point draws.

A step is {sealed = {player: [orders]}} (the sealed round open: each named player's orders are
checked as `pbem seal` does, every member not named seals nothing), {unchecked = {...}} (unsealed
as they are, even orders `pbem seal` refuses), {player, orders = [...]} (one entry of several
orders) or an order with its `player`; `dice` on any of them are drawn at the roll point after
it, and every one must be used."""

from __future__ import annotations

import pytest
from pbem.rules.empires_in_arms import units
from pbem.rules.empires_in_arms.state import Corps, Leader

from pbem import ruleset as rulesets
from pbem.dice import FixedDice
from pbem.errors import IllegalOrder
from pbem.ruleset import Chance, Seat, Setup

RULESET = rulesets.load("empires_in_arms")
PLAYERS = {"alice": ["france"], "bob": ["britain"], "carol": ["russia"]}


def position(case: dict, *, players: dict | None = None, scenario: str = "demo", austria_active: bool = False):
    """The state of a case book's scenario, its players (alice France, bob Britain, carol Russia
    unless said), its `tables` and its `position`: `options`; powers' facts ("none" for no value);
    wars, alliances, surrendered pairs; control; corps {id: {power, kind, area, factors, origin}}
    added or replaced; `removed` corps and leaders; `leaders` {name: area}; `forces` {area:
    {power: strength}}, one infantry corps a power replacing those there. `austria_active`: Austria
    is Britain's active UMP before the position's own facts. One way for every book."""
    facts = case.get("position", {})
    roster = tuple(Seat(name, tuple(sides), "player") for name, sides in (players or PLAYERS).items())
    state = RULESET.new_state(Setup(scenario, roster, options=facts.get("options", {}), tables=case.get("tables", {})))
    if austria_active:
        state.powers["austria"].status, state.powers["austria"].controller = "active", "britain"
    for power, values in facts.get("powers", {}).items():
        for key, value in values.items():
            setattr(state.powers[power], key, None if value == "none" else value)
    for key in ("wars", "alliances"):
        if key in facts:
            setattr(state, key, sorted(sorted(pair) for pair in facts[key]))
    state.surrendered = facts.get("surrendered", state.surrendered)
    state.control.update(facts.get("control", {}))
    for name in facts.get("removed", []):
        state.corps.pop(name, None)
        state.leaders.pop(name, None)
    for name, unit in facts.get("corps", {}).items():
        state.corps[name] = Corps(unit["power"], unit["kind"], unit["area"], dict(unit["factors"]),
                                  unit.get("origin", ""))
    for name, area in facts.get("leaders", {}).items():
        state.leaders[name] = Leader(units.leader(name)["power"], area)
    for area, held in facts.get("forces", {}).items():
        state.corps = {name: unit for name, unit in state.corps.items() if unit.area != area or unit.power not in held}
        for power, strength in held.items():
            state.corps[f"{power}_in_{area}"] = Corps(power, "infantry", area, {"infantry": strength})
    return state


def play(state, steps: list[dict]) -> None:
    for step in steps:
        step = dict(step)
        dice = FixedDice(list(step.pop("dice", [])))
        if "sealed" in step or "unchecked" in step:
            given = step.get("sealed", step.get("unchecked", {}))
            for player in step.get("sealed", {}):
                RULESET.check_together(state, player, given[player])
            members = RULESET.pending(state).players
            RULESET.apply_together(state, {player: given.get(player, []) for player in members})
        elif "orders" in step:
            for order in step["orders"]:  # the engine asks, before each order, whether its player is to move
                asked = RULESET.pending(state)
                if isinstance(asked, Chance) or step["player"] not in asked.players:
                    raise IllegalOrder(f"order {order} follows a roll or another player's turn", rule="PROTOCOL §5",
                                       field="orders")
                RULESET.apply(state, step["player"], order)
        else:
            RULESET.apply(state, step.pop("player"), step)
        while isinstance(RULESET.pending(state), Chance):
            RULESET.resolve(state, dice, None)
        assert not dice.values, f"dice left over after {step}: {dice.values}"


def assert_refused_at_sealing(state, case: dict) -> None:
    """The case's `refused` player's `sealed` orders are refused by `pbem seal` with the rule and
    field its `expect` names."""
    player, expect = case["refused"], case["expect"]
    with pytest.raises(IllegalOrder) as raised:
        RULESET.check_together(state, player, case["sealed"][player])
    assert (raised.value.rule, raised.value.field) == (expect["rule"], expect["field"]), str(raised.value)
