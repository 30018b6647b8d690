"""World in Flames through the real CLI (seed 004): three players in their own directories on
scenario `demo`; a bad order of every kind refused with one line naming the entry's player, the
field and the rule, nothing written anywhere; the views (`show impulse`, `hex`, `supply`, `sea`)
as text and JSON; a charter the ruleset cannot play refused with its rule."""

from __future__ import annotations

import json

import pytest
from helpers import NAMES, changes, setup_game, snapshot
from test_eia_cli import sign

from pbem import ruleset as rulesets
from pbem.errors import UsageError
from pbem.ruleset import Seat, Setup

SIDES = {"alice": ["axis", "germany", "italy"], "bob": ["allies", "commonwealth"], "carol": ["allies", "ussr"]}
COMBAT = {"rule": "11.16 (test: every attack a retreat)", "die": "1d10", "1-10": "retreat"}


@pytest.fixture
def table(tmp_path):
    return setup_game(tmp_path, ruleset="world_in_flames", scenario="demo", sides=SIDES, tables={"combat": COMBAT})


@pytest.mark.parametrize(("player", "text", "words"), [
    ("bob", "pass", "out of turn"),
    ("alice", "move unit=ger_9 path=east_europe:3-1", "field 'orders[1].unit', rule 11: no unit 'ger_9'"),
    ("alice", "move unit=sov_north path=east_europe:3-0", "rule 11: sov_north is not alice's to command"),
    ("alice", "move unit=ger_2 path=warsw", "field 'orders[1].path', rule 2.1: no hex 'warsw'; did you mean warsaw?"),
    ("alice", "move unit=ger_south path=east_europe:5-3", "rule 2.1.1: east_europe:5-3 is a hex-dot"),
    ("alice", "move unit=ger_2 path=east_europe:3-1,east_europe:3-0", "rule 11.11: ger_2 stops on entering an enemy"),
    ("alice", "move unit=ger_5 path=east_europe:4-1", "rule 2.3.1: 3 land units in east_europe:4-1: the limit is 2"),
    ("alice", "attack hex=east_europe:5-2 units=ger_3", "rule 2.4.3: ger_3 is out of supply and cannot attack"),
    ("alice", "attack hex=east_europe:4-1 units=ger_3", "rule 11.16: east_europe:4-1 holds no enemy land unit"),
    ("alice", "overrun units=ger_3,ger_4 hex=east_europe:4-2", "rule 2.4.3: ger_3 is out of supply: no overrun"),
    ("alice", "emergency_supply hq=ger_hq units=ger_south", "rule 2.4.3: emergency HQ supply is option 13"),
    ("alice", "destroy unit=ger_2", "rule 2.3.1: destroy is not given now"),
    ("alice", "retreat unit=ger_2 hex=east_europe:2-2", "rule 11.16.5: retreat is not given now"),
    ("alice", "move unit=ger_2", "field 'orders[1].path', rule 11: move needs 'path'"),
])
def test_a_bad_order_is_refused_and_changes_nothing(table, player, text, words):
    before = {name: snapshot(table[name].dir) for name in NAMES}
    code, out, err = table[player].cli("move", text)
    assert code in (1, 3) and out == "" and words in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"player {player}" in err or "out of turn" in err
    for name in NAMES:
        assert snapshot(table[name].dir) == before[name], changes(before[name], snapshot(table[name].dir))


def test_an_impulse_through_the_cli(table):
    """ger_2 opens ger_3's supply path; ger_3 attacks and the die comes from bob's and carol's
    reveals; carol retreats into Odessa, overstacks it and destroys a face-up unit."""
    supply = json.loads(table["carol"].cli("show", "supply", "germany", "--json")[1])["units"]
    assert not supply["ger_3"]["supplied"] and supply["ger_3"]["path"] == []
    sign(table, "alice", "move unit=ger_2 path=east_europe:3-1")
    supply = json.loads(table["carol"].cli("show", "supply", "germany", "--json")[1])["units"]
    assert [step["place"] for step in supply["ger_3"]["path"]] == [
        "east_europe:4-1", "east_europe:3-1", "east_europe:2-1", "east_europe:1-1"]
    assert [step["counts"] for step in supply["ger_3"]["path"]] == [0, 1, 1, 1]
    sign(table, "alice", "attack hex=east_europe:5-2 units=ger_3")
    status = json.loads(table["carol"].cli("status", "--json")[1])
    assert status["step"]["waiting_for"] == ["carol"], status
    sign(table, "carol", "retreat unit=sov_front hex=odessa")
    odessa = json.loads(table["bob"].cli("show", "hex", "odessa", "--json")[1])
    assert odessa["units"] == ["sov_front", "sov_odessa_1", "sov_odessa_2"]
    assert odessa["stacking"]["land"] == [3, 2] and odessa["zoc_of"] == ["allies"]
    sign(table, "carol", "destroy unit=sov_odessa_1")
    impulse = json.loads(table["alice"].cli("show", "impulse", "--json")[1])
    assert impulse["destroyed"] == ["sov_odessa_1"] and impulse["acting"] == "alice"
    code, out, err = table["bob"].cli("show", "impulse")
    assert code == 0 and "sov_odessa_1" in out and "OUT" in out, err
    code, _, err = table["alice"].cli("verify")
    assert code == 0, err


