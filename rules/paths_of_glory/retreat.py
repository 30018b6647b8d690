"""Retreat and advance after combat (base 12.5, 12.7; 14.3.4; 15.1.1, 15.1.7.1; R01, R25)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import forts, losses, supply
from .combat import charts
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


def length(combat: Mapping) -> int:
    """base 12.5.2: one space for a difference of one in the loss numbers, else two."""
    return 1 if combat["attacker_fire"]["loss_number"] - combat["defender_fire"]["loss_number"] == 1 else 2


def to_retreat(state: PogState, combat: Mapping) -> list[str]:
    """The defending units still in the defending space that have not retreated yet."""
    return [u for u in combat["defenders"] if state.units[u].space == combat["space"]]


def may_stand(state: PogState, combat: Mapping) -> bool:
    """base 12.5.3: in a trench or such terrain, with more than one defending step left."""
    space = combat["space"]
    terrain = state.map.terrain[state.map.index[space]]
    staying = to_retreat(state, combat)
    steps = sum(1 if state.units[u].reduced else 2 for u in staying)
    return (terrain in charts()["terrain"]["stand"] or state.trenches.get(space, 0) > 0) and steps > 1


def stand(state: PogState, combat: dict, unit: str) -> list[dict]:
    """base 12.5.3: one more step loss, from any defending unit, cancels the whole retreat."""
    if not may_stand(state, combat):
        raise IllegalOrder("the defenders may cancel the retreat only in a trench, forest, desert, mountain or swamp "
                           "and with another step left", rule="base 12.5.3", field="unit")
    if unit not in to_retreat(state, combat):
        raise IllegalOrder(f"{unit} is not a defending unit in this combat", rule="base 12.5.3", field="unit")
    outcome = losses.simulate(state, to_retreat(state, combat), [unit])
    combat["log"].append(f"the defenders stand: {losses.summary(outcome)}")
    return losses.apply(state, outcome)


def first_spaces(state: PogState, combat: Mapping, unit: str) -> list[str]:
    """The spaces `unit` may retreat into from the defending space, best priority first."""
    return _ranked(state, combat, unit, combat["space"], exclude={combat["space"]})


def _ranked(state: PogState, combat: Mapping, unit: str, start: str, exclude: set[str]) -> list[str]:
    """base 12.5.5: open spaces next to `start`, keeping only the best of the priorities:
    friendly and supplied, friendly, enemy and supplied, enemy."""
    side = state.faction(unit)
    pog = state.map
    open_spaces = [pog.ids[j] for j in pog.neighbours[pog.index[start]]
                   if pog.ids[j] not in exclude and _may_enter(state, unit, start, pog.ids[j])]
    computed = supply.compute(state)
    rank = {s: (state.control.get(s) != side) * 2 + (not computed.space_supplied(side, s)) for s in open_spaces}
    best = min(rank.values(), default=None)
    return sorted((s for s in open_spaces if rank[s] == best), key=pog.index.__getitem__)


def _may_enter(state: PogState, unit: str, start: str, space: str) -> bool:
    side = state.faction(unit)
    occupant = state.occupant(space)
    return (may_cross(state, unit, start, space) and not state.neutral(space)
            and (occupant is None or occupant == side)
            and not (forts.enemy_fort(state, side, space) and state.forts.get(space) == "intact"))


def retreat(state: PogState, combat: dict, units: list, path: list) -> list[dict]:
    """base 12.5: move these defenders `length` spaces along `path`; units that cannot are eliminated."""
    moving = _retreating(state, combat, units)
    need = length(combat)
    spaces = [space_named(state, str(text), f"path[{i}]", "base 12.5.5") for i, text in enumerate(path)]
    for unit in moving:
        _check_path(state, combat, unit, spaces, need)
    end = spaces[-1]
    if len(state.units_in(end)) + len(moving) > STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(end)} would hold more than {STACKING_LIMIT} units",
                           rule="base 12.5.5", field="path")
    events: list[dict] = []
    for unit in moving:
        first = not any(state.faction(u) == state.faction(unit) for u in state.units_in(end))
        state.units[unit].space = end
        state.retreated.add(unit)
        events.append({"kind": "retreat", "unit": unit, "path": spaces, "rule": "base 12.5"})
        take_space(state, state.faction(unit), unit, end, first, events)
    combat.setdefault("retreat_paths", {}).update({u: spaces for u in moving})
    combat["log"].append(f"{', '.join(moving)} retreat to {state.map.name_of(end)}")
    return events


def _retreating(state: PogState, combat: Mapping, units: list) -> list[str]:
    left = to_retreat(state, combat)
    moving = [str(u) for u in units]
    for i, unit in enumerate(moving):
        if unit not in left:
            raise IllegalOrder(f"{unit} is not a defending unit waiting to retreat", rule="base 12.5.1",
                               field=f"units[{i}]")
    if not moving:
        raise IllegalOrder("name the retreating units", rule="base 12.5.1", field="units")
    return moving


def _check_path(state: PogState, combat: Mapping, unit: str, spaces: list[str], need: int) -> None:
    if not spaces or len(spaces) > need:
        raise IllegalOrder(f"the retreat is {need} space(s) long", rule="base 12.5.2", field="path")
    if spaces[0] not in first_spaces(state, combat, unit):
        raise IllegalOrder(f"{unit} may not retreat into {state.map.name_of(spaces[0])}: "
                           f"{_options(state, first_spaces(state, combat, unit))}", rule="base 12.5.5", field="path[0]")
    if need == 2:
        second = _ranked(state, combat, unit, spaces[0], exclude={combat["space"]})
        if len(spaces) == 1 and second:
            raise IllegalOrder(f"the retreat is 2 spaces long: {_options(state, second)}", rule="base 12.5.2",
                               field="path")
        if len(spaces) == 2 and spaces[1] not in second:
            raise IllegalOrder(f"{unit} may not retreat on into {state.map.name_of(spaces[1])}: "
                               f"{_options(state, second)}", rule="base 12.5.5", field="path[1]")


def _options(state: PogState, spaces: list[str]) -> str:
    return "it may go to " + ", ".join(state.map.name_of(s) for s in spaces) if spaces else "it has nowhere to go"


def trapped(state: PogState, combat: dict) -> list[dict]:
    """base 12.5.4, 12.4.7 (1): defenders with no space to retreat into are eliminated, armies for
    good; an army's replacement corps takes the army with it."""
    events = []
    for unit in to_retreat(state, combat):
        if first_spaces(state, combat, unit):
            continue
        army = next((a for a, c in combat.get("replacements", {}).items() if c == unit), None)
        events.append(losses.eliminate(state, unit, permanent=state.unit_facts[unit].type == "army",
                                       rule="base 12.5.4"))
        if army:
            state.removed.add(army)
        combat["log"].append(f"{unit} cannot retreat and is eliminated")
    return events


