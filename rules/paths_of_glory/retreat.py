"""Retreat and advance after combat (base 12.5, 12.7; 14.3.4; 15.1.1, 15.1.7.1; R01, R25)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import combat_cards, forts, losses, near_east, supply, trenches
from .combat import charts
from .movement import (
    STACKING_LIMIT,
    may_cross,
    space_named,
    take_space,
)
from .state import PogState, enemy


def length(combat: Mapping) -> int:
    """base 12.5.2: one space for a difference of one in the loss numbers, else two; one after a
    Withdrawal (12.6.4)."""
    if combat.get("withdrawal") or combat.get("retreat_before_combat"):
        return 1
    return 1 if combat["attacker_fire"]["loss_number"] - combat["defender_fire"]["loss_number"] == 1 else 2


def to_retreat(state: PogState, combat: Mapping) -> list[str]:
    """The defending units still in the defending space that have not retreated yet."""
    return [u for u in combat["defenders"] if state.units[u].space == combat["space"]]


def may_stand(state: PogState, combat: Mapping) -> bool:
    """base 12.5.3: before any unit retreats, in a trench (unless a card cancels its effects) or
    such terrain, with more than one defending step left; never after a Withdrawal (12.6.5) or
    before combat (Great Retreat)."""
    space = combat["space"]
    terrain = state.map.terrain[state.map.index[space]]
    staying = to_retreat(state, combat)
    steps = sum(1 if state.units[u].reduced else 2 for u in staying)
    trench = (trenches.owner(state, space) == enemy(combat["side"]) and not combat_cards.has(combat, "cancel_trench")) \
        or combat_cards.has(combat, "trench_level", "defender")  # Turk Determination: "for all purposes"
    return (not combat.get("retreat_paths") and steps > 1
            and not combat.get("withdrawal") and not combat.get("retreat_before_combat")
            and (terrain in charts()["terrain"]["stand"] or trench))


def stand(state: PogState, combat: dict, unit: str) -> list[dict]:
    """base 12.5.3: one more step loss, from any defending unit, cancels the whole retreat."""
    if not may_stand(state, combat):
        raise IllegalOrder("the defenders may cancel the retreat only before any of them retreats, in a trench, "
                           "forest, desert, mountain or swamp, and with another step left", rule="base 12.5.3",
                           field="unit")
    if unit not in to_retreat(state, combat):
        raise IllegalOrder(f"{unit} is not a defending unit in this combat", rule="base 12.5.3", field="unit")
    oos = combat.get("losses_first", {}).get("defender", [])
    outcome = losses.simulate(state, to_retreat(state, combat), [unit], oos)
    combat["log"].append(f"the defenders stand: {losses.summary(outcome)}")
    combat["must_retreat"] = False
    return losses.apply(state, outcome)


def forced_out(state: PogState, combat: dict) -> list[dict]:
    """base 12.5.4: the MN corps is eliminated when it must retreat."""
    events = []
    for unit in to_retreat(state, combat):
        if state.nation(unit) == "mn":
            events.append(losses.eliminate(state, unit, rule="base 12.5.4"))
            combat["log"].append(f"{unit} must retreat and is eliminated")
    return events


def first_spaces(state: PogState, combat: Mapping, unit: str) -> list[str]:
    """base 12.5.5: where `unit` may retreat from the defending space, of the best priority. In a
    two-space retreat it may pass overstacked through the first space, and a first space with a
    way on is taken before one without (a unit is never eliminated after one space if a
    two-space route exists)."""
    start = combat["space"]
    if length(combat) == 1:
        return _best(state, unit, _open(state, unit, start, start, room=True))
    firsts = _open(state, unit, start, start, room=False)
    onward = [first for first in firsts if second_spaces(state, combat, unit, first)]
    return _best(state, unit, onward or firsts)


def second_spaces(state: PogState, combat: Mapping, unit: str, first: str) -> list[str]:
    """base 12.5.5: the second space of a two-space retreat from `first`, of the best priority."""
    return _best(state, unit, _open(state, unit, first, combat["space"], room=True))


def _open(state: PogState, unit: str, start: str, defending: str, room: bool) -> list[str]:
    """Spaces next to `start` a retreating unit may enter: never the defending space, a space with
    enemy units or an unbesieged enemy fort; with `room`, only spaces not fully stacked."""
    pog = state.map
    found = []
    for j in pog.neighbours[pog.index[start]]:
        space = pog.ids[j]
        if space != defending and _may_enter(state, unit, start, space) and \
                (not room or len(state.units_in(space)) < STACKING_LIMIT):
            found.append(space)
    return found


def _best(state: PogState, unit: str, spaces: list[str]) -> list[str]:
    """base 12.5.5's priorities: friendly and supplied, friendly, enemy and supplied, enemy."""
    side = state.faction(unit)
    computed = supply.compute(state)
    rank = {s: (state.control.get(s) != side) * 2 + (not computed.space_supplied(side, s)) for s in spaces}
    best = min(rank.values(), default=None)
    return sorted((s for s in spaces if rank[s] == best), key=state.map.index.__getitem__)


