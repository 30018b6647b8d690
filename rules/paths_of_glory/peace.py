"""Foreign aid, foreign policy and peace terms (SoE 16.5).

A peace offer is two steps, as two players take them: `offer_peace` by the offering side (marker
`peace_offer_<side>` while it waits), then `answer_peace` by the other side. The Peace Terms Table
is data/peace.toml; RULINGS.md R70-R72 answer what the variant leaves open.
"""

from __future__ import annotations

from functools import cache

from pbem import datafile
from pbem.dice import Dice
from pbem.errors import IllegalOrder

from .replacements import active, may_record, rp_types
from .state import PogState, enemy
from .war import FOURTEEN_POINTS, PEACE_ACCEPTED, add_vp, add_war_status, combined_war_status, move_track, track

POLITICAL_TRACKS = ("russian_turmoil", "br_us_involvement")  # 16.5.2: the two the roller may choose
OFFER_RANGE = {"cp": (11, None), "ap": (None, 9)}  # 16.5.3.1: VP 11 or more for the CP, 9 or fewer for the Allies
NO_PEACE_SCENARIOS = ("introductory",)  # base 5.3.3


@cache
def _data() -> dict:
    return datafile.load(__package__, "peace.toml")


def peace_terms_line(state: PogState) -> list[int]:
    """The favour for each die on the line of the current combined war status (16.5.2, R71)."""
    line = _data()["lines"][0]
    for candidate in _data()["lines"]:
        if combined_war_status(state) >= candidate["from"]:
            line = candidate
    return list(line["favour"])


def event_terms_roll(state: PogState, side: str, dice: Dice, line_from: int) -> list[dict]:
    """R115 (The Sixtus Affair): a roll on the side's line of the Peace Terms Table that starts at
    `line_from`, whatever the combined war status; no offer, no war status, no armistice."""
    line = next(line for line in _data()["lines"] if line["from"] == line_from)
    die = dice.roll(6, f"{side.upper()} peace terms (event)", "R115")
    favour = line["favour"][die - 1]
    return [{"kind": "peace_terms_event", "side": side, "die": die, "favour": favour, "rule": "R115"},
            *add_vp(state, favour if side == "cp" else -favour, "R115", "the event's peace terms roll")]


def _roll(state: PogState, side: str, dice: Dice, purpose: str, rule: str) -> tuple[int, int]:
    die = dice.roll(6, f"{side.upper()} {purpose}", rule)
    return die, peace_terms_line(state)[die - 1]


# ---------------------------------------------------------------------------------- foreign aid (16.5.1)

def aid_options(state: PogState, side: str, *, mandated: bool) -> list[tuple[str, str]]:
    """16.5.1: the transfers of 1 RP open to the active side now, as (giver, receiver)."""
    if mandated:
        return []
    types = rp_types(side)
    givers = [rp for rp in types if active(state, rp) and track(state, f"rp_{rp}") >= 2]
    receivers = [rp for rp in types if may_record(state, rp)]
    return [(giver, receiver) for giver in givers for receiver in receivers if giver != receiver]


def foreign_aid(state: PogState, side: str, giver: str, receiver: str, *, mandated: bool) -> list[dict]:
    """16.5.1: in a voluntary Economic Action, 1 RP from one of the side's active nations to another
    that may record RPs; never a nation's last RP (R70)."""
    if (giver, receiver) not in aid_options(state, side, mandated=mandated):
        raise IllegalOrder(_aid_refusal(state, side, giver, receiver, mandated), rule="16.5.1", field="giver")
    state.tracks[f"rp_{giver}"] = track(state, f"rp_{giver}") - 1
    state.tracks[f"rp_{receiver}"] = track(state, f"rp_{receiver}") + 1
    return [{"kind": "foreign_aid", "from": giver, "to": receiver, "rp": 1, "rule": "16.5.1"}]


def _aid_refusal(state: PogState, side: str, giver: str, receiver: str, mandated: bool) -> str:
    if mandated:
        return "foreign aid is given in voluntary Economic Actions only"
    if giver not in rp_types(side) or receiver not in rp_types(side) or giver == receiver:
        return f"{side.upper()} cannot move RPs from {giver} to {receiver}"
    if not active(state, giver):
        return f"{giver} is not at war"
    if track(state, f"rp_{giver}") < 2:
        return f"{giver} has no RP to spare (a nation's last RP stays)"
    return f"{receiver} cannot record RPs"


# ---------------------------------------------------------------------------------- foreign policy (16.5.2)

