"""The world's hexes (data/world.toml, a sample of our own) compiled once into integer arrays:
each hex's terrain, map, what it counts (2.4.2: 1 European, 2 Asian, 4 off-map), hex-dots, and who
is adjacent to whom (2.1.1): across a hexside; across the numbered join of the East European and
Asian maps, through the Asian hexside whose features apply; and off-map hexes with the on-map
hexes their lines reach, the on-map edge hexes (and large hex-dots) next to those, and the
off-map hexes their lines join. Hexside features are kept per pair of adjacent hexes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from itertools import pairwise
from typing import NamedTuple

from pbem import datafile
from pbem.errors import UsageError

from ..common.hexes import DIRECTIONS, Grid

OFFMAP_SCALE = 4  # 2.4.2: an off-map hex counts 4
HEXDOTS = ("hexdot", "large_hexdot")


class Country(NamedTuple):
    name: str
    capital: int | None
    home_of: tuple[str, ...]  # the major powers whose home country it is (China: both), () for a minor
    commonwealth: bool  # a Commonwealth home country (2.4.2)
    owner: str  # the power controlling it at the start


class Sea(NamedTuple):
    name: str
    neighbours: frozenset[str]  # sea areas adjacent by border, blue line or a map's statement (2.1.2)
    coast: frozenset[int]  # land hexes on it, its ports among them
    ports: frozenset[int]


class World(NamedTuple):
    ids: tuple[str, ...]  # "map:col-row" on a map (no comma: orders list hexes with commas), else the off-map id
    terrain: tuple[str, ...]
    map_of: tuple[str, ...]  # "" for an off-map hex that is on no map
    scale: tuple[int, ...]
    off_map: tuple[bool, ...]
    zone: tuple[str, ...]  # weather zone (8.2)
    country: tuple[str, ...]  # "" for hex-dots
    neighbours: tuple[tuple[int, ...], ...]
    features: dict[tuple[int, int], frozenset[str]]  # hexside features between adjacent hexes
    names: dict[str, int]
    position: dict[str, int]  # id -> index
    cities: frozenset[int]
    major_ports: frozenset[int]
    minor_ports: frozenset[int]
    coastal: frozenset[int]  # land hexes on a sea or lake coast (2.3.1)
    iced_in: frozenset[int]  # ports iced in in snow and blizzard (8.2.10)
    railway: frozenset[int]  # hexes a railway runs through
    countries: dict[str, Country]
    seas: dict[str, Sea]
    sea_of: dict[int, str]  # hex-dot -> its sea area
    passages: dict[frozenset[str], int]  # pair of sea areas -> the hex an SCS needs to pass (11.4.4)
    straits_sea: dict[tuple[int, int], str]  # a straits hexside's sea area (option 12)
    aliases: dict[str, int]  # ids of cells that are another map's hex (AfA option 1's shared edge)

    def offmap(self, index: int) -> bool:
        return self.off_map[index]

    def hexdot(self, index: int) -> bool:
        return self.terrain[index] in HEXDOTS

    def land(self, index: int) -> bool:
        return self.terrain[index] not in (*HEXDOTS, "none")

    def between(self, a: int, b: int) -> frozenset[str]:
        return self.features.get((a, b), frozenset())



class _Hexes:
    """The hexes as they are compiled, before the world is frozen."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.terrain: list[str] = []
        self.map_of: list[str] = []
        self.scale: list[int] = []
        self.off_map: list[bool] = []
        self.zone: list[str] = []
        self.region: list[str] = []  # a country's or a sea's code, "-" for no hex

    def add(self, hex_id: str, terrain: str, map_id: str, scale: int, off_map: bool, zone: str,
            region: str) -> None:
        self.ids.append(hex_id)
        self.terrain.append(terrain)
        self.map_of.append(map_id)
        self.scale.append(scale)
        self.off_map.append(off_map)
        self.zone.append(zone)
        self.region.append(region)


def load(options: frozenset[str] = frozenset()) -> World:
    """The sample world of data/world.toml with the maps these option 1 parts bring in, compiled
    once for each set of them."""
    return _compiled(options)


@cache
def _compiled(options: frozenset[str]) -> World:
    return compile_world(datafile.load(__package__, "world.toml"), options)


