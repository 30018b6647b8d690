"""The World in Flames map as an SVG picture: `pbem show picture`, and the top of `pbem report
--html/--svg` (the `Ruleset.picture` hook). Standard library only.

Each map of the world is a panel of hexes in offset rows, filled by terrain, outlined in the
colour of the side controlling it (red the Axis, blue the Allies, grey a neutral); hex-dots are
small blue discs. Off-map hexes sit in a row under the panels. A hex in an enemy ZOC carries a
small dot of the side exerting it. Units are counters (a square in their side's colour, pale when
face-down, with the unit's name). The supply path of the unit that acted last is a green line
from it to its primary source (grey where it runs as a railway path), and its hex is ringed.

Size: the sample world is about 40 KB. A map bigger than `WINDOW` hexes, or a `focus`, draws a
window instead: the hexes within `RADIUS` hex steps of the focus (or of the last action).
Deterministic: hexes in world order, units by name, integer arithmetic only."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import pairwise
from xml.sax.saxutils import escape

from . import position, supply
from . import world as worlds
from .situation import NEUTRAL
from .state import WifState

SIZE = 16  # a hex's radius in pixels
WIDE, TALL = 28, 24  # a hex's width and row height (about sqrt(3) and 1.5 times the radius)
GAP, TOP = 40, 50
WINDOW, RADIUS = 3000, 6
TERRAIN = {"clear": "#efe6c8", "forest": "#a8c890", "mountain": "#c0ad95", "desert": "#f3dc9a",
           "desert_mountain": "#dcbc80", "swamp": "#a8d0c0", "offmap": "#dddddd"}
SIDE_COLOUR = {"axis": "#b03030", "allies": "#2a58a8", NEUTRAL: "#909090"}
SEA, PATH, RAIL = "#9cc4e4", "#1a9a30", "#808080"


def draw(state: WifState, options: Mapping[str, bool], focus: str | None = None) -> str:
    world = worlds.for_options(options)
    places = _layout(world)
    shown = _shown(world, state, focus)
    situation = position.situation(state, dict(options))
    left, top, width, height = _frame([places[i] for i in shown])
    title = escape(f"World in Flames, impulse {min(state.impulse, state.impulses)} of {state.impulses}: "
                   + (state.last.get("text") or "the set-up"))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="{left} {top} {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif">',
             f"<title>{title}</title>",
             f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="#ffffff"/>',
             *_labels(world, places, shown), *_hexes(world, situation, places, shown), *_zoc(situation, places, shown),
             *_path(state, situation, places, shown), *_units(state, situation, places, shown),
             f'<text x="{left + 8}" y="{top + 22}" font-size="14">{title}</text>', "</svg>"]
    return "\n".join(parts) + "\n"


def _layout(world: worlds.World) -> list[tuple[int, int]]:
    """Each hex's centre: the maps side by side, the off-map hexes in a row below them."""
    places: list[tuple[int, int]] = [(0, 0)] * len(world.ids)
    origin, bottom, spare = 0, 0, []
    for name in dict.fromkeys(world.map_of):
        if not name:
            continue
        mine = [i for i, m in enumerate(world.map_of) if m == name]
        for i in mine:
            col, row = (int(n) for n in world.ids[i].split(":")[1].split("-"))
            places[i] = (origin + col * WIDE + (row % 2) * WIDE // 2 + WIDE, TOP + row * TALL + SIZE)
        origin = max(places[i][0] for i in mine) + GAP
        bottom = max(bottom, max(places[i][1] for i in mine))
    spare = [i for i, m in enumerate(world.map_of) if not m]
    for k, i in enumerate(spare):
        places[i] = (WIDE + k * 3 * WIDE, bottom + GAP + SIZE)
    return places


def _shown(world: worlds.World, state: WifState, focus: str | None) -> list[int]:
    everything = [i for i in range(len(world.ids)) if world.terrain[i] != "none"]
    if focus is None and len(everything) <= WINDOW:
        return everything
    centre = worlds.hex_named(world, focus) if focus else world.position.get(state.last.get("hex", ""), 0)
    near, frontier = {centre}, {centre}
    for _ in range(RADIUS):
        frontier = {n for h in frontier for n in world.neighbours[h]} - near
        near |= frontier
    return [i for i in everything if i in near]


def _labels(world: worlds.World, places, shown: list[int]) -> Iterator[str]:
    """Each map's name over its top-left hex, each off-map hex's under it."""
    seen: set[str] = set()
    for i in shown:
        name = world.map_of[i]
        if name and name not in seen:
            seen.add(name)
            x = min(places[j][0] for j in shown if world.map_of[j] == name)
            y = min(places[j][1] for j in shown if world.map_of[j] == name)
            yield f'<text x="{x - WIDE // 2}" y="{y - SIZE - 4}" font-size="10" fill="#555555">{escape(name)}</text>'
        elif not name:
            x, y = places[i]
            yield (f'<text x="{x}" y="{y + SIZE + 10}" font-size="9" fill="#555555" text-anchor="middle">'
                   f"{escape(world.ids[i])}</text>")


def _frame(points: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    left, top = min(xs) - WIDE, min(ys) - SIZE - 48
    return left, top, max(xs) - left + WIDE, max(ys) - top + SIZE + 20


def _corners(x: int, y: int) -> str:
    half = WIDE // 2
    return " ".join(f"{px},{py}" for px, py in ((x, y - SIZE), (x + half, y - SIZE // 2), (x + half, y + SIZE // 2),
                                                (x, y + SIZE), (x - half, y + SIZE // 2), (x - half, y - SIZE // 2)))


def _hexes(world, situation, places, shown) -> Iterator[str]:
    for i in shown:
        x, y = places[i]
        if world.hexdot(i):
            radius = 6 if world.terrain[i] == "large_hexdot" else 4
            yield (f'<circle id="hex-{escape(world.ids[i])}" cx="{x}" cy="{y}" r="{radius}" fill="{SEA}">'
                   f"<title>{escape(world.ids[i])}</title></circle>")
            continue
        fill = TERRAIN.get("offmap" if world.offmap(i) else world.terrain[i], "#ffffff")
        side = situation.side_of(situation.controller(i)) if situation.controller(i) else NEUTRAL
        city = ' stroke-width="2.5"' if i in world.cities else ' stroke-width="1"'
        yield (f'<polygon id="hex-{escape(world.ids[i])}" points="{_corners(x, y)}" fill="{fill}" '
               f'stroke="{SIDE_COLOUR[side]}"{city}>'
               f"<title>{escape(world.ids[i])} {escape(world.terrain[i])}</title></polygon>")


def _zoc(situation, places, shown) -> Iterator[str]:
    for side, other in (("axis", "allies"), ("allies", "axis")):
        zone = supply.enemy_zoc(situation, other)  # exerted by `side`
        for i in shown:
            if i in zone:
                x, y = places[i]
                shift = -6 if side == "axis" else 6
                yield (f'<circle id="zoc-{side}-{escape(situation.world.ids[i])}" cx="{x + shift}" '
                       f'cy="{y - SIZE // 2 - 1}" r="2" fill="{SIDE_COLOUR[side]}"/>')


def _path(state, situation, places, shown) -> Iterator[str]:
    name = state.last.get("unit", "")
    if name not in state.units or "hex" not in state.units[name]:
        return
    steps = supply.explain(situation, position.unit(state, name))
    world = situation.world
    points = [(places[world.position[s["place"]]], s["path"]) for s in steps if s["place"] in world.position]
    for k, ((a, _), (b, kind)) in enumerate(pairwise(points)):
        colour = RAIL if kind == "railway" else PATH
        yield (f'<line id="supply-{k}" x1="{a[0]}" y1="{a[1]}" x2="{b[0]}" y2="{b[1]}" stroke="{colour}" '
               'stroke-width="3" '
               'stroke-linecap="round" opacity="0.8"/>')
    x, y = places[world.position[state.units[name]["hex"]]]
    if world.position[state.units[name]["hex"]] in shown:
        yield f'<circle id="last-unit" cx="{x}" cy="{y}" r="{SIZE}" fill="none" stroke="{PATH}" stroke-width="2"/>'


def _units(state, situation, places, shown) -> Iterator[str]:
    world = situation.world
    stacks: dict[int, list[str]] = {}
    for name in sorted(state.units):
        if "hex" in state.units[name]:
            stacks.setdefault(world.position[state.units[name]["hex"]], []).append(name)
    for i, names in stacks.items():
        if i not in shown:
            continue
        x, y = places[i]
        for k, name in enumerate(names[:3]):
            unit = state.units[name]
            colour = SIDE_COLOUR[situation.side_of(unit["country"])]
            opacity = "1" if unit["face_up"] else "0.45"
            top = y - 6 + 7 * k - 3 * (len(names[:3]) - 1)
            yield (f'<rect id="unit-{escape(name)}" x="{x - 12}" y="{top}" width="24" height="8" fill="{colour}" '
                   f'opacity="{opacity}">'
                   f"<title>{escape(name)}</title></rect>"
                   f'<text x="{x}" y="{top + 7}" font-size="6" fill="#ffffff" text-anchor="middle">'
                   f"{escape(name[:7])}</text>")