def foreign_policy(state: PogState, side: str, chosen: str, dice: Dice) -> list[dict]:
    """16.5.2: roll on the Peace Terms line of the combined war status; a result in the roller's
    favour moves the chosen track his way (the CP's: Turmoil up, BR Entry / US Involvement down;
    the Allies' the other way), one against him the other way."""
    if chosen not in POLITICAL_TRACKS:
        raise IllegalOrder(f"foreign policy moves {' or '.join(POLITICAL_TRACKS)}, not {chosen!r}",
                           rule="16.5.2", field="track")
    die, favour = _roll(state, side, dice, "foreign policy", "16.5.2")
    towards_cp = favour if side == "cp" else -favour
    step = towards_cp if chosen == "russian_turmoil" else -towards_cp
    events = [{"kind": "foreign_policy", "side": side, "track": chosen, "die": die, "favour": favour, "rule": "16.5.2"}]
    return events + move_track(state, chosen, step, "16.5.2")


# ---------------------------------------------------------------------------------- peace terms (16.5.3)

def check_offer(state: PogState, side: str, scenario: str = "campaign") -> None:
    """May `side` offer peace terms now? (16.5.3.1, 16.5.3.3, base 5.3.3; R72: not the CP after 14 Points.)"""
    refusal = _offer_refusal(state, side, scenario)
    if refusal:
        raise IllegalOrder(refusal[1], rule=refusal[0], field="peace")


def _offer_refusal(state: PogState, side: str, scenario: str) -> tuple[str, str] | None:
    low, high = OFFER_RANGE[side]
    vp = track(state, "vp")
    if scenario in NO_PEACE_SCENARIOS:
        return "base 5.3.3", "no peace terms in this scenario"
    if PEACE_ACCEPTED in state.events:
        return "16.5.3.3", "peace terms have been accepted: no more offers"
    if any(f"peace_offer_{s}" in state.events for s in ("ap", "cp")):
        return "16.5.3", "an offer awaits its answer"
    if side == "cp" and FOURTEEN_POINTS in state.events:
        return "R72", "after 14 Points only the Allies may offer peace terms"
    if (low is not None and vp < low) or (high is not None and vp > high):
        return "16.5.3.1", f"VP {vp} is outside {side.upper()}'s range for peace terms"
    if track(state, f"peace_offer_turn_{side}") == state.turn:
        return "16.5.3.1", "one peace offer a turn"
    return None


def offer_peace(state: PogState, side: str, scenario: str = "campaign") -> list[dict]:
    """16.5.3.1: `side` offers peace terms; the other side answers with `answer_peace`."""
    check_offer(state, side, scenario)
    state.tracks[f"peace_offer_turn_{side}"] = state.turn
    state.events.add(f"peace_offer_{side}")
    return [{"kind": "peace_offer", "side": side, "vp": track(state, "vp"), "rule": "16.5.3.1"}]


def answer_peace(state: PogState, accepted: bool, dice: Dice | None) -> list[dict]:
    """The other side accepts (16.5.3.3: the combined war status goes to 40, the armistice comes at
    this turn's War Status Phase) or rejects (16.5.3.2: the offerer's war status +1, then his roll
    on the Peace Terms Table moves the VP)."""
    side = next((s for s in ("ap", "cp") if f"peace_offer_{s}" in state.events), None)
    if side is None:
        raise IllegalOrder("no peace offer awaits an answer", rule="16.5.3", field="accepted")
    state.events.discard(f"peace_offer_{side}")
    if accepted:
        state.events.add(PEACE_ACCEPTED)
        return [{"kind": "peace_accepted", "side": side, "by": enemy(side), "combined": combined_war_status(state),
                 "rule": "16.5.3.3"}]
    if dice is None:
        raise ValueError("rejected peace terms roll a die: call with the roll point's dice")
    events = add_war_status(state, side, 1, feeds_tracks=False, rule="16.5.3.2")
    die, favour = _roll(state, side, dice, "rejected peace terms", "16.5.3.2")
    events.append({"kind": "peace_rejected", "side": side, "die": die, "favour": favour, "rule": "16.5.3.2"})
    return events + add_vp(state, favour if side == "cp" else -favour, "16.5.3.2", "rejected peace terms")


def check_event_play(state: PogState) -> None:
    """16.5.3.3: once peace terms are accepted, no card is played as an event."""
    if PEACE_ACCEPTED in state.events:
        raise IllegalOrder("peace terms have been accepted: no card may be played as an event",
                           rule="16.5.3.3", field="card")
