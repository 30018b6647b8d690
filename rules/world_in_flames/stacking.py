"""Stacking limits (seed 004, 2.3.1), each kind of unit on its own: land, aircraft and naval limits
are independent (Combinations). `check` refuses a hex's units over any of them with the rule.

Land: 2 units, doubled off the map; options 2, 3 and 6: a third (off the map, a fifth) if it is a
division, artillery or supply unit; option 5: two fortification markers besides. Aircraft not
flying a mission: the highest of minor port 2, major port or city 3, mountain, desert mountain or
swamp 0, any other 1; doubled off the map; then +1 with an HQ; option 7: +1 for each engineer
division (after doubling); option 8: one flying boat besides, in a coastal hex only, engineers no
help. Naval: in a friendly minor port 2 (option 9: 4), counting every 5 convoy points as a unit
(option 9: every 2, or a spare point); in a major port or a sea-box no limit; none where there is
no friendly port. No land unit or aircraft stands on a hex-dot (2.1.1).

Invading and paradropping land units have their own limit besides the defenders' (data,
11.14-11.15). That units which cannot co-operate (18.1) never share a hex is checked where units
move (moves.py), since it needs the powers' relations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from pbem.errors import IllegalOrder

from . import charts, kinds
from .world import World

RULE = "2.3.1"
EXTRA_LAND = {"division": "option_2", "engineer": "option_2", "artillery": "option_3", "supply": "option_6"}
NO_AIRCRAFT = ("mountain", "desert_mountain", "swamp")


class Stacked(NamedTuple):
    kind: str  # one of kinds.ALL: a land kind, "fort" (option 5), an air or a naval kind
    convoy_points: int = 0
    invading: bool = False  # a land unit invading or paradropping this impulse (11.14, 11.15)


def check(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool],
          friendly_port: bool = True) -> None:
    """IllegalOrder naming the limit broken, if these units cannot stand together in the hex."""
    for unit in units:
        kinds.check(unit.kind)
        if unit.convoy_points < 0:
            raise IllegalOrder("convoy points are 0 or more", rule=RULE, field="units")
    grounded = any(u.kind in kinds.LAND or u.kind in kinds.AIR for u in units)
    if grounded and (world.hexdot(where) or world.terrain[where] == "none"):
        raise IllegalOrder(f"{world.ids[where]} is a hex-dot: no land unit or aircraft stands there", rule="2.1.1",
                           field="units")
    for limit in LIMITS:
        _CHECKS[limit](world, where, units, options, friendly_port)


def broken(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool],
           friendly_port: bool = True) -> str | None:
    """The first limit these units break in the hex ("land", "fort", "aircraft", "naval"), or None:
    the kind of unit an overstacked hex's owner must destroy."""
    for limit in LIMITS:
        try:
            _CHECKS[limit](world, where, units, options, friendly_port)
        except IllegalOrder:
            return limit
    return None


def of_limit(kind: str) -> str:
    """The limit a kind of unit counts against."""
    return "land" if kind in kinds.LAND else "fort" if kind in kinds.MARKERS else "aircraft" if kind in kinds.AIR \
        else "naval"


def _forts(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool], _: bool) -> None:
    forts = sum(u.kind == "fort" for u in units)
    if forts and (not options.get("option_5") or forts > 2):
        raise IllegalOrder("at most 2 fortification markers a hex (option 5)", rule=RULE, field="units")


def land_limit(world: World, where: int) -> int:
    return 4 if world.offmap(where) else 2


def _land(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool], _: bool) -> None:
    """The defenders against the land limit; the invading and paradropping units, together,
    against their own limit besides it (data, 11.14-11.15)."""
    invading = sum(u.invading for u in units if u.kind in LAND_KINDS)
    limit = int(charts.fact("invasion_limit", "units"))
    if invading > limit:
        raise IllegalOrder(f"{invading} land units invading or paradropping into {world.ids[where]}: their limit is "
                           f"{limit} (11.14-11.15)", rule=RULE, field="units")
    kinds = [u.kind for u in units if u.kind in LAND_KINDS and not u.invading]
    limit = land_limit(world, where)
    extra = any(options.get(option) and kind == k for kind in kinds for k, option in EXTRA_LAND.items())
    if len(kinds) > limit + (1 if extra else 0):
        raise IllegalOrder(f"{len(kinds)} land units in {world.ids[where]}: the limit is {limit}"
                           + (" and a division, artillery or supply unit" if extra else ""), rule=RULE, field="units")


def aircraft_limit(world: World, where: int, kinds: Sequence[str], options: Mapping[str, bool]) -> int:
    """The limit for aircraft that are not flying boats."""
    found = [1 if world.terrain[where] not in NO_AIRCRAFT else 0]
    if where in world.minor_ports:
        found.append(2)
    if where in world.major_ports or where in world.cities:
        found.append(3)
    limit = max(found) * (2 if world.offmap(where) else 1)
    limit += "hq" in kinds
    if options.get("option_7"):
        limit += sum(kind == "engineer" for kind in kinds)
    return limit


def _aircraft(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool], _: bool) -> None:
    present = [u.kind for u in units]
    boats = present.count("flying_boat") if options.get("option_8") else 0  # else they are aircraft like any
    planes = present.count("aircraft") + present.count("flying_boat") - boats
    limit = aircraft_limit(world, where, present, options)
    if planes > limit:
        raise IllegalOrder(f"{planes} aircraft in {world.ids[where]}: the limit is {limit}", rule=RULE, field="units")
    if boats and (boats > 1 or where not in world.coastal):
        raise IllegalOrder("one flying boat a hex, in a coastal hex (option 8)", rule=RULE, field="units")


def naval_limit(world: World, where: int, options: Mapping[str, bool], friendly_port: bool) -> int | None:
    """Naval units a hex holds: None for no limit (a friendly major port), 0 where there is no
    friendly port."""
    if where in world.major_ports and friendly_port:
        return None
    if where in world.minor_ports and friendly_port:
        return 4 if options.get("option_9") else 2
    return 0


def _naval(world: World, where: int, units: Sequence[Stacked], options: Mapping[str, bool],
           friendly_port: bool) -> None:
    ships = sum(u.kind in kinds.SHIPS for u in units)
    points = sum(u.convoy_points for u in units if u.kind == "convoy")
    # every 5 convoy points a unit; option 9: every 2, and a spare point too
    count = ships + (-(-points // 2) if options.get("option_9") else points // 5)
    limit = naval_limit(world, where, options, friendly_port)
    if limit == 0 and (ships or points):
        raise IllegalOrder(f"no friendly port in {world.ids[where]}: no naval unit or convoy point stands there",
                           rule=RULE, field="units")
    if limit is not None and count > limit:
        raise IllegalOrder(f"{count} naval units in {world.ids[where]}: the limit is {limit}", rule=RULE,
                           field="units")


LAND_KINDS = kinds.LAND
LIMITS = ("land", "fort", "aircraft", "naval")
_CHECKS = {"land": _land, "fort": _forts, "aircraft": _aircraft, "naval": _naval}
