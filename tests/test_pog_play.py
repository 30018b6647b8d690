"""Paths of Glory played through the ruleset: combat (base 12, with 15.1-15.2 for forts and 14.3.4
for supply) and the turn around the actions (7.1, 16, 17, base 6).

Each case in tests/cases/paths_of_glory/combat.toml and turn.toml plays `orders` in turn on its position, as
the engine does: after an order, while dice are due (pending is Chance), the order's `dice` are
drawn. `expect` holds what a player checks afterwards (units, forts, control, trenches, the
combat's record, who decides next) or `error`, the rule and field the last order breaks.
"""

from __future__ import annotations

import pytest
from pog_cases import check_expect, load_cases, play, position

from pbem.errors import IllegalOrder

CASES = (load_cases("combat.toml") + load_cases("turn.toml") + load_cases("trenches.toml")
         + load_cases("italy_ops.toml") + load_cases("combat_cards.toml") + load_cases("hands.toml")
         + load_cases("operations.toml") + load_cases("card_plays.toml") + load_cases("sr.toml")
         + load_cases("events.toml") + load_cases("reinforcements.toml") + load_cases("draws.toml")
         + load_cases("additional.toml") + load_cases("mandated.toml")
         + load_cases("reorganize.toml") + load_cases("ops_events.toml")
         + load_cases("neutral_entry.toml"))


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_played_case(case):
    state = position(case)
    state.active = case.get("active", state.active)
    expect = case["expect"]
    if "error" in expect:
        play(state, case["orders"][:-1])
        with pytest.raises(IllegalOrder) as raised:
            play(state, case["orders"][-1:])
        assert raised.value.rule == expect["error"]["rule"], str(raised.value)
        assert raised.value.field == expect["error"].get("field", raised.value.field), str(raised.value)
        assert expect["error"].get("message", "") in str(raised.value)
        return
    check_expect(play(state, case["orders"], case.get("answer_card_steps", True)), expect)


def test_every_case_names_a_rule():
    for name, case in CASES:
        number = case["rule"].split(" ")[-1]
        assert number[0] == "R" or number.split(".")[0].isdigit(), name
