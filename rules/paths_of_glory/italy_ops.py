"""Operations in Italy (19.2, an option; RULINGS R35, R44): how many German units, and how many
British and French units, may operate in Italy, that is move, attack or advance into its spaces.

Before its side reaches Total War a group may have at most two corps and no army in Italy; from
Total War on its corps are free and at most two armies. The count is the group's units standing in
Italy with those the order brings in (the attackers of the current combat count while it lasts). A
unit already in Italy adds nothing. A forced retreat is never refused, but the units it brings in
count: no other unit may join them while the count is over a limit (R35).

`entry_refusal(state, side, unit, space)` is why a move may not enter `space`, or None; `check_attack`
and `check_advance` raise IllegalOrder naming the unit and the limit. Callers ask only while the
option is chosen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pbem.errors import IllegalOrder

from .state import PogState

ITALY = "it"  # the nation whose spaces are "Italy" (R35)
# 19.2.1 limits German units; 19.2.2 British and French ones, counted together. The AUS, CND, PT and ANA
# corps (br_aus_corps, br_cnd_corps, br_pt_corps, br_ana_corps) are of nation br, so British here (R35).
LIMITED = {"cp": frozenset({"ge"}), "ap": frozenset({"br", "fr"})}  # US units, like every other nation's, are free
RULES = {"cp": "19.2.1", "ap": "19.2.2"}
GROUPS = {"cp": "German", "ap": "British or French"}
POWERS = {"cp": "the Central Powers", "ap": "the Allies"}
MOST = 2  # two corps before Total War, two armies from then on


def in_italy(state: PogState, space: str) -> bool:
    pog = state.map
    return space in pog.index and pog.nation[pog.index[space]] == ITALY


def limited(state: PogState, unit: str) -> bool:
    """Is this one of the units 19.2 counts: German; British (AUS, CND, PT and ANA included) or French?"""
    return state.nation(unit) in LIMITED[state.faction(unit)]


def standing(state: PogState, side: str) -> set[str]:
    """The side's counted units standing in Italy now, however they came (a retreat too)."""
    return {u for u, here in state.units.items()
            if state.faction(u) == side and limited(state, u) and in_italy(state, here.space)}


def refusal(state: PogState, side: str, counted: set[str], unit: str) -> str | None:
    """Why `unit` may not join the units `counted` as operating in Italy, or None. A unit already
    counted adds nothing; any other is refused while the count with it is over a limit, even when
    a forced retreat put it over (R35)."""
    if unit in counted or not limited(state, unit):
        return None
    joined = [state.unit_facts[u].type for u in (*counted, unit)]
    corps, armies = joined.count("corps"), joined.count("army")
    if state.commitment[side] == "total":
        over, limit = armies > MOST, "two armies at Total War"
    else:
        over, limit = corps > MOST or armies > 0, f"two corps and no army before {POWERS[side]} reach Total War"
    if not over:
        return None
    return (f"the {GROUPS[side]} units in Italy would be {_number(corps, 'corps', 'corps')} and "
            f"{_number(armies, 'army', 'armies')}, over the limit of {limit}")


def _number(count: int, one: str, many: str) -> str:
    return f"no {one}" if count == 0 else f"{count} {one if count == 1 else many}"


def entry_refusal(state: PogState, side: str, unit: str, space: str) -> str | None:
    """A move into `space`: the moving unit is counted from the first Italian space it enters."""
    if not in_italy(state, space):
        return None
    reason = refusal(state, side, standing(state, side), unit)
    return f"may not enter {state.map.name_of(space)}: {reason}" if reason else None


def check_attack(state: PogState, side: str, units: list[str], space: str) -> None:
    """An attack into Italy: its attackers join the units standing there, one by one."""
    if in_italy(state, space):
        _check_joining(state, side, standing(state, side), units, f"attack {state.map.name_of(space)}")


def check_advance(state: PogState, combat: Mapping, units: list[str], spaces: list[str]) -> None:
    """An advance into Italy: the attackers of this combat count if they attacked into Italy."""
    entered = [space for space in spaces if in_italy(state, space)]
    if not entered:
        return
    side = combat["side"]
    counted = standing(state, side)
    if in_italy(state, combat["space"]):
        counted |= {u for u in combat["attackers"] if limited(state, u) and state.units[u].space in state.map.index}
    _check_joining(state, side, counted, units, f"advance into {state.map.name_of(entered[0])}")


def _check_joining(state: PogState, side: str, counted: set[str], units: Iterable[str], doing: str) -> None:
    """The units join one by one, so that the refusal names the first one over a limit."""
    for i, unit in enumerate(units):
        reason = refusal(state, side, counted, unit)
        if reason:
            name = state.unit_facts[unit].name
            raise IllegalOrder(f"{unit} ({name}) may not {doing}: {reason}", rule=RULES[side], field=f"units[{i}]")
        if limited(state, unit):
            counted = counted | {unit}
