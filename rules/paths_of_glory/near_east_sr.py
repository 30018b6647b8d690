"""Strategic redeployment limits by place (seed 000 13.1.12, 13.2; base 11.3.1; R95).

To or from the Near East map (13.2), once a turn each: one British corps (AUS included; CND, PT and
BEF not) by sea or through the Reserve Box, no other Allied corps through the Reserve Box (13.2.1);
one Russian corps, never an army, any way (13.2.2); one Central Powers corps other than Turkish
(the SN counts as Turkish here) any way (13.2.3). Within the Near East map nothing is limited
(13.2.4). An army not on the Near East army list never redeploys there (base 11.3.1).

The Reserve Box (13.1.12): no unit redeploys into it while it traces supply to a source its nation
may not use for it (German and Austro-Hungarian units to Sofia or Constantinople, Turks to Essen,
Breslau or Sofia, Bulgarians to Essen, Breslau or Constantinople, Russians and Romanians to
Belgrade). A unit in the Reserve Box traces no supply, so the limit is judged on the way in.
"""

from __future__ import annotations

from pbem.errors import IllegalOrder

from . import near_east, supply
from .state import PogState

NOT_BRITISH_HERE = {"br_cnd_corps", "br_pt_corps", "br_bef_corps"}  # 13.2.1
TURKISH_HERE = {"tu", "sn"}  # 13.2.3
BANNED_SOURCES = {"ge": {"sofia", "constantinople"}, "ah": {"sofia", "constantinople"},  # 13.1.12
                  "tu": {"essen", "breslau", "sofia"}, "bu": {"essen", "breslau", "constantinople"},
                  "ru": {"belgrade"}, "ro": {"belgrade"}}


def _on_near_east(state: PogState, space: str) -> bool:
    pog = state.map
    return space in pog.index and pog.map[pog.index[space]] == "neareast"


def _limit(state: PogState, side: str, unit: str, start: str, end: str, by_sea: bool) -> tuple[str, str] | None:
    """The once-a-turn group this crossing counts in, with its rule; None if it is not limited.
    Raises for a crossing never allowed."""
    facts, nation = state.unit_facts[unit], state.nation(unit)
    through_box = not (start in state.map.index and end in state.map.index)
    if side == "cp":
        return ("cp", "13.2.3") if facts.type == "corps" and nation not in TURKISH_HERE else None
    if nation == "ru":
        if facts.type == "army":
            raise IllegalOrder(f"{unit} is a Russian army: none redeploys to or from the Near East map",
                               rule="13.2.2", field="unit")
        return "ru", "13.2.2"
    if nation == "br" and unit not in NOT_BRITISH_HERE and facts.type == "corps":
        return ("br", "13.2.1") if by_sea or through_box else None
    if through_box:
        raise IllegalOrder(f"{unit} may not redeploy through the Reserve Box to or from the Near East map",
                           rule="13.2.1", field="unit")
    return None


def check(state: PogState, side: str, unit: str, start: str, end: str, by_sea: bool) -> None:
    """13.1.12, 13.2, base 11.3.1 for one redeployment, before it is made."""
    barred = near_east.army_barred(state, unit, end) if end in state.map.index else None
    if barred:
        raise IllegalOrder(f"{unit} may not redeploy into {barred[0]}", rule=barred[1], field="to")
    if end == f"{side}_reserve" and start in state.map.index:
        banned = BANNED_SOURCES.get(state.nation(unit), set()) & set(supply.compute(state).sources(unit))
        if banned:
            raise IllegalOrder(f"{unit} traces supply to {', '.join(sorted(banned))}: it may not redeploy into the "
                               "Reserve Box", rule="13.1.12", field="unit")
    if _on_near_east(state, start) == _on_near_east(state, end):
        return
    group = _limit(state, side, unit, start, end, by_sea)
    if group and state.tracks.get(f"sr_near_east_{group[0]}") == state.turn:
        raise IllegalOrder("one such corps a turn redeploys to or from the Near East map, and one has this turn",
                           rule=group[1], field="unit")


def count(state: PogState, side: str, unit: str, start: str, end: str, by_sea: bool) -> None:
    """Mark the turn's crossing for its group (after `check` allowed it)."""
    if _on_near_east(state, start) == _on_near_east(state, end):
        return
    group = _limit(state, side, unit, start, end, by_sea)
    if group:
        state.tracks[f"sr_near_east_{group[0]}"] = state.turn
