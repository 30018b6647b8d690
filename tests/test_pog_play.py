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


# The numbered rules of the seeds this case book covers: 002 (8, 9.1-9.3) and 000 (13.1.12-13.2).
SEED_RULES = ["8.1.1", "8.1.2", "8.1.3", "8.1.4", "8.1.5", "8.1.6", "8.1.6.1", "8.1.6.2", "8.1.7", "8.1.8",
              "8.2.1", "8.2.1.1", "8.2.2", "8.2.2.1", "8.2.3", "8.2.4", "8.2.4.1", "9.1.1", "9.1.2", "9.1.3",
              "9.1.4", "9.2.1", "9.2.2", "9.2.3", "9.2.4", "9.2.5", "9.2.6", "9.2.7", "9.2.7.1", "9.2.8",
              "9.2.8.1", "9.2.8.2", "9.2.8.3", "9.2.8.4", "9.2.9", "9.3.1", "9.3.2", "9.3.3", "13.1.12", "13.2.1",
              "13.2.2", "13.2.3", "13.2.4", "13.2.5"]


def test_every_numbered_rule_of_the_seeds_has_a_case():
    cited = {case["rule"].removeprefix("base ") for _, case in load_cases("*.toml")}
    assert set(SEED_RULES) <= cited, sorted(set(SEED_RULES) - cited)


def test_every_card_has_a_case():
    """Each of the 130 cards is named (by card or event id) in some rule case."""
    import re

    from pbem.rules.paths_of_glory import cards
    from pog_cases import CASES as CASE_DIR

    named = set(re.findall(r'"([a-z0-9_]+)"', "".join(p.read_text() for p in CASE_DIR.glob("*.toml"))))
    missing = [card for card, facts in cards.catalogue().items() if not {card, facts.get("event", "")} & named]
    assert not missing, missing
