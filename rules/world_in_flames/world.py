"""The world's hexes (data/world.toml, a sample of our own) compiled once into integer arrays:
each hex's terrain, map, what it counts (2.4.2: 1 European, 2 Asian, 4 off-map), hex-dots, and who
is adjacent to whom (2.1.1): across a hexside; across the numbered join of the East European and
Asian maps, through the Asian hexside whose features apply; and off-map hexes with the on-map
hexes their lines reach, the on-map edge hexes (and large hex-dots) next to those, and the
off-map hexes their lines join. Hexside features are kept per pair of adjacent hexes."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from pbem import datafile
from pbem.errors import UsageError

from ..common.hexes import DIRECTIONS, Grid

OFFMAP_SCALE = 4  # 2.4.2: an off-map hex counts 4
HEXDOTS = ("hexdot", "large_hexdot")


class World(NamedTuple):
    ids: tuple[str, ...]  # "map:col,row" for on-map hexes, the off-map hex's id otherwise
    terrain: tuple[str, ...]
    map_of: tuple[str, ...]  # "" for an off-map hex
    scale: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    features: dict[tuple[int, int], frozenset[str]]  # hexside features between adjacent hexes
    names: dict[str, int]
    position: dict[str, int]  # id -> index
    cities: frozenset[int]
    major_ports: frozenset[int]
    minor_ports: frozenset[int]
    coastal: frozenset[int]  # land hexes on a sea or lake coast (2.3.1)

    def offmap(self, index: int) -> bool:
        return not self.map_of[index]

    def hexdot(self, index: int) -> bool:
        return self.terrain[index] in HEXDOTS

    def between(self, a: int, b: int) -> frozenset[str]:
        return self.features.get((a, b), frozenset())


@cache
def load() -> World:
    data = datafile.load(__package__, "world.toml")
    codes = data["terrain"]
    ids: list[str] = []
    terrain: list[str] = []
    map_of: list[str] = []
    scale: list[int] = []
    grids: dict[str, tuple[Grid, int]] = {}
    for name, facts in data["maps"].items():
        rows = _rows(name, facts, codes)
        grid, start = Grid(len(rows[0]), len(rows)), len(ids)
        grids[name] = (grid, start)
        for index in range(grid.size):
            col, row = grid.place(index)
            ids.append(f"{name}:{col},{row}")
            terrain.append(rows[row][col])
            map_of.append(name)
            scale.append(int(facts["scale"]))
    for name in data.get("offmap", {}):
        ids.append(name)
        terrain.append("offmap")
        map_of.append("")
        scale.append(OFFMAP_SCALE)
    position = {hex_id: i for i, hex_id in enumerate(ids)}
    links: dict[int, set[int]] = {i: set() for i in range(len(ids))}
    features: dict[tuple[int, int], set[str]] = {}
    _grid_links(grids, terrain, links)
    edges = _hexsides(data, grids, position, features)
    _joins(data, position, links, features, edges)
    _offmap(data, grids, position, terrain, links)
    names = {name.lower(): _hex(position, hex_id) for name, hex_id in data.get("names", {}).items()}
    places = {key: frozenset(_hex(position, text) for text in data.get("places", {}).get(key, []))
              for key in ("cities", "major_ports", "minor_ports", "coastal")}
    on_coast = {i for i in range(len(ids)) if terrain[i] not in (*HEXDOTS, "none", "offmap")
                and any(terrain[j] in HEXDOTS for j in links[i])}
    return World(tuple(ids), tuple(terrain), tuple(map_of), tuple(scale),
                 tuple(tuple(sorted(links[i])) for i in range(len(ids))),
                 {pair: frozenset(kinds) for pair, kinds in features.items()}, names, position, places["cities"],
                 places["major_ports"], places["minor_ports"], places["coastal"] | frozenset(on_coast))


def _decode(row: str, codes: dict[str, str]) -> list[str]:
    """A run-length row: "3c2." is three clear hexes, then two hex-dots."""
    cells = []
    for count, code in re.findall(r"(\d*)(\S)", row):
        if code not in codes:
            raise datafile.DataFileError(f"world.toml: no terrain code {code!r} (row {row!r})", field="rows")
        cells += [codes[code]] * (int(count) if count else 1)
    return cells


def _rows(name: str, facts: dict, codes: dict[str, str]) -> list[list[str]]:
    rows = [_decode(row, codes) for row in facts["rows"]]
    if not rows or any(len(row) != len(rows[0]) for row in rows):
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


def _hexsides(data, grids, position, features) -> dict[tuple[int, int], set[str]]:
    """Features between neighbours; those of a map's edge hexsides (a join's) by (hex, side)."""
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
    return edges


def _joins(data, position, links, features, edges) -> None:
    """2.1.1: the same-numbered hexes across the join, through the Asian hexside, whose features
    apply."""
    for join in data.get("joins", []):
        east, asian = _hex(position, join["hex"], on_map=True), _hex(position, join["asian_hex"], on_map=True)
        links[east].add(asian)
        links[asian].add(east)
        through = edges.get((asian, _direction(join["side"])), set())
        for pair in ((east, asian), (asian, east)):
            features.setdefault(pair, set()).update(through)


def _offmap(data, grids, position, terrain, links) -> None:
    """2.1.1: an off-map hex and the on-map hexes its lines reach, with the on-map edge hexes (or
    large hex-dots: only they touch off-map hexes) next to those; and the off-map hexes it joins."""
    for name, facts in data.get("offmap", {}).items():
        here = position[name]
        for text in facts.get("lines", []):
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
        for other_name in facts.get("offmap", []):
            other = _hex(position, other_name)
            links[here].add(other)
            links[other].add(here)


def _on_edge(grid: Grid, index: int) -> bool:
    col, row = grid.place(index)
    return col in (0, grid.width - 1) or row in (0, grid.height - 1)


def hex_named(world: World, text: str) -> int:
    """A hex by its name, its id ("east_europe:3,2") or an off-map hex's id; UsageError naming the
    nearest otherwise."""
    wanted = text.strip().lower()
    if wanted in world.names:
        return world.names[wanted]
    if wanted in world.position:
        return world.position[wanted]
    import difflib

    near = difflib.get_close_matches(wanted, [*world.names, *world.ids], n=1)
    raise UsageError(f"no hex {text!r}" + (f"; did you mean {near[0]}?" if near else ""), field="hex")
