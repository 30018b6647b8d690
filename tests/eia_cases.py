"""Playing an Empires in Arms rule case's steps through the ruleset, as the engine would: each step
is one entry, or one sealed round, with the dice its roll point draws.

A step is {sealed = {player: [orders]}} (the sealed round open: each named player's orders are
checked as `pbem seal` does, every member not named seals nothing), {unchecked = {...}} (unsealed
as they are, even orders `pbem seal` refuses), {player, orders = [...]} (one entry of several
orders) or an order with its `player`; `dice` on any of them are drawn at the roll point after
it, and every one must be used."""

from __future__ import annotations

import pytest

from pbem import ruleset as rulesets
from pbem.dice import FixedDice
from pbem.errors import IllegalOrder
from pbem.ruleset import Chance

RULESET = rulesets.load("empires_in_arms")


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