def test_the_views(table):
    sea = json.loads(table["alice"].cli("show", "sea", "cape_st_vincent", "--json")[1])
    assert sea["units"] == ["ark_royal", "littorio"] and sea["open_to"] == ["axis", "allies"]
    assert sea["adjacent"] == ["bay_of_biscay", "caribbean", "western_mediterranean"]
    code, out, err = table["alice"].cli("show", "supply", "italy")
    assert code == 0, err
    assert "cape_st_vincent (basic, at sea)" in out
    assert "west_europe:9-1 genoa (basic, counts 1)  <- primary source" in out
    code, _, err = table["alice"].cli("show", "sea", "caribean")
    assert code == 2 and "no sea area 'caribean'; did you mean caribbean?" in err and err.count("\n") == 1, err
    code, _, err = table["alice"].cli("show", "hex", "warsw")
    assert code == 2 and "no hex 'warsw'; did you mean warsaw?" in err, err
    code, _, err = table["alice"].cli("show", "supply", "atlantis")
    assert code == 2 and "no unit of 'atlantis'" in err, err
    for args, words in ((("show", "sea", "black_sea", "extra"), "'pbem show sea' takes at most 1 word"),
                        (("show", "hex", "odessa", "extra"), "no hex 'odessa extra'; did you mean odessa?"),
                        (("show", "impulse", "x"), "'pbem show impulse' takes no words"),
                        (("show", "hex", "africa:0-0"), "no hex 'africa:0-0'"),  # AfA option 1 is off
                        (("show", "picture", "--focus", "asia:1-5", "--out", "-"), "no hex 'asia:1-5'"),
                        (("show", "sea"), "show sea needs a sea area")):
        code, _, err = table["alice"].cli(*args)
        assert code == 2 and words in err and err.count("\n") == 1, (args, err)
    code, out, err = table["alice"].cli("show", "hex", "mexico", "city")  # a name of two words
    assert code == 0 and "america:2-0 (mexico city): clear, mexico, counts 4, off-map" in out, err
    warsaw = json.loads(table["alice"].cli("show", "hex", "warsaw", "--json")[1])
    assert (warsaw["controller"], warsaw["terrain"], warsaw["counts"]) == ("germany", "clear", 1)


ROSTER = (Seat("alice", ("axis", "germany", "italy"), "player"), Seat("bob", ("allies", "commonwealth"), "player"))


@pytest.mark.parametrize(("roster", "tables", "words"), [
    (ROSTER, {}, "needs the charter's combat table"),
    (ROSTER, {"combat": {"die": "2d6", "2-12": "retreat"}}, "one die of 2 to 100 faces"),
    (ROSTER, {"combat": {"die": "1d100000000", "1-100000000": "retreat"}}, "one die of 2 to 100 faces"),
    (ROSTER, {"combat": {"die": "1d\u00b2", "1-2": "retreat"}}, "one die of 2 to 100 faces"),
    (ROSTER, {"combat": {"die": "1d6", "1-5": "retreat"}}, "no result among"),
    (ROSTER, {"combat": {"die": "1d6", "1-6": "rout"}}, "no result among"),
    ((Seat("alice", ("germany",), "player"), ROSTER[1]), {"combat": COMBAT}, "his team (axis or allies)"),
    ((Seat("alice", ("axis", "ussr"), "player"), ROSTER[1]), {"combat": COMBAT}, "'ussr' is not a major power of"),
    ((ROSTER[0], Seat("bob", ("axis", "italy"), "player")), {"combat": COMBAT}, "italy is commanded by both"),
    ((ROSTER[0],), {"combat": COMBAT}, "2 to 6 players"),
])
def test_a_charter_it_cannot_play_is_refused(roster, tables, words):
    with pytest.raises(UsageError) as refused:
        rulesets.load("world_in_flames").check_setup(Setup("demo", roster, tables=tables))
    assert words in refused.value.message