def for_options(options: Mapping[str, object]) -> World:
    """The world a game's options play on (option 1's maps and joins, 2.1.1, 2.1.4): one world for
    every set of the options the world's data names."""
    return load(frozenset(name for name, value in options.items() if value is True and name in _named_options()))


@cache
def _named_options() -> frozenset[str]:
    data = datafile.load(__package__, "world.toml")
    return frozenset(facts[key] for table in (data["maps"].values(), data.get("joins", []))
                     for facts in table for key in ("option", "unless") if key in facts)


def compile_world(data: dict, options: frozenset[str] = frozenset()) -> World:
    """A world from the tables of a world.toml (the sample's, or a generated one). A map or a
    join with an `option` is in play only under that option; a map with `unless` (the minimap:
    AiF option 1's maps replace it) only without it. A map out of play keeps its hex ids, every
    hex of it "none", so that hex ids name the same hex in every world."""
    codes = _region_codes(data)
    hexes = _Hexes()
    grids = {name: _add_map(hexes, name, facts, data["terrain"], _in_play(facts, options))
             for name, facts in data["maps"].items()}
    for name, facts in data.get("offmap", {}).items():
        country = facts.get("country", "")
        code = data["countries"][country]["code"] if country in data.get("countries", {}) else "?"
        hexes.add(name, facts.get("terrain", "clear"), "", OFFMAP_SCALE, True, facts.get("zone", ""), code)
    position = {hex_id: i for i, hex_id in enumerate(hexes.ids)}
    links: dict[int, set[int]] = {i: set() for i in range(len(hexes.ids))}
    features: dict[tuple[int, int], set[str]] = {}
    _grid_links(grids, hexes.terrain, links)
    straits: dict[tuple[int, int], str] = {}
    edges = _hexsides(data, grids, position, features, straits)
    aliases = _joins(data, position, links, features, edges, grids, hexes.terrain, options)
    _offmap(data, grids, position, hexes.terrain, links, features)
    for link in data.get("links", []):
        a, b = (_hex(position, text) for text in link["hexes"])
        links[a].add(b)
        links[b].add(a)
    _edge_dots(data, grids, hexes, links, options)
    names = {name.lower(): _hex(position, hex_id) for name, hex_id in data.get("names", {}).items()}
    for kind in ("rails", "roads"):
        _lines(data.get(kind, []), kind[:-1], position, links, features)
    return _freeze(data, hexes, codes, position, names, links, features, straits, aliases)


def _freeze(data, hexes: _Hexes, codes, position, names, links, features, straits, aliases) -> World:
    places = {key: frozenset(i for i in (_hex(position, text) for text in data.get("places", {}).get(key, []))
                             if hexes.terrain[i] != "none")  # none: on a map out of play
              for key in ("cities", "major_ports", "minor_ports", "coastal", "iced_in")}
    terrain = hexes.terrain
    on_coast = {i for i in range(len(terrain)) if terrain[i] not in (*HEXDOTS, "none")
                and any(terrain[j] in HEXDOTS for j in links[i])}
    country, sea_of = _regions(hexes, codes)
    pairs = {pair: frozenset(kinds) for pair, kinds in features.items()}
    railway = frozenset(i for (i, _), kinds in pairs.items() if "rail" in kinds)
    lookup = {**names, **position}
    seas = _seas(data, lookup, links, sea_of, places, straits, terrain)
    shores = frozenset(hex_ for sea in seas.values() for hex_ in sea.coast)
    return World(tuple(hexes.ids), tuple(terrain), tuple(hexes.map_of), tuple(hexes.scale), tuple(hexes.off_map),
                 tuple(hexes.zone), tuple(country), tuple(tuple(sorted(links[i])) for i in range(len(terrain))),
                 pairs, names, position, places["cities"], places["major_ports"], places["minor_ports"],
                 places["coastal"] | frozenset(on_coast) | shores, places["iced_in"], railway,
                 _countries(data, lookup), seas,
                 sea_of, _passages(data, lookup), straits, aliases)


