"""Supply (seed 004, 2.4.2): which units trace a supply path to a primary supply source, directly or
through a chain of secondary sources.

Each tracing unit belongs to a class, its nationality: that fixes its major power, whom it
co-operates with, its primary and secondary sources and the hexes it may trace into. One search
per side serves every class at once (graphs.bounded_reach, a bit per class), from the primary
sources out:

- The search runs on two layers of the world: railway paths (a secondary source to the next
  source, free along a rail or road, and across straits between railway hexes) and basic paths
  (a unit to its source). A primary source starts both; a secondary source reached by a railway
  path within its length starts both again, at 0.
- Each layer holds the hexes and the sea areas. A path's leg says where its overseas part stands
  (once for the whole chain): not yet, at sea, landed at a port, or ended on a coast that is not a
  port (the tracing unit's or secondary source's own coastal hex, from which it goes no further).
- A step's cost is the hex traced into: its map's scale (an off-map hex 4), +1 for desert or
  desert mountain; the port an overseas path lands at counts 1; the sea nothing.
- The length allowed is the weather's where the unit or secondary source stands (8.2.2, data).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from itertools import pairwise

from ..common.graphs import Reach, bounded_reach
from . import charts, kinds
from .charts import path_length
from .situation import NEUTRAL, Situation, Unit
from .world import World
from .zoc import Unit as ZocUnit
from .zoc import zoc

RULE = "2.4.2"
RAIL, BASIC = 0, 1  # layers: railway paths, basic paths
LAND, AT_SEA, LANDED, BEACHED = range(4)  # a path's overseas leg
LEGS = 4
DESERTS = ("desert", "desert_mountain")
ICED = ("snow", "blizzard")  # 2.4.2: no overseas path out of or into an iced-in port in these
CLOSERS = ("carrier", "surface")  # with aircraft that have an air-to-sea factor
OPTION_11_SHIPS = ("convoy", "transport", "amphibious")
RIVAL_CHINESE = frozenset({"communist_china", "nationalist_china"})


@dataclass(frozen=True)
class Layout:
    """The world as one graph of 2 layers of hexes and sea areas: node = layer * size + place,
    where place < hexes is a hex and the rest are sea areas in `seas` order."""

    hexes: int
    seas: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        return self.hexes + len(self.seas)

    def node(self, layer: int, place: int) -> int:
        return layer * self.size + place


_LAYOUTS: dict[int, tuple[World, Layout]] = {}


def layout(world: World) -> Layout:
    """The world's supply graph, built once per world."""
    known = _LAYOUTS.get(id(world))
    if known is None or known[0] is not world:
        known = _LAYOUTS[id(world)] = (world, _build_layout(world))
    return known[1]


def _build_layout(world: World) -> Layout:
    """Land hexes join the land hexes next to them and the sea areas they are on the coast of; sea
    areas join their neighbours and their coasts. Hex-dots are no part of a supply path."""
    hexes, seas = len(world.ids), tuple(world.seas)
    sea_index = {name: hexes + k for k, name in enumerate(seas)}
    places: list[list[int]] = [[] for _ in range(hexes + len(seas))]
    for index in range(hexes):
        if world.land(index):
            places[index] = [near for near in world.neighbours[index] if world.land(near)]
    for name, sea in world.seas.items():
        places[sea_index[name]] = [sea_index[other] for other in sorted(sea.neighbours)] + sorted(sea.coast)
        for land in sea.coast:
            places[land].append(sea_index[name])
    size = len(places)
    neighbours = tuple(tuple(layer * size + near for near in places[place])
                       for layer in (RAIL, BASIC) for place in range(size))
    return Layout(hexes, seas, neighbours)


@dataclass(frozen=True)
class Status:
    """A unit's supply: in supply or not."""

    unit: str
    supplied: bool


def status(situation: Situation, units: Iterable[Unit] | None = None) -> dict[str, Status]:
    """The supply of each unit (all of them unless named), each side in one search."""
    wanted = [u for u in (situation.units if units is None else units)]
    found = {u.id: Status(u.id, True) for u in wanted if u.sea}  # at sea: always (2.4.1)
    on_land = [u for u in wanted if not u.sea and u.kind not in kinds.MARKERS]
    for side in sorted({situation.side_of(u.country) for u in on_land}):
        tracing = [u for u in on_land if situation.side_of(u.country) == side]
        classes = sorted({u.country for u in tracing})
        search = Search(situation, side, classes)
        reach = search.run()
        for unit in tracing:
            bit = 1 << classes.index(unit.country)
            within = path_length(situation.weather_at(unit.hex))
            found[unit.id] = Status(unit.id, bool(reach.bits(search.layout.node(BASIC, unit.hex), within) & bit))
    return found


