"""The `move` order. Rule 11 (movement) is not in the seed; RULINGS W16 says what stands in for
it: a land unit enters adjacent land hexes, each for its terrain's cost (the terrain chart, data),
and stops on
entering an enemy ZOC; a naval unit enters adjacent sea areas, each for 1, and may end in a
friendly port on the last. What 1-2.4 say is enforced: supply is checked before the move and a
unit out of supply ends face-down (a naval one with 1 point less, 2.4.3); no land unit enters a
hex-dot (2.1.1); stacking and co-operation hold where it ends (2.3.1)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import charts, kinds, position, readiness, stacking, supply
from . import world as worlds
from .situation import NEUTRAL, Situation
from .state import WifState

RULE = "11"


def move(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    unit_id = str(order["unit"])
    unit = position.own_unit(state, player, unit_id, RULE, "unit")
    if unit_id in state.moved:
        raise IllegalOrder(f"{unit_id} has already moved this impulse", rule=RULE, field="unit")
    path = list(order["path"])
    if not path:
        raise IllegalOrder("the path names no hex or sea area", rule=RULE, field="path")
    kind = position.facts(state, unit_id)["kind"]
    in_supply = readiness.is_supplied(state, options, unit_id)  # 2.4.1: checked before it moves
    left = unit.get("hex")
    if kind in kinds.NAVAL:
        _sail(state, unit_id, path, options, in_supply)
    elif kind in kinds.AIR and left:
        _rebase(state, unit_id, path, options)
    elif not left:
        raise IllegalOrder(f"{unit_id} is at sea: naval transport (11.4.5) is not played yet", rule="11.4.5",
                           field="unit")
    else:
        _march(state, unit_id, path, options)
    check_left(state, left, unit_id, options, "unit")
    if not in_supply and kind not in kinds.AIR:
        unit["face_up"] = False  # 2.4.3 (an aircraft out of supply may still rebase)
    state.moved.append(unit_id)
    where = unit.get("hex") or unit["sea"]
    state.last = {"text": f"{unit_id} moved to {where}" + ("" if in_supply else ", out of supply: face-down (2.4.3)"),
                  "unit": unit_id, "hex": unit.get("hex", "")}


def _march(state: WifState, unit_id: str, path: list[str], options: Mapping[str, bool]) -> None:
    world = worlds.for_options(options)
    unit = state.units[unit_id]
    allowance = int(position.facts(state, unit_id)["movement"])
    situation = position.situation(state, dict(options))
    side = situation.side_of(unit["country"])
    zone = supply.enemy_zoc(situation, side)
    here, spent = world.position[unit["hex"]], 0
    for step, text in enumerate(path):
        there = world.position[position.hex_id(world, text, "path")]
        if step and here in zone:
            raise IllegalOrder(f"{unit_id} stops on entering an enemy ZOC at {world.ids[here]}", rule="11.11",
                               field="path")
        _check_step(state, situation, unit_id, here, there)
        spent += charts.movement_cost(world.terrain[there])
        if spent > allowance:
            raise IllegalOrder(f"{unit_id} has {allowance} movement points; entering {world.ids[there]} "
                               f"({world.terrain[there]}) makes {spent}", rule=RULE, field="path")
        here = there
    check_stacking(state, situation, unit_id, world.ids[here], options, "path")
    unit["hex"] = world.ids[here]
    for text in path:
        take_control(state, situation, world.position[position.hex_id(world, text)], unit["country"])


def _rebase(state: WifState, unit_id: str, path: list[str], options: Mapping[str, bool]) -> None:
    """W16: an aircraft's move is a rebase mission, the one mission played (and the only one 2.4.3
    leaves an aircraft out of supply): over any adjacent hexes, land or sea, up to its movement,
    to a land hex of its side, within the aircraft limit there."""
    world = worlds.for_options(options)
    unit = state.units[unit_id]
    allowance = int(position.facts(state, unit_id)["movement"])
    if len(path) > allowance:
        raise IllegalOrder(f"{unit_id} flies {allowance} hexes, not {len(path)}", rule="14", field="path")
    situation = position.situation(state, dict(options))
    here = world.position[unit["hex"]]
    for text in path:
        there = world.position[position.hex_id(world, text, "path")]
        if there not in world.neighbours[here]:
            raise IllegalOrder(f"{world.ids[there]} is not adjacent to {world.ids[here]}", rule="2.1.1", field="path")
        here = there
    if not world.land(here) or situation.side_of(situation.controller(here)) != situation.side_of(unit["country"]):
        raise IllegalOrder(f"{unit_id} rebases to a land hex of its side, not {world.ids[here]}", rule="14",
                           field="path")
    check_stacking(state, situation, unit_id, world.ids[here], options, "path")
    unit["hex"] = world.ids[here]


def _check_step(state: WifState, situation: Situation, unit_id: str, here: int, there: int) -> None:
    world = situation.world
    country = state.units[unit_id]["country"]
    side = situation.side_of(country)
    if there not in world.neighbours[here]:
        raise IllegalOrder(f"{world.ids[there]} is not adjacent to {world.ids[here]}", rule="2.1.1", field="path")
    if not world.land(there):
        raise IllegalOrder(f"{world.ids[there]} is a hex-dot: no land unit enters it", rule="2.1.1", field="path")
    sides = world.between(here, there)
    if "all_sea" in sides and "straits" not in sides:
        raise IllegalOrder(f"the hexside from {world.ids[here]} to {world.ids[there]} is all sea", rule="2.1",
                           field="path")
    owner = situation.controller(there)
    if situation.side_of(owner) == NEUTRAL and owner != country:
        raise IllegalOrder(f"{world.ids[there]} is neutral {owner}'s", rule="9", field="path")
    enemies = situation.enemy_land_units(there, side)
    if enemies:
        raise IllegalOrder(f"{world.ids[there]} holds enemy units ({', '.join(enemies)}): attack or overrun them",
                           rule="11.12", field="path")


def check_stacking(state: WifState, situation: Situation, unit_id: str, hex_text: str,
                   options: Mapping[str, bool], field: str) -> None:
    """2.3.1: units that cannot co-operate never share a hex, and no order overstacks one
    (IllegalOrder naming the order's `field`)."""
    world = situation.world
    where = world.position[hex_text]
    mover = state.units[unit_id]["country"]
    partners = situation.co_operators(situation.major_of(mover))
    present = [name for name, u in state.units.items() if u.get("hex") == hex_text and name != unit_id]
    for name in present:
        if situation.major_of(state.units[name]["country"]) not in partners:
            raise IllegalOrder(f"{unit_id} cannot co-operate with {name} (18.1), so cannot stack with it in "
                               f"{hex_text}", rule=stacking.RULE, field=field)
    try:
        stacking.check(world, where, [stacked(state, name) for name in [*present, unit_id]], options,
                       friendly_port(situation, where, mover))
    except IllegalOrder as refused:
        raise IllegalOrder(refused.message, rule=refused.rule, field=field) from None


def check_left(state: WifState, hex_text: str | None, unit_id: str, options: Mapping[str, bool], field: str) -> None:
    """2.3.1: nor by leaving a hex (an HQ or an engineer raises its aircraft limit)."""
    if hex_text and overstacked(state, position.situation(state, dict(options)), hex_text, options):
        raise IllegalOrder(f"without {unit_id}, {hex_text} would be overstacked", rule=stacking.RULE, field=field)


def overstacked(state: WifState, situation: Situation, hex_text: str, options: Mapping[str, bool]) -> str | None:
    """The limit (land, fort, aircraft, naval) the units in a hex break, or None."""
    world = situation.world
    where = world.position[hex_text]
    present = [name for name, u in state.units.items() if u.get("hex") == hex_text]
    owner = state.units[present[0]]["country"] if present else ""
    return stacking.broken(world, where, [stacked(state, name) for name in present], options,
                           friendly_port(situation, where, owner))


def co_operating(state: WifState, situation: Situation, hex_text: str) -> bool:
    """Whether every unit in a hex co-operates with every other (2.3.1)."""
    majors = {situation.major_of(u["country"]) for u in state.units.values() if u.get("hex") == hex_text}
    return all(majors <= situation.co_operators(major) for major in majors)


def stacked(state: WifState, unit_id: str) -> stacking.Stacked:
    known = position.facts(state, unit_id)
    return stacking.Stacked(known["kind"], int(known.get("convoy_points", 0)))


def friendly_port(situation: Situation, hex_: int, country: str) -> bool:
    return situation.side_of(situation.controller(hex_)) == situation.side_of(country)


def take_control(state: WifState, situation: Situation, hex_: int, country: str) -> None:
    """A land unit entering a hex of the other side takes it for its major power (2.5 is not in the
    seed: W16); the hex's control history this turn keeps both sides (2.4.2)."""
    owner = situation.controller(hex_)
    side, before = situation.side_of(country), situation.side_of(owner)
    if before in (side, NEUTRAL):
        return
    hex_text = situation.world.ids[hex_]
    state.control[hex_text] = situation.major_of(country)
    state.held[hex_text] = sorted({*state.held.get(hex_text, []), before, side})


def _sail(state: WifState, unit_id: str, path: list[str], options: Mapping[str, bool], in_supply: bool) -> None:
    """Through adjacent sea areas, each for 1 point (1 less out of supply, 2.4.3), and perhaps into
    a friendly port on the last; no passage without its gate hex (11.4.4)."""
    world = worlds.for_options(options)
    unit = state.units[unit_id]
    situation = position.situation(state, dict(options))
    allowance = int(position.facts(state, unit_id)["movement"]) - (0 if in_supply else 1)
    seas = [text for text in path if text in world.seas]
    if len(seas) > allowance:
        raise IllegalOrder(f"{unit_id} may enter {allowance} sea areas, not {len(seas)}"
                           + ("" if in_supply else " (out of supply: 1 less, 2.4.3)"), rule=RULE, field="path")
    at = _start_seas(world, unit)
    for step, text in enumerate(path):
        if text not in world.seas:
            _into_port(state, situation, unit_id, text, step == len(path) - 1, options)
            return
        if text not in at:
            raise IllegalOrder(f"{text} is not adjacent to {unit.get('sea') or unit.get('hex')}", rule="2.1.2",
                               field="path")
        gate = world.passages.get(frozenset((unit.get("sea", ""), text)))
        if gate is not None and situation.side_of(situation.controller(gate)) != situation.side_of(unit["country"]):
            raise IllegalOrder(f"no passage from {unit['sea']} to {text} while the other side holds "
                               f"{world.ids[gate]}", rule="11.4.4", field="path")
        unit.pop("hex", None)
        unit["sea"] = text
        at = world.seas[text].neighbours


def _start_seas(world, unit: dict) -> frozenset[str]:
    if "sea" in unit:
        return world.seas[unit["sea"]].neighbours
    here = world.position[unit["hex"]]
    return frozenset(name for name, sea in world.seas.items() if here in sea.ports)


def _into_port(state: WifState, situation: Situation, unit_id: str, text: str, last: bool,
               options: Mapping[str, bool]) -> None:
    world = situation.world
    unit = state.units[unit_id]
    where = world.position[position.hex_id(world, text, "path")]
    if "sea" not in unit or where not in world.seas[unit["sea"]].ports:
        raise IllegalOrder(f"{text} is not a port on {unit.get('sea', 'the sea area it sails')}", rule=RULE,
                           field="path")
    if not last:
        raise IllegalOrder(f"a naval unit ends its move in a port: {text} must be the last place of the path",
                           rule=RULE, field="path")
    check_stacking(state, situation, unit_id, world.ids[where], options, "path")
    unit.pop("sea")
    unit["hex"] = world.ids[where]