def _may_enter(state: PogState, unit: str, start: str, space: str) -> bool:
    side = state.faction(unit)
    occupant = state.occupant(space)
    return (may_cross(state, unit, start, space) and not state.neutral(space)
            and near_east.army_barred(state, unit, space) is None
            and near_east.caucasus_refusal(state, unit, start, space) is None
            and (occupant is None or occupant == side)
            and not (forts.enemy_fort(state, side, space) and state.forts.get(space) == "intact"))


def retreat(state: PogState, combat: dict, units: list, path: list) -> list[dict]:
    """base 12.5: these defenders retreat along `path`; in a two-space retreat with no second
    space from the first, they go one space and are eliminated there (12.5.5, 12.7.4)."""
    moving = _retreating(state, combat, units)
    spaces = [space_named(state, str(text), f"path[{i}]", "base 12.5.5") for i, text in enumerate(path)]
    for unit in moving:
        _check_path(state, combat, unit, spaces)
    end = spaces[-1]
    if len(state.units_in(end)) + len(moving) > STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(end)} would hold more than {STACKING_LIMIT} units",
                           rule="base 12.5.5", field="path")
    events: list[dict] = []
    for unit in moving:
        events += _arrive(state, unit, end, spaces)
    combat.setdefault("retreat_paths", {}).update({u: spaces for u in moving})
    short = len(spaces) < length(combat)
    vacated = combat.setdefault("vacated", [])  # 12.7.3-12.7.4: where a two-space advance may go on
    vacated += [space for space in (spaces if short else spaces[:-1]) if space not in vacated]
    if short:
        combat["log"].append(f"{', '.join(moving)} retreat to {state.map.name_of(end)}, can go no farther and "
                             "are eliminated")
        events += [_eliminated(state, combat, unit, "base 12.5.5") for unit in moving]
    else:
        combat["log"].append(f"{', '.join(moving)} retreat to {state.map.name_of(end)}")
    return events


def _arrive(state: PogState, unit: str, end: str, spaces: list[str]) -> list[dict]:
    """The retreating unit stops: its side takes the space if it was the enemy's (12.5.5, R01, R03)."""
    side = state.faction(unit)
    first = not any(state.faction(u) == side for u in state.units_in(end))
    for a, b in zip([state.units[unit].space, *spaces[:-1]], spaces, strict=True):
        near_east.record_crossing(state, a, b)
    state.units[unit].space = end
    state.retreated.add(unit)
    events = [{"kind": "retreat", "unit": unit, "path": spaces, "rule": "base 12.5"}]
    if state.control.get(end) != side:
        take_space(state, side, unit, end, first, events)
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


def _check_path(state: PogState, combat: Mapping, unit: str, spaces: list[str]) -> None:
    need = length(combat)
    if not spaces or len(spaces) > need:
        raise IllegalOrder(f"the retreat is {need} space(s) long", rule="base 12.5.2", field="path")
    firsts = first_spaces(state, combat, unit)
    if spaces[0] not in firsts:
        raise IllegalOrder(f"{unit} may not retreat into {state.map.name_of(spaces[0])}: {_options(state, firsts)}",
                           rule="base 12.5.5", field="path[0]")
    if need == 2:
        second = second_spaces(state, combat, unit, spaces[0])
        if len(spaces) == 1 and second:
            raise IllegalOrder(f"the retreat is 2 spaces long: {_options(state, second)}", rule="base 12.5.2",
                               field="path")
        if len(spaces) == 2 and spaces[1] not in second:
            raise IllegalOrder(f"{unit} may not retreat on into {state.map.name_of(spaces[1])}: "
                               f"{_options(state, second)}", rule="base 12.5.5", field="path[1]")


def _options(state: PogState, spaces: list[str]) -> str:
    return "it may go to " + ", ".join(state.map.name_of(s) for s in spaces) if spaces else "it has nowhere to go"


def trapped(state: PogState, combat: dict) -> list[dict]:
    """base 12.5.4, 12.4.7 (1): defenders with no space to retreat into are eliminated."""
    events = []
    for unit in to_retreat(state, combat):
        if not first_spaces(state, combat, unit):
            events.append(_eliminated(state, combat, unit, "base 12.5.4"))
            combat["log"].append(f"{unit} cannot retreat and is eliminated")
    return events


def _eliminated(state: PogState, combat: Mapping, unit: str, rule: str) -> dict:
    """A unit that could not complete its retreat: an army for good (12.4.7 (1)); a corps that
    has just replaced an army takes that army with it for good (12.5.4)."""
    army = next((a for a, c in combat.get("replacements", {}).items() if c == unit), None)
    if army:
        state.removed.add(army)
    return losses.eliminate(state, unit, permanent=state.unit_facts[unit].type == "army", rule=rule)