def _region_codes(data) -> dict[str, tuple[str, str]]:
    """Region code -> ("country" or "sea", its id)."""
    codes: dict[str, tuple[str, str]] = {"-": ("none", "")}
    for kind, table in (("country", data.get("countries", {})), ("sea", data.get("seas", {}))):
        for name, facts in table.items():
            code = facts["code"]
            if code in codes or code.isupper() != (kind == "country"):
                raise datafile.DataFileError(f"world.toml: {kind} {name}'s code {code!r} is taken or of the wrong "
                                             "case (countries upper, seas lower)", field="code")
            codes[code] = (kind, name)
    return codes


def _in_play(facts: Mapping, options: frozenset[str]) -> bool:
    return ("option" not in facts or facts["option"] in options) and facts.get("unless") not in options


def _add_map(hexes: _Hexes, name: str, facts: dict, terrain_codes: dict[str, str], in_play: bool) -> tuple[Grid, int]:
    rows = _rows(name, facts["rows"], terrain_codes)
    regions = _rows(name, facts.get("regions", []), None)
    if [len(row) for row in regions] != [len(row) for row in rows]:
        raise datafile.DataFileError(f"world.toml: map {name}'s regions are not the shape of its rows",
                                     field="regions")
    minimap = bool(facts.get("minimap"))  # 2.1.4: every hex off the map, every hex-dot large
    grid, start = Grid(len(rows[0]), len(rows)), len(hexes.ids)
    for index in range(grid.size):
        col, row = grid.place(index)
        kind = "large_hexdot" if minimap and rows[row][col] == "hexdot" else rows[row][col]
        hexes.add(f"{name}:{col}-{row}", kind if in_play else "none", name,
                  OFFMAP_SCALE if minimap else int(facts["scale"]), minimap, facts.get("zone", ""),
                  regions[row][col] if in_play else "-")
    return grid, start


def _regions(hexes: _Hexes, codes) -> tuple[list[str], dict[int, str]]:
    """Each hex's country, each hex-dot's sea area; a hex whose code does not fit its terrain is
    refused."""
    country: list[str] = []
    sea_of: dict[int, str] = {}
    for index, (code, terrain) in enumerate(zip(hexes.region, hexes.terrain, strict=True)):
        kind, name = codes.get(code, ("?", ""))
        wanted = "none" if terrain == "none" else "sea" if terrain in HEXDOTS else "country"
        if kind != wanted:
            raise datafile.DataFileError(f"world.toml: {hexes.ids[index]} is {terrain} but its region code {code!r} "
                                         f"is no {wanted}", field="regions")
        country.append(name if kind == "country" else "")
        if kind == "sea":
            sea_of[index] = name
    return country, sea_of


def _countries(data, lookup: dict[str, int]) -> dict[str, Country]:
    found = {}
    for name, facts in data.get("countries", {}).items():
        capital = facts.get("capital")
        given = facts.get("home_of", [])
        homes = (given,) if isinstance(given, str) else tuple(given)
        found[name] = Country(facts["name"], None if capital is None else _hex(lookup, capital),
                              homes, bool(facts.get("commonwealth")), facts.get("owner", homes[0] if homes else name))
    return found


def _seas(data, lookup, links, sea_of, places, straits, terrain) -> dict[str, Sea]:
    """2.1.2: a sea area's neighbours, by border, blue line or statement, the same both ways; its
    coast, the land hexes next to its hex-dots, the hexes of its straits and those named."""
    seas = data.get("seas", {})
    near: dict[str, set[str]] = {name: set() for name in seas}
    pairs = [(name, other) for name, facts in seas.items() for other in (*facts.get("borders", []),
                                                                         *facts.get("notes", []))]
    pairs += [tuple(line["seas"]) for line in data.get("blue_lines", [])]
    for a, b in pairs:
        if a not in near or b not in near:
            raise datafile.DataFileError(f"world.toml names no sea area {b if a in near else a!r}", field="seas")
        near[a].add(b)
        near[b].add(a)
    ports = places["major_ports"] | places["minor_ports"]
    found = {}
    for name, facts in seas.items():
        named = {_hex(lookup, text) for text in (*facts.get("ports", []), *facts.get("coast", []))}
        shore = {land for dot, sea in sea_of.items() if sea == name for land in links[dot] if land not in sea_of}
        shore |= {hex_ for pair, sea in straits.items() if sea == name for hex_ in pair}
        coast = frozenset(hex_ for hex_ in shore | named if terrain[hex_] != "none")
        found[name] = Sea(facts["name"], frozenset(near[name]), coast, frozenset(coast & ports))
    return found


