"""Empires in Arms' UMP Control Step through the real CLI (seed 003, 14.3.1; protocol §5): three
players in their own directories seal their overtures (`pbem seal`), a bad one refused before it
is signed; all unseal; alice, first in roster order, collects the seals with her next entry,
whose roll point draws every overture's dice; `pbem show powers` and `pbem show diplomacy` say
who gained each UMP and why."""

from __future__ import annotations

import json

import pytest
from helpers import NAMES, setup_game
from test_sealed_cli import mail, outbox_file, seal

SIDES = {"alice": ["france"], "bob": ["britain"], "carol": ["russia"]}


@pytest.fixture
def table(tmp_path):
    return setup_game(tmp_path, ruleset="empires_in_arms", scenario="demo", sides=SIDES, tables={})


def test_a_control_step_before_the_game(table):
    code, out, err = table["bob"].cli("status", "--json")
    assert code == 0, err
    step = json.loads(out)["step"]
    assert (step["kind"], step["seals_from"]) == ("sealed", ["alice", "bob", "carol"])
    code, _, err = table["alice"].cli("seal", "overture ump=austria subsidy=20")
    assert code == 1 and "field 'orders[1].subsidy', rule 14.3.1:" in err and err.count("\n") == 1, err
    assert not list((table["alice"].dir / "outbox").glob("*seal*"))
    seal(table, "alice", "overture ump=austria pp=2")
    seal(table, "bob", "overture ump=austria", "overture ump=prussia pp=1")
    seal(table, "carol")  # an empty seal: Russia makes no overture
    for name in NAMES:
        code, _, err = table[name].cli("apply", "--unseal")
        assert code == 0, err
        for result in mail(table, name, outbox_file(table, name, "unseal")):
            assert result[0] == 0, result
    code, out, err = table["alice"].cli("move")  # the collector's entry: its roll point draws the dice
    assert code == 0, err
    for result in mail(table, "alice", outbox_file(table, "alice", "move")):
        assert result[0] == 0, result
    for name in ("bob", "carol"):
        code, _, err = table[name].cli("apply", "--reveal")
        assert code == 0, err
        for result in mail(table, name, outbox_file(table, name, "reveal")):
            assert result[0] == 0, result
    powers = json.loads(table["carol"].cli("show", "powers", "--json")[1])["powers"]
    assert powers["france"]["pp"] == 20 and powers["britain"]["pp"] == 19  # paid before the first roll
    assert powers["austria"]["controller"] in ("france", "britain") and powers["austria"]["pp"] == 14
    assert powers["prussia"]["controller"] == "britain" and powers["spain"]["status"] == "neutral"
    control = json.loads(table["bob"].cli("show", "diplomacy", "--json")[1])["last_control"]
    austria = {roll["power"]: roll for roll in control["umps"]["austria"]["rolls"]}
    assert austria["france"]["modifiers"] == {"natural alliance": -2, "political points": 2}
    assert austria["france"]["total"] == sum(austria["france"]["dice"])
    code, out, err = table["bob"].cli("show", "diplomacy")
    assert code == 0 and "austria:" in out and "natural alliance -2" in out, err
    area = json.loads(table["bob"].cli("show", "area", "Milan", "--json")[1])
    assert (area["territory"], area["held_by"], area["forces"]) == ("cisalpine", "france", {"france": 6})
    code, _, err = table["bob"].cli("show", "area", "Milano")
    assert code == 2 and "no area 'Milano'; did you mean milan?" in err and err.count("\n") == 1, err
    victory = json.loads(table["alice"].cli("show", "victory", "--json")[1])
    assert victory == {"claims": [], "must_accept_peace": []}  # Austria, at war with France, had overtures
    code, out, err = table["alice"].cli("verify")
    assert code == 0, err