def explain(situation: Situation, unit: Unit) -> list[dict]:
    """A unit's supply path for a reader: each place from the unit to its primary source (a hex,
    with its name if it has one, or a sea area of the overseas leg), what tracing into it counted,
    the kind of path (basic, railway); secondary sources marked. [] if it is out of supply."""
    search = Search(situation, situation.side_of(unit.country), [unit.country])
    path = search.run(track=True).path(search.layout.node(BASIC, unit.hex),
                                        path_length(situation.weather_at(unit.hex)))
    layout = search.layout
    steps = [_described(situation.world, layout, path[0], 0)] if path else []
    for (near, _), (far, far_leg) in pairwise(path):
        if near % layout.size == far % layout.size:  # a relay: a secondary source starts its own path
            steps[-1]["source"] = "secondary"
            continue
        taken = search.step(far, near, far_leg)
        steps.append(_described(situation.world, layout, (far, far_leg), taken[0] if taken else 0))
    if steps:
        steps[-1]["source"] = "primary"
    return steps


def _described(world: World, layout: Layout, state: tuple[int, int], counted: int) -> dict:
    node, _leg = state
    place = node % layout.size
    at_sea = place >= layout.hexes
    name = layout.seas[place - layout.hexes] if at_sea else world.ids[place]
    known = "" if at_sea else next((n for n, i in world.names.items() if i == place), "")
    return {"place": name, "name": known, "counts": counted, "path": "railway" if node < layout.size else "basic",
            "at_sea": at_sea, "source": ""}


def reaches(situation: Situation, unit: Unit, hex_: int) -> bool:
    """Whether a unit on land traces a basic supply path to a hex (2.4.3, option 13: to an HQ)."""
    search = Search(situation, situation.side_of(unit.country), [unit.country])
    within = path_length(situation.weather_at(unit.hex))
    return bool(search.basic_to(hex_).bits(search.layout.node(BASIC, unit.hex), within))


