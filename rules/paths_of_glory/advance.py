"""Advance after combat (base 12.7; 14.3.4; 15.1.1, 15.1.7.1; 19.2; R01, R35): the attackers
enter the spaces the defenders left."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import forts, italy_ops, near_east
from .combat import charts, crosses_barred
from .movement import (
    CHANNEL_PORTS,
    RACE_TO_THE_SEA,
    RACE_TO_THE_SEA_WAR_STATUS,
    STACKING_LIMIT,
    may_cross,
    space_named,
    take_space,
)
from .state import PogState, enemy


def advancers(state: PogState, combat: Mapping) -> list[str]:
    """base 12.7.1: surviving attackers at full strength (reduced ones too against a space that held
    no enemy unit, 15.1.7.1 note), never the MN corps nor a corps that replaced an attacking army,
    not yet advanced."""
    done = {*combat.get("advanced", []), *combat.get("replacements", {}).values()}
    reduced_may = combat.get("fort_only", False)
    return [u for u in combat["attackers"] if state.units[u].space in state.map.index
            and (reduced_may or not state.units[u].reduced) and state.nation(u) != "mn" and u not in done
            and state.units[u].space != combat["space"]]


def may_advance(state: PogState, combat: Mapping) -> bool:
    """base 12.2.13: after a retreat or the defenders' elimination, with someone to advance."""
    cleared = not [u for u in combat["defenders"] if state.units[u].space == combat["space"]]
    fort_blocks = forts.enemy_fort(state, combat["side"], combat["space"]) and not combat.get("fort_hit") \
        and combat.get("fort_only")  # 12.7.1: a fort alone is advanced into only once destroyed
    return cleared and not fort_blocks and bool(advancers(state, combat))


def advance(state: PogState, combat: dict, units: list, path: list) -> list[dict]:
    """base 12.7: these full-strength attackers enter the vacated spaces along `path`."""
    side, target = combat["side"], combat["space"]
    moving = [str(u) for u in units]
    eligible = advancers(state, combat)
    for i, unit in enumerate(moving):
        if unit not in eligible:
            raise IllegalOrder(f"{unit} may not advance: only full-strength attackers that have not advanced",
                               rule="base 12.7.1", field=f"units[{i}]")
    if not moving:
        raise IllegalOrder("name the advancing units", rule="base 12.7.1", field="units")
    spaces = [space_named(state, str(text), f"path[{i}]", "base 12.7") for i, text in enumerate(path)]
    _check_advance(state, combat, moving, spaces)
    end = spaces[-1]
    events: list[dict] = []
    for unit in moving:
        first = not any(state.faction(u) == side for u in state.units_in(end))
        for a, b in zip([state.units[unit].space, *spaces[:-1]], spaces, strict=True):
            near_east.record_crossing(state, a, b)
        state.units[unit].space = end
        events.append({"kind": "advance", "unit": unit, "path": spaces, "rule": "base 12.7"})
        if state.control.get(end) != side:  # 12.7.9, R01, R03: only an enemy space changes hands
            take_space(state, side, unit, end, first, events)
    combat.setdefault("advanced", []).extend(moving)
    combat["entered"] = combat.get("entered", False) or target in spaces
    if target in spaces and combat.get("fort_hit"):
        events += forts.destroy_fort(state, target, "15.1.7.1")
        combat["fort_hit"] = False
    for space in dict.fromkeys([target, end]):
        events += forts.update_siege(state, space)
    combat["log"].append(f"{', '.join(moving)} advance to {state.map.name_of(end)}")
    return events


def _check_advance(state: PogState, combat: Mapping, moving: list[str], spaces: list[str]) -> None:
    side, target = combat["side"], combat["space"]
    name = state.map.name_of
    if not spaces or spaces[0] != target:
        raise IllegalOrder(f"an advance enters the defending space {name(target)} first", rule="base 12.7.2",
                           field="path[0]")
    for unit in moving:
        _check_steps(state, combat, unit, spaces)
    if combat.get("italy_19_2"):  # the option, recorded in the combat when it was designated (R35)
        italy_ops.check_advance(state, combat, moving, spaces)
    if len(spaces) > 1:
        _check_onward(state, combat, moving, spaces, set(combat.get("vacated", [])))
    end = spaces[-1]
    if len(state.units_in(end)) + len(moving) > STACKING_LIMIT:
        raise IllegalOrder(f"{name(end)} would hold more than {STACKING_LIMIT} units", rule="base 10.1.1", field="path")
    if end in CHANNEL_PORTS and side == "cp" and end != target and RACE_TO_THE_SEA not in state.events \
            and state.war_status.get("cp", 0) < RACE_TO_THE_SEA_WAR_STATUS:
        raise IllegalOrder(f"the CP may advance into {name(end)} only as the defending space before Race to the Sea",
                           rule="base 12.7.7", field="path")
    if forts.enemy_fort(state, side, end) and state.forts.get(end) == "intact" and not combat.get("fort_hit"):
        staying = [*forts.besiegers(state, end), *moving]
        if not forts.meets_siege(state, end, staying):
            raise IllegalOrder(f"advancing into the fort space {name(end)} needs enough units to besiege it",
                               rule="15.1.1", field="units")


def _check_steps(state: PogState, combat: Mapping, unit: str, spaces: list[str]) -> None:
    """19.1.1, base 11.3.1-11.3.2: connections and Near East spaces closed to this advance."""
    for a, b in zip([state.units[unit].space, *spaces[:-1]], spaces, strict=True):
        if crosses_barred(a, b, combat.get("barred", [])):
            raise IllegalOrder(f"{unit} may not advance across Trent–Verona", rule="19.1.1", field="path")
        barred = near_east.army_barred(state, unit, b)
        if barred:
            raise IllegalOrder(f"{unit} may not advance into {barred[0]}", rule=barred[1], field="path")
        crossing = near_east.caucasus_refusal(state, unit, a, b)
        if crossing:
            raise IllegalOrder(crossing, rule="base 11.3.2", field="path")


def _check_onward(state: PogState, combat: Mapping, moving: list[str], spaces: list[str], vacated: set[str]) -> None:
    name = state.map.name_of
    target = combat["space"]
    if len(spaces) > 2 or spaces[1] not in vacated:
        raise IllegalOrder("an advance goes on past the defending space only into a space the defenders vacated in a "
                           "two-space retreat", rule="base 12.7.3", field="path[1]")
    terrain = state.map.terrain[state.map.index[target]]
    if terrain in charts()["terrain"]["halts_advance"]:
        raise IllegalOrder(f"the advance stops on entering {name(target)} ({terrain})", rule="base 12.7.3",
                           field="path[1]")
    if forts.enemy_fort(state, combat["side"], target) and state.forts.get(target) == "intact" \
            and not combat.get("fort_hit"):  # a fort hit in this combat falls to the first unit in (15.1.7.1)
        raise IllegalOrder(f"units entering the fort space {name(target)} advance no farther", rule="base 12.7.6",
                           field="path[1]")
    oos = set(combat.get("oos_attackers", []))
    for unit in moving:
        if unit in oos:
            raise IllegalOrder(f"{unit} is out of supply and advances one space at most", rule="14.3.4",
                               field="units")
        if not may_cross(state, unit, target, spaces[1]) or state.occupant(spaces[1]) == enemy(combat["side"]):
            raise IllegalOrder(f"{unit} may not advance into {name(spaces[1])}", rule="base 12.7.5", field="path[1]")