def sign(table, name: str, text: str) -> None:
    """`pbem move TEXT` by `name`, mailed to the others; a roll point it opens is answered by
    every other player's reveal."""
    code, _, err = table[name].cli("move", *([text] if text else []))
    assert code == 0, err
    for result in mail(table, name, outbox_file(table, name, "move")):
        assert result[0] == 0, result
    if json.loads(table[name].cli("status", "--json")[1])["step"]["kind"] == "reveal":
        for other in table.others(name):
            code, _, err = table[other].cli("apply", "--reveal")
            assert code == 0, err
            for result in mail(table, other, outbox_file(table, other, "reveal")):
                assert result[0] == 0, result


def unseal(table, names) -> None:
    """Each of them unseals (`pbem apply --unseal`) and mails it to the others."""
    for name in names:
        assert table[name].cli("apply", "--unseal")[0] == 0
        for result in mail(table, name, outbox_file(table, name, "unseal")):
            assert result[0] == 0, result


def to_frances_land_phase(table) -> None:
    """Britain alone courts Austria before the game; alice passes the peace step; bob ends
    Austria's and Britain's land phases: France's begins."""
    for name, orders in (("alice", ()), ("bob", ("overture ump=austria",)), ("carol", ())):
        seal(table, name, *orders)
    unseal(table, NAMES)
    sign(table, "alice", "")
    assert json.loads(table["bob"].cli("show", "powers", "--json")[1])["powers"]["austria"]["controller"] == "britain"
    sign(table, "alice", "no_force_peace")  # the peace step: France is at war with Austria, an UMP (14.3.3.8)
    for _ in range(2):  # Austria's land phase, then Britain's: both bob's
        sign(table, "bob", "end_land_phase")


def test_a_land_phase_with_reactions_and_an_overrun(table):
    """Britain alone courts Austria before the game; in turn 1 France moves fr_1 into Munich:
    Austria's cavalry there withdraws at will (no die), Charles tries to intercept from Vienna
    (his die at bob's roll point decides); alice overruns Munich if he came (8 to 8 fails), else
    the overrun is refused; a refused order signs nothing; `pbem show land` tells it all, and
    `pbem verify` passes."""
    to_frances_land_phase(table)
    code, _, err = table["alice"].cli("move", "move units=fr_1 path=munich,vienna,prague")
    assert code == 1 and "rule 7.3" in err and "costs 5" in err and err.count("\n") == 1, err
    sign(table, "alice", "move units=fr_1,napoleon path=munich")
    sign(table, "bob", "react corps=au_cav to=vienna")
    sign(table, "bob", "react corps=au_1 to=munich leader=charles")
    land = json.loads(table["carol"].cli("show", "land", "--json")[1])
    cavalry, interception = land["log"]
    assert (cavalry["event"], cavalry["success"], "die" in cavalry) == ("cavalry withdrawal", True, False)
    assert interception["needed"] == 3 and interception["success"] == (interception["die"] <= 3)
    assert land["units"]["au_cav"]["area"] == "vienna"
    assert land["units"]["au_1"]["area"] == ("munich" if interception["success"] else "vienna")
    code, out, err = table["carol"].cli("show", "land")
    assert code == 0 and "cavalry withdrawal by au_cav" in out and "needs 3 or less" in out, err
    if interception["success"]:  # fr_1 (8) stopped beside au_1 (8): not 5 to 1 (12.3.9.5)
        sign(table, "alice", "overrun area=munich")
        land = json.loads(table["carol"].cli("show", "land", "--json")[1])
        assert (land["log"][-1]["success"], land["attack_minus"]) == (False, ["munich"])
    else:  # nothing left in Munich to overrun: refused, one line, nothing signed
        code, _, err = table["alice"].cli("move", "overrun area=munich")
        assert code == 1 and "rule 12.3.9.2" in err and "no enemy corps" in err and err.count("\n") == 1, err
    code, _, err = table["alice"].cli("verify")
    assert code == 0, err


