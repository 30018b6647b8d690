"""Victory (base 5, base 6 E, SoE 16.2.1): the VP level, the War Status Phase and the end of the game.

The VP level is the track `vp` (10 at the start); + favours the Central Powers. A game that ends
yields a "game_over" event: its `winner` ("cp", "ap" or "draw"), the `vp` it was judged on, and a
`result` line for the players. Data: data/victory.toml; rulings R72, R78-R80 in RULINGS.md.
"""

from __future__ import annotations

from functools import cache

from pbem import datafile
from pbem.dice import Dice

from .offensives import offensive_penalty
from .state import PogState
from .war import BREST_LITOVSK, add_vp, combined_war_status, track, update_boxes

SIDE_NAMES = {"cp": "Central Powers", "ap": "Allies"}
ARMISTICE = 40  # 16.2.1


@cache
def _data() -> dict:
    return datafile.load(__package__, "victory.toml")


def scenario_kind(state: PogState) -> str:
    """The kind of scenario ("campaign", "limited_war", "introductory") the charter names."""
    name = state.setup.scenario if state.setup is not None else None
    return _data()["charter_scenarios"].get(name, "campaign")


def record_bid(state: PogState, points: int, ceded_to: str) -> list[dict]:
    """5.6.1: the VP a player cedes to win the bid, added to the final level only (R79)."""
    state.tracks["vp_bid"] = points if ceded_to == "cp" else -points
    state.events.add("vp_bid")
    return [{"kind": "vp_bid", "to": ceded_to, "vp": points, "rule": "base 5.6.1"}]


# ---------------------------------------------------------------------------------- VP in play

def vp_for_control_change(state: PogState, space: str, new_side: str) -> list[dict]:
    """A space changes hands: control passes to `new_side` and, for a VP space, the VP level moves
    (5.1.2: +1 when the CP take it, -1 when the Allies do); the CP Russian VP is recounted
    (16.4.2). Callers record the change of control itself as they do now (R80)."""
    if state.control.get(space) == new_side:
        return []
    state.control[space] = new_side
    pog = state.map
    points = pog.vp[pog.index[space]] * _data()["control"][new_side]
    events = add_vp(state, points, "5.1.2", f"{pog.name_of(space)} taken by the {SIDE_NAMES[new_side]}")
    return events + update_boxes(state)


# ---------------------------------------------------------------------------------- the War Status Phase (6 E)

def war_status_phase(state: PogState, dice: Dice | None, scenario: str = "campaign") -> list[dict]:
    """6 E: the VP table's War Status Phase entries and the MO penalty (E.1), automatic victory
    (E.2), the armistice (E.3), and the scenario's last turn (R78). No entry rolls today: `dice`
    is taken so that one which does needs no other signature. E.4 is gone: SoE 16.1.2 checks
    commitment at the end of each action."""
    events = _table_entries(state) + offensive_penalty(state)
    vp = track(state, "vp")
    automatic = _data()["automatic"]
    if vp >= automatic["cp"]:
        return [*events, _game_over(state, "cp", vp, "automatic victory", "base 5.2.1")]
    if vp <= automatic["ap"]:
        return [*events, _game_over(state, "ap", vp, "automatic victory", "base 5.2.2")]
    if combined_war_status(state) >= ARMISTICE:
        return [*events, final_result(state, scenario, "armistice", "16.2.1")]
    if state.turn >= _data()["scenarios"][scenario]["last_turn"]:
        return [*events, final_result(state, scenario, "the last turn", "base 5.5.1")]
    return events


def _table_entries(state: PogState) -> list[dict]:
    events = []
    for entry in _data()["war_status_phase"]:
        if _holds(state, entry):
            events += add_vp(state, entry["vp"], entry["rule"], entry["id"])
    return events


def _holds(state: PogState, entry: dict) -> bool:
    if "event" in entry and entry["event"] not in state.events:
        return False
    if "season" in entry and state.season != entry["season"]:
        return False
    if "neutral" in entry and entry["neutral"] in state.at_war:
        return False
    return all(state.commitment[side] == level for side, level in entry.get("commitment", {}).items())


def end_after_action(state: PogState, scenario: str = "campaign") -> list[dict]:
    """5.4.1: the Limited War scenario ends once either side reaches Total War (R78: at the end of
    that action), judged on the VP level then."""
    if not _data()["scenarios"][scenario]["ends_at_total_war"] or "total" not in state.commitment.values():
        return []
    return [final_result(state, scenario, "Total War reached", "base 5.4.1")]


# ---------------------------------------------------------------------------------- the result

def levels(state: PogState, scenario: str) -> tuple[int, int]:
    """The VP at or above which the CP win, and at or below which the Allies win (5.3.4, 5.4.2, 5.5.2)."""
    facts = _data()["scenarios"][scenario]
    if BREST_LITOVSK in state.events and "brest_litovsk" in facts:
        facts = facts["brest_litovsk"]
    return facts["cp"], facts["ap"]


def final_result(state: PogState, scenario: str, why: str, rule: str) -> dict:
    """The game ends on the VP level, the bid added (5.6.1.1); an accepted peace is judged so too
    (R72). With a bid, a draw goes to the Allies (5.6.2)."""
    vp = track(state, "vp") + track(state, "vp_bid")
    cp_at, ap_at = levels(state, scenario)
    winner = "cp" if vp >= cp_at else "ap" if vp <= ap_at else "draw"
    if winner == "draw" and "vp_bid" in state.events:
        winner = _data()["tournament"]["draw_goes_to"]
    return _game_over(state, winner, vp, why, rule)


def _game_over(state: PogState, winner: str, vp: int, why: str, rule: str) -> dict:
    verdict = "a draw" if winner == "draw" else f"the {SIDE_NAMES[winner]} win"
    return {"kind": "game_over", "winner": winner, "vp": vp, "why": why,
            "result": f"{state.turn_label}: {why}, VP {vp}: {verdict}", "rule": rule}


def game_result(events: list[dict]) -> str | None:
    """The result line if these events ended the game."""
    return next((e["result"] for e in events if e["kind"] == "game_over"), None)
