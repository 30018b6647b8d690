"""`pbem show tracks` and `pbem show combat` for Paths of Glory: the data --json prints and the
drawing made of exactly that data."""

from __future__ import annotations

import io
import tomllib

import pytest
from pog_cases import CASES as CASE_DIR
from pog_cases import RULESET, play, position
from rich.console import Console

from pbem.errors import UsageError


def drawn(view) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(view)
    return console.file.getvalue()


def tannenberg():
    case = next(c for c in tomllib.loads((CASE_DIR / "combat.toml").read_text())["case"]
                if c["id"] == "combat_example_1_august_1914")
    return play(position(case), case["orders"])


def test_show_combat_explains_the_first_combat_example_step_by_step():
    view = RULESET.views(tannenberg())["combat"]
    data = view.data()
    assert (data["number"], data["of"], data["space"]) == (1, 1, "tannenberg")
    assert data["flank"] == {"die": 3, "drm": 1, "success": True, "reasons": data["flank"]["reasons"]}
    text = " ".join(drawn(view.render(data)).split())
    for said in ("flank attack pinned from insterberg: die 3+1, succeeds",
                 "attacker: 7 on the army table, shift +0 and DRM +0 (nothing), column 6-8, die 3+0: loss number 4",
                 "defender: 1 on the corps table", "ru_2_army replaced by ru_corps_9",
                 "ru_corps_9 retreat to Warsaw", "ge_8_army advance to Tannenberg"):
        assert said in text, said


def test_show_combat_n_names_the_range_when_out_of_it():
    view = RULESET.views(tannenberg())["combat"]
    assert view.data("1")["number"] == 1
    with pytest.raises(UsageError, match="combat N is 1 to 1 this turn, not '2'"):
        view.data("2")


def test_show_combat_before_any_combat_says_so():
    with pytest.raises(UsageError, match="no combat has been fought in turn 1 yet"):
        RULESET.views(position({"position": {"base": "1914"}}))["combat"].data()


def test_show_tracks_gives_every_record_track():
    state = position({"position": {"base": "1914", "tracks": {"vp": 12, "russian_turmoil": 4, "rp_fr": 2},
                                   "war_status": {"cp": 3}, "mo": {"ap": "fr", "cp": "ge"}}})
    view = RULESET.views(state)["tracks"]
    data = view.data()
    assert data["vp"] == 12 and data["war_status"] == {"ap": 0, "cp": 3} and data["combined_war_status"] == 3
    assert data["russian_turmoil"] == 4 and data["rp"]["ap"]["fr"] == 2
    assert data["mandated_offensives"] == {"ap": "fr", "cp": "ge"}
    assert (data["turn"], data["round"], data["rounds"]) == (1, 1, 8)
    text = drawn(view.render(data))
    assert "Russian turmoil" in text and "FR 2" in text and "round 1 of 8" in text


def test_the_cli_shows_tracks_and_the_examples_combats(tmp_path):
    import json

    from helpers import POG_FIRST_TURN_SEQ, copy_pog_example, run_cli

    game = copy_pog_example(tmp_path, upto=POG_FIRST_TURN_SEQ)
    code, out, err = run_cli(["show", "tracks", "--json", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    assert json.loads(out)["vp"] == 10 and set(json.loads(out)["mandated_offensives"]) == {"ap", "cp"}
    code, out, err = run_cli(["show", "combat", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0 and "Combat 2 of 2 this turn: CP attacks riga from szawli" in out, err
    assert "flank attack pinned from chateau_thierry" in run_cli(["show", "combat", "1", "--game", str(game)],
                                                                 tmp_path, home=tmp_path / "home")[1]
    code, out, err = run_cli(["show", "combat", "3", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 2 and "combat N is 1 to 2 this turn, not '3'" in err and len(err.strip().splitlines()) == 1


def test_the_cli_shows_where_the_examples_combat_cards_went(tmp_path):
    """base 9.5.4.2, 9.5.4.4 (R84, R92): Von Francois won at Riga and stays in front of the CP; the
    starred Pleve left the game; both cards of the last round are used for it; each hand is one
    card smaller."""
    import json

    from helpers import POG_FIRST_TURN_SEQ, copy_pog_example, run_cli

    game = copy_pog_example(tmp_path, upto=POG_FIRST_TURN_SEQ)
    code, out, err = run_cli(["show", "cards", "--json", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    data = json.loads(out)
    assert (data["cp_front"], data["removed"], data["used_this_round"]) == (
        ["cp03 Von Francois"], ["ap04 Pleve"], ["ap04 Pleve", "cp03 Von Francois"])
    code, out, err = run_cli(["show", "cards", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0 and "Central Powers cards kept in front" in out and "cp03 Von Francois" in out, err
    code, out, err = run_cli(["show", "hand", "--json", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    counts = json.loads(out)["counts"]  # the Central Powers drew once or twice (tests/test_project.py)
    assert json.loads(out) == {"dealt": True, "yours": {}, "counts": counts}
    sizes = {"limit": 7, "optional": 0, "decks": 1}
    assert counts["ap"] == {"hand": 6, "pile": 7, **sizes}
    assert counts["cp"] in ({"hand": 5, "pile": 6, **sizes}, {"hand": 6, "pile": 5, **sizes})


def test_status_says_where_the_game_stands(tmp_path):
    """Item 10: `pbem status` gives turn, round, who acts first, VP, war statuses, commitment and
    the hand sizes under the log."""
    import json

    from helpers import POG_FIRST_TURN_SEQ, copy_pog_example, run_cli

    game = copy_pog_example(tmp_path, upto=POG_FIRST_TURN_SEQ)
    code, out, err = run_cli(["status", "--json", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    standing = json.loads(out)["standing"]
    assert standing.startswith("Aug 1914 (turn 1), round 6 of 8, CP first; VP 10; war status AP 0, CP 0; "
                               "commitment AP mobilization, CP mobilization; hands AP 6 (pile 7), CP "), standing
    code, out, err = run_cli(["status", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0 and "round 6 of 8" in out, err
    whole = copy_pog_example(tmp_path / "whole")
    code, out, err = run_cli(["status", "--json", "--game", str(whole)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    standing = json.loads(out)["standing"]
    assert standing.startswith("Fall 1914 (turn 3), round 3 of 9, CP first;") and "war status AP 4, CP 0" in standing \
        and "commitment AP limited, CP mobilization" in standing, standing


def test_show_cards_gives_each_sides_sizes_and_the_events_in_effect(tmp_path):
    """Item 10: `pbem show cards` with both sides' hand and pile sizes and every event in effect
    (the demo scenario starts with the Central Powers' Entrench and Ober Ost in effect)."""
    import json

    from helpers import POG_FIRST_TURN_SEQ, copy_pog_example, run_cli

    game = copy_pog_example(tmp_path, upto=POG_FIRST_TURN_SEQ)
    code, out, err = run_cli(["show", "cards", "--json", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0, err
    data = json.loads(out)
    assert data["sizes"]["ap"] == {"hand": 6, "pile": 7} and sum(data["sizes"]["cp"].values()) == 11
    assert data["events_in_effect"] == ["cp_entrench", "oberost"]
    code, out, err = run_cli(["show", "cards", "--game", str(game)], tmp_path, home=tmp_path / "home")
    assert code == 0 and "6 in hand, 7 in the pile" in out and "other events in effect" in out, err
