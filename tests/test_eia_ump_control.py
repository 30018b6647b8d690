"""Rule cases of Empires in Arms' UMP Control Step (seed 003, 14.3.1-14.3.2, 14.3.7, 14.3.8):
tests/cases/empires_in_arms/ump_control.toml, each played through the ruleset with forced dice.

A case names the players and their powers (`players`, default alice: france, bob: britain, carol:
russia), changes to the demo scenario (`position`: turn, bourbon, powers {power: {pp, money,
last_controller}}, wars, alliances, surrendered, control, forces {area: {power: strength}}: one
infantry corps for each, replacing that power's corps there), each player's sealed orders (`sealed`) and the
dice of the roll point. `refused` checks `pbem seal`'s refusal of one player's orders instead."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from eia_cases import PLAYERS, RULESET, assert_refused_at_sealing, position

from pbem.dice import FixedDice
from pbem.ruleset import Chance, Decision, Seat, Setup

CASES = tomllib.loads((Path(__file__).parent / "cases" / "empires_in_arms" / "ump_control.toml").read_text())["case"]


def start(case: dict):
    state = position(case, players=case.get("players", PLAYERS))
    state.turn = case.get("position", {}).get("turn", state.turn)
    state.bourbon = case.get("position", {}).get("bourbon", state.bourbon)
    return state


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']} [{c['rule']}]" for c in CASES])
def test_case(case):
    state = start(case)
    expect = case["expect"]
    if "refused" in case:
        assert_refused_at_sealing(state, case)
        return
    assert isinstance(RULESET.pending(state), Decision)
    sealed = {player: case["sealed"].get(player, []) for player in RULESET.pending(state).players}
    RULESET.apply_together(state, sealed)
    assert isinstance(RULESET.pending(state), Chance)
    dice = FixedDice(list(case.get("dice", [])))
    RULESET.resolve(state, dice, None)
    assert not dice.values, f"dice left over: {dice.values}"
    check(state, expect)


def check(state, expect: dict) -> None:
    for power, facts in expect.get("powers", {}).items():
        for key, value in facts.items():
            assert getattr(state.powers[power], key) == value, f"{power}.{key}"
    for ump, totals in expect.get("totals", {}).items():
        assert {r["power"]: r["total"] for r in state.last_control["umps"][ump]["rolls"]} == totals, ump
    for ump, by_power in expect.get("modifiers", {}).items():
        rolls = {r["power"]: r["modifiers"] for r in state.last_control["umps"][ump]["rolls"]}
        assert {power: rolls[power] for power in by_power} == by_power, ump
    if "voided" in expect:
        assert [(v["player"], v["rule"]) for v in state.voided] == [tuple(v) for v in expect["voided"]]
    if "turn" in expect:
        assert state.turn == expect["turn"]
    for ump in expect.get("uncontrolled", []):  # neutral: nobody controls it (14.3.6)
        assert state.powers[ump].controller is None, ump
    for area, held in expect.get("forces", {}).items():
        assert state.forces_in(area) == held, area
    for territory, power in expect.get("control", {}).items():
        assert state.control.get(territory) == power, territory
    for key in ("must_accept_peace", "wars", "surrendered"):
        if key in expect:
            assert getattr(state, key) == expect[key], key


VICTORY = tomllib.loads((Path(__file__).parent / "cases" / "empires_in_arms" / "victory.toml").read_text())["case"]


@pytest.mark.parametrize("case", VICTORY, ids=[f"{c['id']} [{c['rule']}]" for c in VICTORY])
def test_victory_case(case):
    from pbem.rules.empires_in_arms import victory

    state = start({})
    for power, facts in case["powers"].items():
        for key, value in facts.items():
            setattr(state.powers[power], key, value)
    commands = {player: RULESET.commands(state.setup, player) for player in state.setup.players}
    found = [[c["player"], c["power"], c.get("ump", ""), c["vp"]] for c in victory.claims(state, commands)]
    assert found == case["expect"]["claims"]


def test_every_rule_of_the_step_has_a_case():
    cited = {case["rule"] for case in CASES + VICTORY}
    assert {"14.3.1", "14.3.1.1.1", "14.3.1.1.2", "14.3.1.1.3", "14.3.1.1.4", "14.3.1.1.5", "14.3.1.1.6",
            "14.3.1.1.7", "14.3.1.1.8", "14.3.2", "14.3.2.1", "14.3.6", "14.3.6.1a", "14.3.6.1b", "14.3.6.2",
            "14.3.7", "14.3.8", "14.3.9", "E1", "E2", "E4", "E5", "E11"} <= cited, cited


def test_a_resigned_players_power_becomes_an_ump():
    """E9: bob resigns; Britain is an UMP the others may bid for; with carol gone too, alice wins."""
    from pbem.ruleset import Over

    state = start({})
    RULESET.resign(state, "bob")
    assert state.powers["britain"].status == "uncontrolled" and state.powers["britain"].controller is None
    assert RULESET.pending(state).players == ("alice", "carol")
    RULESET.check_together(state, "alice", [{"kind": "overture", "ump": "britain"}])
    dumped = RULESET.dump(state)
    assert RULESET.dump(RULESET.load(dumped, state.setup)) == dumped
    RULESET.resign(state, "carol")
    assert RULESET.pending(state) == Over("alice wins: every other player resigned")


def test_a_resignation_before_the_dice_withdraws_his_overtures():
    """E9: alice resigns while the roll point is open: France's overture is not rolled, and an UMP
    France controlled is let go."""
    state = start({"position": {"turn": 1, "powers": {"prussia": {"controller": "france", "status": "inactive"}}}})
    sealed = {"alice": [{"kind": "overture", "ump": "austria"}], "bob": [{"kind": "overture", "ump": "austria"}],
              "carol": []}
    RULESET.apply_together(state, sealed)
    RULESET.resign(state, "alice")
    assert [o["power"] for o in state.overtures] == ["britain"]
    assert (state.powers["prussia"].controller, state.powers["prussia"].status) == (None, "uncontrolled")
    dice = FixedDice([1, 1])
    RULESET.resolve(state, dice, None)
    assert state.powers["austria"].controller == "britain" and not dice.values


def test_a_charter_table_with_a_hole_is_refused():
    from pbem.errors import UsageError

    roster = tuple(Seat(name, tuple(sides), "player") for name, sides in PLAYERS.items())
    with pytest.raises(UsageError, match="austria bidding for britain") as refused:
        RULESET.check_setup(Setup("demo", roster, tables={"natural_alliance": {"france": {"spain": 3}}}))
    assert refused.value.rule == "14.3.1.2"


def test_a_neutral_ump_is_set_up_again_when_gained():
    """14.3.6, 14.3.3.5 (E31): nobody bids for Austria in turn 1: its corps leave the map, their
    strengths recorded. France's corps then stand in Munich. In turn 2 Britain gains Austria: its
    corps come back where they stood, but Munich's cavalry to Vienna, its capital, as French corps
    hold Munich now; Charles, off the map, comes to Vienna."""
    state = start({"position": {"turn": 1}})
    RULESET.apply_together(state, {"alice": [], "bob": [], "carol": []})
    RULESET.resolve(state, FixedDice([]), None)
    austria = state.powers["austria"]
    assert austria.off_map == {"vienna": 10, "munich": 4} and "au_1" not in state.corps
    assert state.leaders["charles"].area is None
    state.corps["fr_1"].area = "munich"
    state.turn, state.step = 2, "ump_control"
    RULESET.apply_together(state, {"alice": [], "bob": [{"kind": "overture", "ump": "austria"}], "carol": []})
    RULESET.resolve(state, FixedDice([5, 5]), None)
    assert {name: state.corps[name].area for name in ("au_1", "au_depot", "au_cav")} == {
        "au_1": "vienna", "au_depot": "vienna", "au_cav": "vienna"}
    assert state.leaders["charles"].area == "vienna" and austria.off_map == {} and austria.set_aside == {}
    assert state.last_control["umps"]["austria"]["back_from_neutral"]["set_up"]["au_cav"] == "vienna"
    from rich.console import Console

    console = Console(width=200, record=True)
    view = RULESET.views(state)["diplomacy"]
    console.print(view.render(view.data()))
    assert "set up again (14.3.3.5): au_1 in vienna, au_depot in vienna, au_cav in vienna, charles in vienna" in \
        console.export_text()
    dumped = RULESET.dump(state)
    assert RULESET.dump(RULESET.load(dumped, state.setup)) == dumped