# ---------------------------------------------------------------------------------- advance

def advancers(state: PogState, combat: Mapping) -> list[str]:
    """base 12.7.1: surviving attackers at full strength, never the MN corps, not yet advanced."""
    done = set(combat.get("advanced", []))
    return [u for u in combat["attackers"] if state.units[u].space in state.map.index and not state.units[u].reduced
            and state.nation(u) != "mn" and u not in done and state.units[u].space != combat["space"]]


def may_advance(state: PogState, combat: Mapping) -> bool:
    """base 12.2.13: after a retreat or the defenders' elimination, with someone to advance."""
    cleared = not [u for u in combat["defenders"] if state.units[u].space == combat["space"]]
    fort_blocks = forts.enemy_fort(state, combat["side"], combat["space"]) and not combat.get("fort_hit") \
        and not combat["defenders"]  # 12.7.1: a fort alone is advanced into only once destroyed
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
        state.units[unit].space = end
        events.append({"kind": "advance", "unit": unit, "path": spaces, "rule": "base 12.7"})
        take_space(state, side, unit, end, first, events)
    combat.setdefault("advanced", []).extend(moving)
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
    vacated = {s for path in combat.get("retreat_paths", {}).values() for s in path[:-1]}
    two = length(combat) == 2 and bool(combat.get("retreat_paths"))
    if len(spaces) > 1:
        _check_onward(state, combat, moving, spaces, vacated if two else set())
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
    if forts.enemy_fort(state, combat["side"], target) and state.forts.get(target) == "intact":
        raise IllegalOrder(f"units entering the fort space {name(target)} advance no farther", rule="base 12.7.6",
                           field="path[1]")
    oos = set(combat.get("oos_attackers", []))
    for unit in moving:
        if unit in oos:
            raise IllegalOrder(f"{unit} is out of supply and advances one space at most", rule="14.3.4",
                               field="units")
        if not may_cross(state, unit, target, spaces[1]) or state.occupant(spaces[1]) == enemy(combat["side"]):
            raise IllegalOrder(f"{unit} may not advance into {name(spaces[1])}", rule="base 12.7.5", field="path[1]")