def test_planned_reactions_through_pbem_seal(tmp_path):
    """Option planned_reactions: France's land phase is one sealed round; a policy sealed by the
    mover is refused by `pbem seal`; alice's move and bob's policy for Charles are carried out at
    the collector's roll point, Charles's die deciding whether au_1 joins fr_1 in Munich."""
    table = setup_game(tmp_path, ruleset="empires_in_arms", scenario="demo", sides=SIDES, tables={},
                       options={"planned_reactions": True})
    for name, orders in (("alice", ()), ("bob", ("overture ump=austria",)), ("carol", ())):
        seal(table, name, *orders)
    unseal(table, NAMES)
    sign(table, "alice", "")
    sign(table, "alice", "no_force_peace")
    seal(table, "bob")  # Austria's land phase, at war with France: a sealed round where nothing moves
    seal(table, "alice")
    unseal(table, ("alice", "bob"))
    sign(table, "alice", "")
    sign(table, "bob", "end_land_phase")  # Britain's, at war with nobody: no sealed round
    code, _, err = table["alice"].cli("seal", "policy leader=napoleon intercept=true")
    assert code == 1 and "moves and overruns" in err and err.count("\n") == 1, err
    seal(table, "alice", "move units=fr_1 path=munich,vienna")
    seal(table, "bob", "policy leader=charles intercept=true")
    unseal(table, ("alice", "bob"))
    sign(table, "alice", "")
    land = json.loads(table["carol"].cli("show", "land", "--json")[1])
    events = {event["event"]: event for event in land["log"] + land["last_phase"].get("log", [])}
    intercepted = events["interception"]["success"]
    assert intercepted == (events["interception"]["die"] <= events["interception"]["needed"])
    # the Austrian cavalry, with no policy, stays in Munich: the move ends there whatever the die
    assert land["units"]["fr_1"]["area"] == "munich"
    assert land["units"]["au_1"]["area"] == ("munich" if intercepted else "vienna")
    assert table["alice"].cli("verify")[0] == 0


@pytest.mark.parametrize(("player", "text", "words"), [
    ("alice", "move units=fr_1 path=munchen", "field 'orders[1].path', rule 7.3: no area 'munchen'; did you mean"),
    ("alice", "move units=fr_1,fr_1 path=munich", "field 'orders[1].units', rule 7.3: fr_1 is named twice"),
    ("alice", "move units=au_1 path=buda", "rule 7.3: au_1 is austria's; this is france's land phase"),
    ("alice", "move units=fr_1 path=vienna", "rule 7.3: vienna does not border paris"),
    ("alice", "overrun area=munich", "rule 12.3.9.2: no france corps entered munich this phase"),
    ("alice", "react corps=au_1 to=munich", "rule 12.3.7.4: react is not open to alice now"),
    ("alice", "retreat to=paris", "rule 7.5: retreat is not open to alice now"),
    ("alice", "landwehr power=prussia active=true", "rule 12.11.3: landwehr is not open to alice now"),
    ("alice", "march units=fr_1", "unknown order 'march'"),
    ("alice", "move units=fr_1 path=munich extra=1", "field 'orders[1].extra', rule 7.3: move takes no 'extra'"),
    ("bob", "end_land_phase", "out of turn"),
])
def test_a_bad_land_order_is_refused_and_changes_nothing(table, player, text, words):
    """Each bad order in France's land phase: exit 1, one line naming the entry's player, field and
    rule, and no file changed in any player's directory; a good order goes through after it."""
    from helpers import changes, snapshot

    to_frances_land_phase(table)
    before = {name: snapshot(table[name].dir) for name in NAMES}
    code, out, err = table[player].cli("move", text)
    assert code == 1 and out == "" and words in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"player {player}" in err
    for name in NAMES:
        assert snapshot(table[name].dir) == before[name], changes(before[name], snapshot(table[name].dir))
    sign(table, "alice", "move units=fr_cav path=rennes")
