"""Zones of control (seed 004, 2.2): the hexes a land unit's ZOC reaches. Its own hex and the
adjacent ones, but:
- naval and aircraft units have none (not even in their own hex); units that invade or paradrop
  lose theirs for now; option 6: supply units have none; option 20: a surprised unit has none;
- partisans, and under options 2 and 3 divisions and artillery, only in their own hex;
- none into or out of off-map hexes, into hex-dots, across alpine, all-sea, straits or lake
  hexsides (a frozen lake excepted), nor into a hex controlled by a major power or minor country
  of the other side the unit is not at war with;
- option 4: into an adjacent hex on a map counting 2 (Asian, Pacific; whatever map the unit is
  on) only from a hex holding an HQ or two corps or armies that are not partisans, the unit
  itself counted."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from . import kinds
from .world import World

RULE = "2.2"
NO_ZOC = (*kinds.AIR, *kinds.NAVAL)
# kind -> the option that makes its ZOC its own hex only (None: always); engineers are divisions (W3)
OWN_HEX_ONLY = {"partisan": None, "division": "option_2", "engineer": "option_2", "artillery": "option_3"}
BLOCKING_SIDES = ("alpine", "all_sea", "straits")


class Unit(NamedTuple):
    kind: str  # one of kinds.ALL
    invading: bool = False  # invaded or paradropped this turn (11.14, 11.15)
    surprised: bool = False  # option 20


def zoc(world: World, where: int, unit: Unit, options: Mapping[str, bool], *,
        stack: Iterable[str] = (), unfriendly: Callable[[int], bool] = lambda hex_: False,
        frozen: Callable[[int, int], bool] = lambda a, b: False) -> set[int]:
    """The hexes `unit` in hex `where` exerts its ZOC into. `stack`: the kinds of the other land
    units in its hex (option 4); `unfriendly(hex)`: whether the hex is controlled by a power of the
    other side the unit is not at war with; `frozen(a, b)`: the lake between hexes a and b is
    frozen."""
    kinds.check(unit.kind)
    if _none(unit, options):
        return set()
    if _own_hex_only(unit, options) or world.offmap(where):
        return {where}
    weak = bool(options.get("option_4")) and not _strong([unit.kind, *stack])
    reached = {where}
    for there in world.neighbours[where]:
        if world.offmap(there) or world.hexdot(there) or unfriendly(there):
            continue
        if weak and world.scale[there] == 2:  # option 4: into a hex on the Asian or Pacific map
            continue
        sides = world.between(where, there)
        if any(kind in sides for kind in BLOCKING_SIDES) or ("lake" in sides and not frozen(where, there)):
            continue
        reached.add(there)
    return reached


def _none(unit: Unit, options: Mapping[str, bool]) -> bool:
    return (unit.kind in NO_ZOC or unit.invading or (unit.kind == "supply" and bool(options.get("option_6")))
            or (unit.surprised and bool(options.get("option_20"))))


def _own_hex_only(unit: Unit, options: Mapping[str, bool]) -> bool:
    if unit.kind not in OWN_HEX_ONLY:
        return False
    option = OWN_HEX_ONLY[unit.kind]
    return option is None or bool(options.get(option))


def _strong(stack: Iterable[str]) -> bool:
    """Option 4: an HQ, or two corps or armies that are not partisans."""
    kinds = list(stack)
    return "hq" in kinds or sum(kind in ("corps", "army") for kind in kinds) >= 2