class Search:
    """One side's supply search for some classes (nationalities) of tracing unit."""

    def __init__(self, situation: Situation, side: str, classes: list[str]) -> None:
        self.situation = situation
        self.world = situation.world
        self.side = side
        self.classes = classes
        self.layout = layout(self.world)
        self.closed_seas = {name: closed_by_enemy(situation, name, side) for name in self.layout.seas}
        self.open_seas = {name: sea_open(situation, name, side) for name in self.layout.seas}

    def run(self, track: bool = False) -> Reach:
        seeds, relays = self._sources()
        return bounded_reach(self.layout.neighbours, seeds, self.limit(), self.step, LEGS, self._allowed(), relays,
                             restart=lambda leg: LAND if leg == LAND else LANDED, track=track)

    def basic_to(self, hex_: int) -> Reach:
        """Basic paths to one hex alone (option 13: to an HQ giving emergency supply)."""
        seeds = [(self.layout.node(BASIC, hex_), LAND, (1 << len(self.classes)) - 1)]
        return bounded_reach(self.layout.neighbours, seeds, self.limit(), self.step, LEGS, self._allowed())

    def limit(self) -> int:
        return max(path_length(w) for w in {*self.situation.weather.values(), "fine"})

    # ------------------------------------------------------------------------------- sources

    def _sources(self):
        seeds: list[tuple[int, int, int]] = []
        relays: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        secondary: dict[int, int] = {}
        for bit, country in enumerate(self.classes):
            for hex_ in sources(self.situation, country, primary=True):
                seeds += [(self.layout.node(layer, hex_), LAND, 1 << bit) for layer in (RAIL, BASIC)]
            for hex_ in sources(self.situation, country, primary=False):
                secondary[hex_] = secondary.get(hex_, 0) | 1 << bit
        for hex_, bits in secondary.items():
            within = path_length(self.situation.weather_at(hex_))
            relays[self.layout.node(RAIL, hex_)] = (bits, within, (self.layout.node(RAIL, hex_),
                                                                   self.layout.node(BASIC, hex_)))
        return seeds, relays

    # ------------------------------------------------------------------------------- where paths go

    def _allowed(self) -> list[int]:
        """Per node, the classes that may trace into it: every class into a sea area."""
        everyone = (1 << len(self.classes)) - 1
        blocked = self._enemy_zoc()
        per_hex = [0] * self.layout.hexes
        for hex_ in range(self.layout.hexes):
            if self.world.land(hex_) and hex_ not in blocked:
                per_hex[hex_] = sum(1 << bit for bit, country in enumerate(self.classes)
                                    if may_enter(self.situation, country, hex_))
        seas = [everyone] * len(self.layout.seas)
        return (per_hex + seas) * 2

    def _enemy_zoc(self) -> set[int]:
        """Hexes in an enemy ZOC that hold no friendly land unit (2.4.2)."""
        situation = self.situation
        friendly = {u.hex for u in situation.units if not u.sea and u.kind in kinds.LAND
                    and situation.side_of(u.country) == self.side}
        return enemy_zoc(situation, self.side) - friendly

    def step(self, here: int, there: int, leg: int) -> tuple[int, int] | None:
        """Tracing from `there` into `here` (the search runs from the source): its cost and leg."""
        size = self.layout.size
        layer, a, b = here // size, here % size, there % size
        hexes = self.layout.hexes
        if a < hexes and b < hexes:
            return self._overland(layer, a, b, leg)
        if a < hexes:  # from the sea into the port `a`: the landing port
            return self._landing(a, self.layout.seas[b - hexes], leg)
        sea = self.layout.seas[a - hexes]
        if b >= hexes:
            return self._at_sea(sea, self.layout.seas[b - hexes], leg)
        return self._embark(sea, b, leg)

    def _overland(self, layer: int, a: int, b: int, leg: int) -> tuple[int, int] | None:
        if leg in (AT_SEA, BEACHED):
            return None
        sides = self.world.between(a, b)
        if "alpine" in sides or ("all_sea" in sides and "straits" not in sides):
            return None
        if "lake" in sides and not frozen_lake(self.situation, a, b):
            return None
        if "straits" in sides and self.situation.options.get("option_12") and \
                self.closed_seas.get(self.world.straits_sea.get((a, b), ""), False):
            return None  # option 12: enemy units would stop an overseas path into the straits' sea area
        if layer == RAIL and ("rail" in sides or "road" in sides):
            return 0, leg
        if layer == RAIL and "straits" in sides and a in self.world.railway and b in self.world.railway:
            return 0, leg
        return count(self.world, a), leg

    def _landing(self, port: int, sea: str, leg: int) -> tuple[int, int] | None:
        if leg != LAND or port not in self.world.seas[sea].ports or not self.open_seas[sea] or self._iced(port):
            return None
        if self.situation.side_of(self.situation.controller(port)) != self.side:
            return None  # the overseas path ends at a friendly controlled port
        return 1, AT_SEA

    def _at_sea(self, sea: str, onward: str, leg: int) -> tuple[int, int] | None:
        if leg != AT_SEA or not self.open_seas[onward]:
            return None
        gate = self.world.passages.get(frozenset((sea, onward)))
        if gate is not None and self.situation.side_of(self.situation.controller(gate)) != self.side:
            return None  # 11.4.4: an SCS of this side could not pass
        return 0, AT_SEA

    def _embark(self, sea: str, land: int, leg: int) -> tuple[int, int] | None:
        if leg != AT_SEA or self._iced(land):
            return None
        return 0, LANDED if land in self.world.seas[sea].ports else BEACHED

    def _iced(self, hex_: int) -> bool:
        return hex_ in self.world.iced_in and self.situation.weather_at(hex_) in ICED



def enemy_zoc(situation: Situation, side: str) -> set[int]:
    """The hexes the other side's land units exert a ZOC into (2.2)."""
    zone: set[int] = set()
    for unit in situation.units:
        other = situation.side_of(unit.country)
        if unit.sea or unit.kind not in kinds.LAND or other in (side, NEUTRAL):
            continue
        stack = [u.kind for u in situation.units if u.hex == unit.hex and u is not unit and u.kind in kinds.LAND]
        zone |= zoc(situation.world, unit.hex, ZocUnit(unit.kind, unit.invading, unit.surprised), situation.options,
                    stack=stack, unfriendly=partial(_unfriendly, situation, side, unit.country),
                    frozen=partial(frozen_lake, situation))
    return zone


def frozen_lake(situation: Situation, a: int, b: int) -> bool:
    """A lake hexside is frozen when both its hexes have weather that freezes lakes (W10)."""
    freezing = charts.fact("frozen_lakes", "weathers")
    return situation.weather_at(a) in freezing and situation.weather_at(b) in freezing


def _unfriendly(situation: Situation, side: str, country: str, hex_: int) -> bool:
    """2.2: a hex of the other side's power that the unit's power is not at war with."""
    owner = situation.controller(hex_)
    return bool(owner) and situation.side_of(owner) == side and not situation.at_war_with(country, owner)


