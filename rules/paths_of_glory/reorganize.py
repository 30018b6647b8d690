"""Reorganisation in activated spaces (9.2.8-9.2.8.4; R104): one Army step exchanged for two
full-strength Corps of its nation, either way, or two reduced Corps for one full one.

An order `reorganize space=X` names one exchange in an activated space X, before any unit of the
action moves (9.2.8: "after all reorganizations have been completed, the Active Player may move"):
  split=ARMY corps=C1,C2   the army loses a step (full to reduced, reduced to the eliminated box)
                           and up to two corps of its nation enter X: from the eliminated box at
                           full strength, or from the Reserve Box as they stand there when the
                           eliminated box holds no more of that nation (9.2.8.1)
  merge=ARMY corps=C1,C2   two full-strength corps in X go to the eliminated box and the army gains
                           a step: a reduced army in X is flipped, or an army of the eliminated box
                           enters X reduced, where it could be placed as a reinforcement and then
                           redeployed (9.2.8.2)
  corps=C1,C2              two reduced corps in X: the first is flipped, the second eliminated
The units taken must be supplied (14.3.1), and British corps follow 12.4.4.3. A unit placed by a
reorganisation is not reorganised again in the action unless the charter's option
`enhanced_reorganisation` says so (9.2.8.3, 9.2.8.4). The space may not end over the stacking
limit: bring fewer corps instead (R104).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pbem.errors import IllegalOrder

from . import losses, replacements, sr
from .movement import STACKING_LIMIT, Activation, space_named
from .state import PogState

RULE = "9.2.8.1"


def reorganize(state: PogState, side: str, activation: Activation, action: dict, order: Mapping,
               supplied: Callable[[str], bool], enhanced: bool = False) -> list[dict]:
    """Carry out one exchange; IllegalOrder naming the rule (nothing changed) if it is not allowed."""
    space = _space(state, activation, order)
    if activation.moved - set(action.get("sr_units", ())):  # 9.3.3: the SR before them is no move here
        raise IllegalOrder("reorganisation comes before any unit of the action moves", rule="9.2.8", field="kind")
    corps = [str(name) for name in order.get("corps") or []]
    if len(set(corps)) != len(corps):
        raise IllegalOrder("name each corps once", rule=RULE, field="corps")
    used = [*corps, *(str(order[key]) for key in ("split", "merge") if order.get(key))]
    _check_units(state, side, space, used, action, supplied, enhanced)
    if order.get("split") and order.get("merge"):
        raise IllegalOrder("an exchange either splits an army step into corps or merges corps into one",
                           rule=RULE, field="merge")
    before = {unit: (state.units[unit].space, state.units[unit].reduced) for unit in used if unit in state.units}
    try:
        placed = _exchange(state, side, space, order, corps)
        _check_stacking(state, space)
    except IllegalOrder:
        for unit, (where, reduced) in before.items():  # nothing changed by a refused order
            state.units[unit].space, state.units[unit].reduced = where, reduced
        raise
    action.setdefault("reorganized", []).extend(placed)
    left = {unit for unit in used if unit in state.units and state.units[unit].space != space}
    activation.units -= left  # 9.2.5: a unit gone to a box is no longer a mover of the space
    if space in activation.move:
        activation.units.update(placed)  # 9.2.8.3: they move and attack normally
    return [{"kind": "reorganized", "space": space, "order": dict(order), "rule": RULE}]


def _exchange(state: PogState, side: str, space: str, order: Mapping, corps: list[str]) -> list[str]:
    if order.get("split"):
        return _split(state, side, space, str(order["split"]), corps)
    if order.get("merge"):
        return _merge(state, side, space, str(order["merge"]), corps)
    return _pair(state, side, space, corps)


def _space(state: PogState, activation: Activation, order: Mapping) -> str:
    space = space_named(state, str(order.get("space", "")), "space", "9.2.8")
    if space not in activation.move | activation.attack:
        raise IllegalOrder(f"{state.map.name_of(space)} is not activated in this action", rule="9.2.8",
                           field="space")
    return space


def _check_units(state: PogState, side: str, space: str, used: list[str], action: Mapping,
                 supplied: Callable[[str], bool], enhanced: bool) -> None:
    for unit in used:
        if unit not in state.unit_facts or state.faction(unit) != side:
            raise IllegalOrder(f"{unit!r} is not a unit of your side", rule=RULE, field="corps")
        here = unit in state.units and state.units[unit].space == space
        if here and not supplied(unit):
            raise IllegalOrder(f"{unit} is out of supply and is not reorganised", rule="14.3.1", field="corps")
        if here and unit in action.get("reorganized", []) and not enhanced:
            raise IllegalOrder(f"{unit} was placed by a reorganisation in this action", rule="9.2.8.3",
                               field="corps")


def _split(state: PogState, side: str, space: str, army: str, corps: list[str]) -> list[str]:
    """An army step becomes one or two corps (examples 1, 4 and 5)."""
    _check_army_here(state, space, army, "split")
    if not 1 <= len(corps) <= 2:
        raise IllegalOrder("an army step becomes one or two corps", rule=RULE, field="corps")
    for unit in corps:
        _check_corps_for(state, army, unit)
        _check_available(state, side, army, unit, corps)
    _lose_step(state, side, army)
    for unit in corps:
        where = state.units[unit]
        if where.space == f"{side}_eliminated":
            where.reduced = False  # from the eliminated box at full strength; from the reserve as it stands
        where.space = space
    return corps


def _merge(state: PogState, side: str, space: str, army: str, corps: list[str]) -> list[str]:
    """Two full-strength corps become an army step (examples 2 and 3)."""
    if state.unit_facts.get(army) is None or state.unit_facts[army].type != "army":
        raise IllegalOrder(f"{army!r} is not an army", rule=RULE, field="merge")
    if len(corps) != 2 or any(state.units.get(u) is None or state.units[u].space != space
                              or state.units[u].reduced for u in corps):
        raise IllegalOrder(f"an army step takes two full-strength corps in {state.map.name_of(space)}", rule=RULE,
                           field="corps")
    for unit in corps:
        _check_corps_for(state, army, unit)
    where = state.units.get(army)
    if where is not None and where.space == space and where.reduced:
        where.reduced = False  # example 3
        placed = []
    elif where is not None and where.space == f"{side}_eliminated" and army not in state.removed:
        _check_placeable(state, side, army, space)
        where.space, where.reduced = space, True  # example 2
        placed = [army]
    else:
        raise IllegalOrder(f"{army} is neither reduced in {state.map.name_of(space)} nor in the eliminated box",
                           rule=RULE, field="merge")
    for unit in corps:
        state.units[unit].space = f"{side}_eliminated"
    return placed


def _pair(state: PogState, side: str, space: str, corps: list[str]) -> list[str]:
    """Two reduced plain corps of one nation become one full-strength corps (R104)."""
    if len(corps) != 2 or any(state.units.get(u) is None or state.units[u].space != space
                              or not state.units[u].reduced or not _plain_corps(u) for u in corps) \
            or state.nation(corps[0]) != state.nation(corps[1]):
        raise IllegalOrder(f"name two reduced corps of one nation in {state.map.name_of(space)}, or split= or "
                           "merge= an army", rule="9.2.8.2", field="corps")
    state.units[corps[0]].reduced = False
    state.units[corps[1]].space = f"{side}_eliminated"
    state.units[corps[1]].reduced = False
    return []


def _plain_corps(unit: str) -> bool:
    """A numbered corps of its nation (`fr_corps_4`), not a piece of its own (AUS, BEF ...)."""
    nation, _, rest = unit.partition("_corps_")
    return bool(nation) and rest.isdigit()


def _check_army_here(state: PogState, space: str, army: str, field: str) -> None:
    where = state.units.get(army)
    if state.unit_facts.get(army) is None or state.unit_facts[army].type != "army" or where is None \
            or where.space != space:
        raise IllegalOrder(f"{army} is not an army in {state.map.name_of(space)}", rule=RULE, field=field)


def _may_stand_in(state: PogState, army: str, corps: str) -> bool:
    """Same nation, and the British limits of 12.4.4.3."""
    return state.unit_facts[corps].type == "corps" and state.nation(corps) == state.nation(army) \
        and corps not in losses.NEVER_REPLACING and (army == losses.BEF_ARMY) == (corps == losses.BEF_CORPS)


def _check_corps_for(state: PogState, army: str, corps: str) -> None:
    if not _may_stand_in(state, army, corps):
        raise IllegalOrder(f"{corps} may not stand in for {army} (its nation's corps, 12.4.4.3)", rule=RULE,
                           field="corps")


def _check_available(state: PogState, side: str, army: str, corps: str, named: list[str]) -> None:
    """From the eliminated box, or from the Reserve Box when the box holds no more of the nation
    than the corps the order takes from it."""
    where = state.units.get(corps)
    box, reserve = f"{side}_eliminated", f"{side}_reserve"
    if where is not None and where.space == box and corps not in state.removed:
        return
    if where is not None and where.space == reserve:
        waiting = [u for u, here in state.units.items() if here.space == box and u not in state.removed
                   and u not in named and state.unit_facts[u].type == "corps" and _may_stand_in(state, army, u)]
        if not waiting:
            return
        raise IllegalOrder(f"{', '.join(sorted(waiting))} in the eliminated box come before the Reserve Box",
                           rule=RULE, field="corps")
    raise IllegalOrder(f"{corps} is neither in the eliminated box nor in the Reserve Box", rule=RULE, field="corps")


def _lose_step(state: PogState, side: str, army: str) -> None:
    where = state.units[army]
    if where.reduced:
        where.space, where.reduced = f"{side}_eliminated", False  # example 1
    else:
        where.reduced = True  # examples 4 and 5


def _check_placeable(state: PogState, side: str, army: str, space: str) -> None:
    """9.2.8.2: placed as a reinforcement (9.5.3.3) and then redeployed to the space."""
    if state.nation(army) == "ru" and state.map.map[state.map.index[space]] == "neareast":
        raise IllegalOrder(f"{army} may not be placed on the Near East map", rule="9.2.8.2", field="merge")
    starts = replacements.army_placements(state, army)
    if not any(start == space or sr.route(state, side, army, start, space) for start in starts):
        raise IllegalOrder(f"{army} could not be placed as a reinforcement and redeployed to "
                           f"{state.map.name_of(space)}", rule="9.2.8.2", field="merge")


def _check_stacking(state: PogState, space: str) -> None:
    count = len(state.units_in(space))
    if count > STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(space)} would hold {count} units: bring fewer corps (the limit "
                           f"is {STACKING_LIMIT})", rule="R104", field="corps")