def _passages(data, lookup) -> dict[frozenset[str], int]:
    return {frozenset(passage["seas"]): _hex(lookup, passage["hex"]) for passage in data.get("passages", [])}


def _lines(lines, kind: str, position, links, features) -> None:
    """[[rails]] and [[roads]]: each step of the line is a hexside with that feature."""
    for line in lines:
        steps = [_hex(position, text) for text in line["hexes"]]
        for a, b in pairwise(steps):
            if b not in links[a]:
                raise datafile.DataFileError(f"world.toml: the {kind} from {line['hexes'][0]} steps between "
                                             f"{_name(position, a)} and {_name(position, b)}, which are not "
                                             "adjacent", field=kind + "s")
            for pair in ((a, b), (b, a)):
                features.setdefault(pair, set()).add(kind)


def _name(position: dict[str, int], index: int) -> str:
    return next(text for text, i in position.items() if i == index)


def _decode(row: str, codes: dict[str, str] | None) -> list[str]:
    """A run-length row: "3c2." is three clear hexes, then two hex-dots. Without codes, the
    letters themselves (a map's regions)."""
    cells = []
    for count, code in re.findall(r"(\d*)(\S)", row):
        if codes is None:
            cells += [code] * (int(count) if count else 1)
            continue
        if code not in codes:
            raise datafile.DataFileError(f"world.toml: no terrain code {code!r} (row {row!r})", field="rows")
        cells += [codes[code]] * (int(count) if count else 1)
    return cells


def _rows(name: str, lines: list[str], codes: dict[str, str] | None) -> list[list[str]]:
    rows = [_decode(row, codes) for row in lines]
    if codes is not None and (not rows or any(len(row) != len(rows[0]) for row in rows)):
        raise datafile.DataFileError(f"world.toml: map {name}'s rows are not all of one width", field="rows")
    return rows


def _direction(name: str) -> int:
    if name not in DIRECTIONS:
        raise datafile.DataFileError(f"world.toml: no side {name!r} (sides: {', '.join(DIRECTIONS)})", field="side")
    return DIRECTIONS.index(name)


def _grid_links(grids, terrain: list[str], links: dict[int, set[int]]) -> None:
    for grid, start in grids.values():
        for index, near in enumerate(grid.neighbours()):
            if terrain[start + index] != "none":
                links[start + index].update(start + other for other in near if terrain[start + other] != "none")


def _hex(position: dict[str, int], text: str, on_map: bool = False) -> int:
    if text not in position or (on_map and ":" not in text):
        raise datafile.DataFileError(f"world.toml names no {'on-map ' if on_map else ''}hex {text!r}", field="world")
    return position[text]


def _hexsides(data, grids, position, features, straits) -> dict[tuple[int, int], set[str]]:
    """Features between neighbours; those of a map's edge hexsides (a join's) by (hex, side); the
    sea area a straits hexside lies in (option 12)."""
    edges: dict[tuple[int, int], set[str]] = {}
    for side in data.get("hexsides", []):
        here = _hex(position, side["hex"], on_map=True)
        grid, start = grids[side["hex"].split(":")[0]]
        direction = _direction(side["side"])
        other = grid.step(here - start, direction)
        if other < 0:
            edges.setdefault((here, direction), set()).add(side["kind"])
            continue
        for pair in ((here, start + other), (start + other, here)):
            features.setdefault(pair, set()).add(side["kind"])
            if "sea" in side:
                if side["sea"] not in data.get("seas", {}):
                    raise datafile.DataFileError(f"world.toml: the straits at {side['hex']} name no sea area "
                                                 f"{side['sea']!r}", field="sea")
                straits[pair] = side["sea"]
    return edges


