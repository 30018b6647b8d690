"""Paths of Glory war and peace (SoE 7.1, 16, 17; base 5): the rule cases in
tests/cases/paths_of_glory/{war_status,mandated_offensives,peace,replacements,victory}.toml.

A case names what to do (`do`, below) with its fields, starting from its position with the 1914
tracks filled in where the case sets none (VP 10). Dice are forced with `dice = [..]`. Expectations,
all optional:

  error = "rule"                        IllegalOrder under that rule, the position unchanged
  answer = value                        what a query returns (satisfies, mutiny_vp, army_placements...;
                                        "none" for None)
  tracks = {key = n}                    a key the state lacks reads 0
  war_status, commitment, mo = {side = value};  combined = n;  rounds = n (R41)
  at_war = [nation..], neutral = [nation..], marked = [event..], unmarked = [event..]
  boxes = {us_entry = box, russian_capitulation = box}
  units = {unit = space | {space, reduced}}, removed = [unit..], control = {space = side},
  trenches = {space = level}
  events_include = [{..}]               each a subset of one event produced
  no_events = true                      nothing happened
  winner = "cp" | "ap" | "draw" | "none";  result_contains = "text"
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pbem.rules.paths_of_glory import offensives, peace, replacements, victory, war
from pbem.rules.paths_of_glory.state import PogState, dump
from pog_cases import load_cases, position

from pbem.dice import FixedDice
from pbem.errors import IllegalOrder

FILES = ("war_status", "mandated_offensives", "peace", "replacements", "victory")
CASES = [case for name in FILES for case in load_cases(f"{name}.toml")]


def _dice(case: dict) -> FixedDice:
    return FixedDice(case.get("dice", []))


def _peace(state: PogState, case: dict) -> list[dict]:
    events = peace.offer_peace(state, case["side"], case.get("scenario", "campaign"))
    if "accepted" in case:
        events += peace.answer_peace(state, case["accepted"], _dice(case))
    return events


def _combat(case: dict) -> tuple:
    return case["side"], case["attackers"], case.get("defenders", []), case["space"]


# Each `do`: the call, returning (events, answer).
DOS: dict[str, Callable[[PogState, dict], tuple[list[dict], object]]] = {
    "add_war_status": lambda s, c: (war.add_war_status(s, c["side"], c["points"]), None),
    "check_commitment": lambda s, c: (war.check_commitment(s, c["side"], c.get("scenario", "campaign")), None),
    "end_of_action": lambda s, c: (war.end_of_action(s, c["side"], c.get("scenario", "campaign")), None),
    "move_track": lambda s, c: (war.move_track(s, c["track"], c["points"], c["track_rule"]), None),
    "enter_war": lambda s, c: (war.enter_war(s, c["nation"], c["entry_rule"]), None),
    "update_boxes": lambda s, c: (war.update_boxes(s), None),
    "check_event": lambda s, c: ([], war.check_event(s, c["event"])),
    "record_event": lambda s, c: (war.record_event(s, c["event"]), None),
    "us_reinforcement": lambda s, c: (war.record_us_reinforcement(s), None),
    "brest_litovsk_entry": lambda s, c: ([], war.brest_litovsk_bars_entry(s, c["unit"], c["space"])),
    "brest_litovsk_attack": lambda s, c: ([], war.brest_litovsk_bars_attack(s, c["attackers"], c["defenders"],
                                                                            c["space"])),
    "roll_offensives": lambda s, c: (offensives.roll_offensives(s, _dice(c)), None),
    "satisfies": lambda s, c: ([], offensives.satisfies(s, *_combat(c))),
    "designate_combat": lambda s, c: (offensives.designate_combat(s, *_combat(c)), None),
    "mutiny_vp": lambda s, c: ([], offensives.mutiny_vp(s, c["side"], c["attackers"], c["space"])),
    "offensive_event": lambda s, c: (offensives.event_played(s, c["event"]), None),
    "offensive_penalty": lambda s, c: (offensives.offensive_penalty(s), None),
    "aid_options": lambda s, c: ([], [list(o) for o in peace.aid_options(s, c["side"], mandated=c["mandated"])]),
    "foreign_aid": lambda s, c: (peace.foreign_aid(s, c["side"], c["giver"], c["receiver"], mandated=c["mandated"]),
                                 None),
    "foreign_policy": lambda s, c: (peace.foreign_policy(s, c["side"], c["track"], _dice(c)), None),
    "peace_offer": lambda s, c: (_peace(s, c), None),
    "check_event_play": lambda s, c: ([], peace.check_event_play(s)),
    "record_rps": lambda s, c: (replacements.record_rps(s, c["side"], c["rps"], rp_card=c.get("rp_card", True)), None),
    "spend_rp": lambda s, c: (replacements.spend_rps(s, c["side"], c["spends"], mandated=c["mandated"]), None),
    "army_placements": lambda s, c: ([], replacements.army_placements(s, c["unit"])),
    "rp_event": lambda s, c: (replacements.event_played(s, c["event"]), None),
    "turn_end": lambda s, c: (replacements.turn_end(s), None),
    "vp_for_control_change": lambda s, c: (victory.vp_for_control_change(s, c["space"], c["side"]), None),
    "war_status_phase": lambda s, c: (victory.war_status_phase(s, _dice(c), c.get("scenario", "campaign")), None),
    "end_after_action": lambda s, c: (victory.end_after_action(s, c.get("scenario", "campaign")), None),
    "record_bid": lambda s, c: (victory.record_bid(s, c["points"], c["ceded_to"]), None),
}


def start(case: dict) -> PogState:
    state = position(case)
    for key, value in war.starting_tracks().items():
        state.tracks.setdefault(key, value)
    return state


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_case(case):
    state = start(case)
    expect = case["expect"]
    if "error" in expect:
        before = dump(state)
        with pytest.raises(IllegalOrder) as refused:
            DOS[case["do"]](state, case)
        assert refused.value.rule == expect["error"], refused.value
        assert dump(state) == before, "a refused order changed the position"
        return
    events, answer = DOS[case["do"]](state, case)
    if "answer" in expect:
        assert answer == (None if expect["answer"] == "none" else expect["answer"])  # "none": the call returns None
    check_state(state, expect)
    check_events(events, expect)


def check_state(state: PogState, expect: dict) -> None:
    for key, value in expect.get("tracks", {}).items():
        assert state.tracks.get(key, 0) == value, f"track {key}: {state.tracks.get(key, 0)}"
    for name in ("war_status", "commitment", "mo"):
        for side, value in expect.get(name, {}).items():
            assert getattr(state, name).get(side, "none") == value, f"{name} {side}"
    if "combined" in expect:
        assert war.combined_war_status(state) == expect["combined"]
    if "rounds" in expect:
        assert war.rounds_per_turn(state) == expect["rounds"]
    assert set(expect.get("at_war", [])) <= state.at_war
    assert not set(expect.get("neutral", [])) & state.at_war
    assert set(expect.get("marked", [])) <= state.events
    assert not set(expect.get("unmarked", [])) & state.events
    for key, name in expect.get("boxes", {}).items():
        assert war.box(state, key) == name, key
    for unit, where in expect.get("units", {}).items():
        where = {"space": where} if isinstance(where, str) else where
        here = state.units[unit]
        assert {k: {"space": here.space, "reduced": here.reduced}[k] for k in where} == where, unit
    assert set(expect.get("removed", [])) <= state.removed
    for space, side in expect.get("control", {}).items():
        assert state.control[space] == side, space
    for space, level in expect.get("trenches", {}).items():
        assert state.trenches.get(space, 0) == level, space


def check_events(events: list[dict], expect: dict) -> None:
    for wanted in expect.get("events_include", []):
        assert any(wanted.items() <= event.items() for event in events), f"{wanted} not in {events}"
    if expect.get("no_events"):
        assert events == []
    if "winner" in expect:
        over = [e for e in events if e["kind"] == "game_over"]
        assert [e["winner"] for e in over] == ([] if expect["winner"] == "none" else [expect["winner"]])
    if "result_contains" in expect:
        assert expect["result_contains"] in (victory.game_result(events) or "")


# ---------------------------------------------------------------------------------- the case book itself

REQUIRED = {
    "war_status": ["9.5.1.3", "16.1.1", "16.1.2", "16.1.3", "16.1.3.1", "16.1.4", "16.1.5", "16.2.1", "16.2.2",
                   "8.1.7", "16.3.1", "16.3.2", "16.3.3", "16.3.4", "16.3.5", "16.4.1", "16.4.2", "16.4.3", "16.4.4",
                   "16.4.5", "16.4.6", "16.4.7", "16.4.8", "16.4.9", "16.4.10", "R60", "R61", "R62", "R63", "R64",
                   "R65", "R66"],
    "mandated_offensives": ["7.1.1", "7.1.2", "7.1.3", "7.1.4", "7.1.5", "7.1.6", "7.1.7", "7.1.8", "7.1.9",
                            "7.1.10", "7.1.11", "R67", "R68", "R69"],
    "peace": ["16.5.1", "16.5.2", "16.5.3.1", "16.5.3.2", "16.5.3.3", "R70", "R71", "R72"],
    "replacements": ["9.4.1", "9.5.3.3", "17.1.1", "17.1.1.1", "17.1.2", "17.1.3", "17.1.4", "17.1.4.1", "17.1.5",
                     "17.1.6", "17.1.7", "17.1.8", "R73", "R74", "R75", "R76", "R77"],
    "victory": ["base 5.1.1", "base 5.1.2", "base 5.2.1", "base 5.2.2", "base 5.3.1", "base 5.3.4", "base 5.4.1",
                "base 5.4.2", "base 5.5.1", "base 5.5.2.1", "base 5.5.2.2", "base 5.6.1", "base 5.6.2", "base 6",
                "R78", "R79", "R80"],
}


@pytest.mark.parametrize("name", FILES)
def test_every_rule_has_a_case(name):
    cited = {case["rule"] for _, case in load_cases(f"{name}.toml")}
    assert set(REQUIRED[name]) <= cited, sorted(set(REQUIRED[name]) - cited)


def test_every_do_is_used_and_known():
    used = {case["do"] for _, case in CASES}
    assert used == set(DOS), sorted(used ^ set(DOS))
    assert len({case["id"] for _, case in CASES}) == len(CASES), "case ids are unique"


def test_rulings_cited_exist():
    """Every ruling the Paths of Glory code, data and rule cases cite is written in RULINGS.md,
    and each number is written once."""
    import re
    from pathlib import Path

    root = Path(war.__file__).parent
    written = re.findall(r"^### (R\d+) · ", (root / "RULINGS.md").read_text(), flags=re.M)
    assert len(written) == len(set(written))
    cases = Path(__file__).parent / "cases" / "paths_of_glory"
    sources = [*root.glob("*.py"), *(root / "data").glob("*.toml"), *cases.glob("*.toml")]
    cited = {f"R{r}" for path in sources for r in re.findall(r"\bR(\d+)\b", path.read_text())}
    assert cited <= set(written), sorted(cited - set(written))


def test_a_charter_vp_bid_counts_at_the_end_only():
    """base 5.6.1: the Allies bid 1 VP to play their side; the final VP 12 becomes 13, a CP win
    at the campaign's 13 (5.5.2.2), while automatic victory ignores it (5.6.1.1)."""
    from pbem.rules.paths_of_glory.ruleset import PathsOfGlory

    from pbem.ruleset import Seat, Setup

    roster = (Seat("alice", ("ap",), "player"), Seat("bob", ("cp",), "player"))
    state = PathsOfGlory().new_state(Setup("august_1914", roster, options={"vp_bid": 1, "vp_bid_to": "cp"}))
    assert state.tracks["vp_bid"] == 1 and "vp_bid" in state.events
    state.tracks["vp"] = 12
    assert victory.final_result(state, "campaign", "the last turn", "base 5.5.1")["winner"] == "cp"
