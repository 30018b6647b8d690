"""Paths of Glory as players meet it through the real `pbem`: the map view by nation, the siege
roll in the log, the Russian off-map boxes, and the options `pbem rules` offers.

The CLI tests run on a copy of examples/paths-of-glory-1914 (the demo game: the German 1st Army
besieges Liege, and its siege roll at seq 5 is a 3, less 2 in August 1914).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import copy_pog_example, pbem_on, run_cli
from pbem.rules.paths_of_glory import ruleset
from pbem.rules.paths_of_glory.state import dump

from pbem.ruleset import Seat, Setup


@pytest.fixture
def example(tmp_path) -> Path:
    return copy_pog_example(tmp_path)


pbem = pbem_on


def shown_nations(game: Path, *words: str) -> list[str]:
    code, out, err = pbem(game, "show", "map", *words, "--json")
    assert code == 0, err
    return list(json.loads(out)["nations"])


# ---------------------------------------------------------------------------- pbem show map NATION

def test_show_map_takes_a_nation_id_or_name_in_any_case(example):
    for words in (["Germany"], ["germany"], ["GERMANY"], ["ge"], ["GE"]):
        assert shown_nations(example, *words) == ["ge"], words
    for words in (["Austria-Hungary"], ["austria", "hungary"], ["ah"]):
        assert shown_nations(example, *words) == ["ah"], words
    code, out, _ = pbem(example, "show", "map", "Germany")
    assert code == 0 and "Germany" in out and "Essen" in out


def test_show_map_refuses_an_unknown_nation_and_names_the_nearest(example):
    code, out, err = pbem(example, "show", "map", "Germny")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "unknown nation 'Germny'" in err and "did you mean Germany" in err


# ---------------------------------------------------------------------------- the siege roll (15.3)

def test_the_siege_roll_says_its_arithmetic_and_whether_the_fort_fell(example):
    said = "siege of Liege: 4 − 2 = 2, not above 3: Liege holds"
    code, out, err = pbem(example, "verify", "--roll", "5", "--json")
    assert code == 0, err
    assert [draw["purpose"] for draw in json.loads(out)["draws"]] == [said]
    code, out, err = pbem(example, "log", "--json")
    assert code == 0, err
    assert [draw["purpose"] for draw in json.loads(out)[4]["dice"]] == [said]
    code, _, err = pbem(example, "verify")
    assert code == 0, err


# ---------------------------------------------------------------------------- 14.1.2 note, R15

def test_show_space_names_the_russian_offmap_boxes(example):
    code, out, err = pbem(example, "show", "space", "Reval", "--json")
    assert code == 0, err
    assert json.loads(out)["offmap"] is True
    assert "offmap" not in json.loads(pbem(example, "show", "space", "Riga", "--json")[1])
    assert "off-map box" in pbem(example, "show", "space", "Reval")[1]


# ---------------------------------------------------------------------------- options (19.2)

def _seats() -> tuple[Seat, ...]:
    return (Seat("alice", ("ap",), "player"), Seat("bob", ("cp",), "player"))


def test_rules_lists_the_options(example):
    code, out, err = run_cli(["rules", "paths_of_glory", "--json"], example.parent)
    assert code == 0, err
    assert set(json.loads(out)["options"]) == {"vesting_holland", "italy_19_1", "italy_19_1_1", "italy_19_1_2",
                                               "italy_19_1_3", "italy_19_2", "vp_bid", "vp_bid_to",
                                               "entrench_reminder", "hand_8", "optional_cards", "pass_draws",
                                               "enhanced_reorganisation"}


def test_every_option_changes_the_game():
    """An option `pbem rules` lists must do something: each one, turned from its default, changes
    the starting position (the map, or the recorded VP bid), or has a rule case showing what it
    changes in play. The side a bid is ceded to matters once there is a bid."""
    companions = {"vp_bid_to": {"vp_bid": 1}}
    in_play = {"entrench_reminder": "entrench_reminder_takes_one_off",  # change play, not the start: rule cases
               "italy_19_2": "third_german_corps_may_not_move_into_italy",
               "hand_8": "hand_8_deals_eight",
               "optional_cards": "all_optional_cards_join_the_decks_with_eight_card_hands",
               "pass_draws": "a_charter_lets_a_pass_draw_at_mobilization",
               "enhanced_reorganisation": "example_6_enhanced_reorganisation"}
    cases = "".join((Path(__file__).parent / "cases" / "paths_of_glory" / name).read_text()
                    for name in ("trenches.toml", "italy_ops.toml", "hands.toml", "draws.toml", "reorganize.toml"))
    for name, spec in ruleset.options.items():
        if name in in_play:
            assert f'id = "{in_play[name]}"' in cases, name
            continue
        with_it = companions.get(name, {})
        plain = dump(ruleset.new_state(Setup("august_1914", _seats(), dict(with_it))))
        changed = dump(ruleset.new_state(Setup("august_1914", _seats(), {**with_it, name: _other_value(spec)})))
        assert changed != plain, name


def _other_value(spec):
    """A value of the option other than its default."""
    if spec.type == "bool":
        return not spec.default
    if spec.type == "int":
        return spec.default + 1
    return next(choice for choice in spec.choices if choice != spec.default)


def test_italy_19_2_is_offered_off_by_default():
    """R44: 19.2 is a charter option, off unless the charter turns it on."""
    assert ruleset.chosen(Setup("august_1914", _seats(), {}))["italy_19_2"] is False
    assert ruleset.chosen(Setup("august_1914", _seats(), {"italy_19_2": True}))["italy_19_2"] is True