def count(world: World, hex_: int) -> int:
    """What tracing into a hex counts (2.4.2): its map's scale, 4 off the map, +1 in desert."""
    return world.scale[hex_] + (world.terrain[hex_] in DESERTS)


def sources(situation: Situation, country: str, primary: bool) -> list[int]:
    """The primary or secondary supply sources of a unit of `country` (2.4.2)."""
    world = situation.world
    major = situation.major_of(country)
    partners = situation.co_operators(major) if major else frozenset()
    side = situation.side_of(country)
    if primary:
        homes = _homes(situation, country, partners)
        found = [h for h in world.cities if world.country[h] in homes and _source_city(situation, h, country, side)]
        hqs = [u for u in situation.units if u.supply_expended and situation.options.get("option_6")]
    else:
        capitals = [world.countries[c].capital for c in world.countries
                    if (situation.controllers.get(c) == major and major) or situation.conquered.get(c) in partners]
        found = [h for h in capitals if h is not None and _source_city(situation, h, country, side)]
        hqs = list(situation.units)
    found += [u.hex for u in hqs if u.kind == "hq" and not u.sea and situation.major_of(u.country) in partners]
    return sorted(set(found))


def _homes(situation: Situation, country: str, partners: frozenset[str]) -> set[str]:
    """The unconquered home countries whose friendly cities are primary sources for the unit."""
    world = situation.world
    homes = {country}
    if world.countries.get(country) and world.countries[country].commonwealth:
        homes |= {c for c, facts in world.countries.items() if facts.commonwealth}
    homes |= {c for c, facts in world.countries.items() if partners.intersection(facts.home_of)}
    return {c for c in homes if c not in situation.conquered}


def _source_city(situation: Situation, hex_: int, country: str, side: str) -> bool:
    """A friendly city the other side has not held at any time this turn (2.4.2); a city of the
    communist Chinese is not friendly to the nationalists, nor the other way round."""
    owner = situation.controller(hex_)
    if situation.side_of(owner) != side or any(s != side for s in situation.held.get(hex_, ())):
        return False
    rivals = {situation.major_of(country), situation.major_of(owner)}
    return rivals != RIVAL_CHINESE


def may_enter(situation: Situation, country: str, hex_: int) -> bool:
    """Whether a unit of `country` may trace into a hex for who controls it (2.4.2): its own
    side's, and another major power's only with its consent; a neutral's never, but Vichy's and
    Sweden's; the USSR's and another Allied major power's not each other's until the USSR is at
    war with Germany."""
    owner = situation.controller(hex_)
    side = situation.side_of(country)
    if not owner:
        return False
    if owner == country:
        return True
    if situation.side_of(owner) == NEUTRAL:
        return owner in situation.open_neutrals
    if situation.side_of(owner) != side:
        return False  # an enemy's hex: another power's, that does not agree
    mine, theirs = situation.major_of(country), situation.major_of(owner)
    if mine == theirs:
        return True
    if "ussr" in (mine, theirs) and side == "allies" and not situation.at_war_with("ussr", "germany"):
        return False
    return (theirs, mine) in situation.consent


def sea_open(situation: Situation, sea: str, side: str) -> bool:
    """Whether a side may trace supply into a sea area (2.4.2): not closed by the enemy; option
    11: with a friendly convoy, TRS or AMPH there."""
    if closed_by_enemy(situation, sea, side):
        return False
    if situation.options.get("option_11"):
        return any(u.kind in OPTION_11_SHIPS and situation.side_of(u.country) == side
                   for u in situation.units if u.sea == sea)
    return True


def closed_by_enemy(situation: Situation, sea: str, side: str) -> bool:
    """An enemy CV, SCS or aircraft with an air-to-sea factor in the area, with no surface ship or
    such aircraft at war with it there (option 11: no convoy, TRS or AMPH at war with it)."""
    present = [u for u in situation.units if u.sea == sea]
    option_11 = bool(situation.options.get("option_11"))
    for enemy in present:
        if situation.side_of(enemy.country) in (side, NEUTRAL) or not _closes(enemy):
            continue
        if not any(_opens(u, option_11) and situation.at_war_with(u.country, enemy.country) for u in present):
            return True
    return False


def _closes(unit: Unit) -> bool:
    return unit.kind in CLOSERS or (unit.kind in kinds.AIR and unit.air_to_sea)


def _opens(unit: Unit, option_11: bool) -> bool:
    if option_11:
        return unit.kind in OPTION_11_SHIPS
    return (unit.kind in kinds.NAVAL and unit.kind != "submarine") or (unit.kind in kinds.AIR and unit.air_to_sea)