def _joins(data, position, links, features, edges, grids, terrain, options) -> dict[str, int]:
    """2.1.1: hexes that share a number (or, under option 1, a letter) across a join are adjacent
    through the hexside of the other map bearing it, whose features apply; where the join says
    `same`, the two are one hex (AfA option 1: Africa's eastern edge and the Asian map): the hex
    of the first map is no hex, its neighbours touch the other's, and its id names the other.
    Returns those names."""
    aliases: dict[str, int] = {}
    for join in data.get("joins", []):
        if "option" in join and join["option"] not in options:
            continue
        here, other = _hex(position, join["hex"], on_map=True), _hex(position, join["other_hex"], on_map=True)
        if join.get("same"):
            grid, start = grids[join["hex"].split(":")[0]]
            near = [start + n for n in (grid.step(here - start, d) for d in range(6)) if n >= 0]
            for hex_ in [n for n in near if terrain[n] != "none"]:
                links[hex_].add(other)
                links[other].add(hex_)
            aliases[join["hex"].lower()] = other
            continue
        links[here].add(other)
        links[other].add(here)
        through = edges.get((other, _direction(join["side"])), set())
        for pair in ((here, other), (other, here)):
            features.setdefault(pair, set()).update(through)
    return aliases


def _edge_dots(data, grids, hexes: _Hexes, links, options) -> None:
    """AfA option 1: a map-edge hex-dot of a map with `edge_dots` touches every map-edge hex-dot of
    the same sea area on the maps counting 2 (American, Asian, Pacific)."""
    for name, facts in data["maps"].items():
        if not facts.get("edge_dots") or not _in_play(facts, options):
            continue
        mine = _edge_hexdots(grids[name], hexes)
        others = [i for other, (grid, start) in grids.items() if other != name and hexes.scale[start] == 2
                  for i in _edge_hexdots((grid, start), hexes)]
        for dot in mine:
            for far in others:
                if hexes.region[dot] == hexes.region[far]:
                    links[dot].add(far)
                    links[far].add(dot)


def _edge_hexdots(placed: tuple[Grid, int], hexes: _Hexes) -> list[int]:
    grid, start = placed
    return [start + i for i in range(grid.size) if _on_edge(grid, i) and hexes.terrain[start + i] in HEXDOTS]


def _offmap(data, grids, position, terrain, links, features) -> None:
    """2.1.1: an off-map hex and the on-map hexes its lines reach, with the on-map edge hexes (or
    large hex-dots: only they touch off-map hexes) next to those; and the off-map hexes it joins.
    A railway line (2.1.3) is a rail between the off-map hex and the hex it reaches."""
    for name, facts in data.get("offmap", {}).items():
        here = position[name]
        lines = [(text, False) for text in facts.get("lines", [])] + [(t, True) for t in facts.get("rail_lines", [])]
        for text, rail in lines:
            reached = _hex(position, text, on_map=True)
            if terrain[reached] in ("none", "hexdot"):
                raise datafile.DataFileError(f"world.toml: {name}'s line ends on {text}, no land hex nor large "
                                             "hex-dot (2.1.1)", field="lines")
            grid, start = grids[text.split(":")[0]]
            steps = (grid.step(reached - start, d) for d in range(6))
            near = [start + n for n in steps if n >= 0 and _on_edge(grid, n)
                    and terrain[start + n] not in ("none", "hexdot")]
            for other in [reached, *near]:
                links[here].add(other)
                links[other].add(here)
            if rail:
                for pair in ((here, reached), (reached, here)):
                    features.setdefault(pair, set()).add("rail")
        for other_name in facts.get("offmap", []):
            other = _hex(position, other_name)
            links[here].add(other)
            links[other].add(here)


def _on_edge(grid: Grid, index: int) -> bool:
    col, row = grid.place(index)
    return col in (0, grid.width - 1) or row in (0, grid.height - 1)


def hex_named(world: World, text: str) -> int:
    """A hex by its name, its id ("east_europe:3-2") or an off-map hex's id; UsageError naming the
    nearest otherwise, and for a cell that is no hex (a gap in a map, a map out of play)."""
    wanted = text.strip().lower()
    found = world.names.get(wanted, world.aliases.get(wanted, world.position.get(wanted)))
    if found is not None and world.terrain[found] != "none":  # "none": no hex, or a map out of play
        return found
    import difflib

    known = [name for name, i in [*world.names.items(), *world.position.items()] if world.terrain[i] != "none"]
    near = difflib.get_close_matches(wanted, known, n=1)
    raise UsageError(f"no hex {text!r}" + (f"; did you mean {near[0]}?" if near else ""), field="hex")
