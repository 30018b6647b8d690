"""The Paths of Glory map as an SVG picture: `pbem show picture`, and the top of `pbem report
--html/--svg` (the `Ruleset.picture` hook). Standard library only.

Both maps, Europe and the Near East, share one frame: every space and box is drawn at the x, y, w,
h that map.toml gives it (the reference's screen rectangles; RULINGS R45 places the Dutch spaces).
Drawn from the bottom up:
  each map's background, then the connections (dashed: limited to some units, a connection with
  tokens in map.toml);
  each space filled with its controller's colour (paler while its nation is neutral), its name
  above it, a fort badge at its top left (dark: intact, amber: besieged, crossed: destroyed; the
  number is its strength, a built fort's own), a trench badge at its top right ("T" and the level,
  in the owner's colour), and its units below, one short name a line ("·r" reduced, "OOSn" the
  out-of-supply marker);
  the reserve and eliminated boxes with their units;
  the turn's last combat: its attacking spaces ringed orange, with arrows to the defending space,
  ringed magenta;
  a title band with the turn and a legend.

Size: the whole map, about 115 KB. With `focus` the picture is a window: the rectangle around
every space within FOCUS_HOPS connections of the focus, drawing all that lies in it.

Deterministic: spaces and connections in map order, units armies first then by id, integer
arithmetic only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple
from xml.sax.saxutils import escape

from pbem import datafile
from pbem.errors import UsageError

from .data import Unit, UnknownSpace, space_facts
from .state import PogState

FOCUS_HOPS = 3  # a window shows what an action around the focus can reach: three connections out
MARGIN = 24  # around a map or a window: room for the names drawn above the spaces
HEADER = 42  # the title band
MIN_WIDTH = 600  # a narrower window would cut the legend

FILL = {"ap": "#9cc3e6", "cp": "#eba59b"}
NEUTRAL_FILL = {"ap": "#dde9f5", "cp": "#f6dcd7"}
DARK = {"ap": "#1f4e8c", "cp": "#9b2218"}
MAP_FILL = {"europe": "#f3f0e2", "neareast": "#ece3c6"}
MAP_TITLE = {"europe": "Europe", "neareast": "Near East"}
FORT_FILL = {"intact": "#404040", "besieged": "#f0a000", "destroyed": "#ffffff"}
LINK, ATTACK, DEFEND = "#707070", "#ff8000", "#c000c0"
UNIT_LINE = 8  # px between the unit lines of a space
BOX_COLUMN, BOX_LINE = 90, 11  # the unit columns and lines of a reserve or eliminated box


class Rect(NamedTuple):
    x: int
    y: int
    w: int
    h: int

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2

    def meets(self, other: Rect) -> bool:
        return (self.x < other.x + other.w and other.x < self.x + self.w
                and self.y < other.y + other.h and other.y < self.y + self.h)


def draw(state: PogState, focus: str | None = None) -> str:
    """The picture of `state` as SVG text: the whole map, or the window around `focus` (a space or
    box as a player names it; UsageError naming the closest when none matches)."""
    rects = places(state)
    focus_id = None if focus is None else _find(state, focus)
    frame = _frame(state, rects, focus_id)
    shown = {key for key, rect in rects.items() if rect.meets(frame)}
    stacks = _stacks(state)
    parts = [*_opening(state, frame, focus_id), *_backgrounds(state, rects, frame),
             *_connections(state, rects, shown), *_spaces(state, rects, shown, stacks),
             *_boxes(state, rects, shown, stacks), *_last_combat(state, rects, shown),
             *_header(state, frame, focus_id), "</svg>"]
    return "\n".join(parts) + "\n"


def places(state: PogState) -> dict[str, Rect]:
    """Every space's and box's rectangle by id: spaces in map order, then the boxes."""
    boxes = datafile.load(str(__package__), "map.toml")["boxes"]
    fields = [*space_facts(state.variants).items(), *boxes.items()]
    return {key: Rect(f["x"], f["y"], f["w"], f["h"]) for key, f in fields}


def _find(state: PogState, text: str) -> str:
    try:
        return state.map.find(text)
    except UnknownSpace as exc:
        raise UsageError(str(exc), field="focus") from None


def _frame(state: PogState, rects: Mapping[str, Rect], focus: str | None) -> Rect:
    """The part of the map drawn, with the title band above it."""
    keys = rects if focus is None else _near(state, focus)
    content = _around((rects[key] for key in keys), MARGIN)
    extra = max(0, MIN_WIDTH - content.w)
    return Rect(content.x - extra // 2, content.y - HEADER, content.w + extra, content.h + HEADER)


def _near(state: PogState, focus: str) -> list[str]:
    """The focus and the spaces within FOCUS_HOPS connections of it (a box: itself alone)."""
    pog = state.map
    if focus not in pog.index:
        return [focus]
    reached = {pog.index[focus]}
    edge = set(reached)
    for _ in range(FOCUS_HOPS):
        edge = {n for i in edge for n in pog.neighbours[i]} - reached
        reached |= edge
    return [pog.ids[i] for i in sorted(reached)]


def _around(rects: Iterable[Rect], margin: int) -> Rect:
    rects = list(rects)
    left, top = min(r.x for r in rects), min(r.y for r in rects)
    right, bottom = max(r.x + r.w for r in rects), max(r.y + r.h for r in rects)
    return Rect(left - margin, top - margin, right - left + 2 * margin, bottom - top + 2 * margin)


def _stacks(state: PogState) -> dict[str, list[str]]:
    """The units in each space or box: armies first, then by id."""
    stacks: dict[str, list[str]] = {}
    for unit in sorted(state.units, key=lambda u: (state.unit_facts[u].type != "army", u)):
        stacks.setdefault(state.units[unit].space, []).append(unit)
    return stacks


# ------------------------------------------------------------------------------ drawing


def _rect(rect: Rect, fill: str, stroke: str = "none", width: int = 1, extra: str = "",
          tip: str | None = None) -> str:
    """A rectangle; `tip` is the text a browser shows when the pointer rests on it."""
    start = (f'<rect x="{rect.x}" y="{rect.y}" width="{rect.w}" height="{rect.h}" fill="{fill}" '
             f'stroke="{stroke}" stroke-width="{width}"{extra}')
    return start + "/>" if tip is None else f"{start}><title>{escape(tip)}</title></rect>"


def _text(x: int, y: int, text: str, size: int, extra: str = "") -> str:
    return f'<text x="{x}" y="{y}" font-size="{size}"{extra}>{escape(text)}</text>'


def _title(state: PogState, focus: str | None) -> str:
    title = f"Paths of Glory · Turn {state.turn}: {state.turn_label}"
    return title + (f" · around {state.map.name_of(focus)}" if focus else "")


def _opening(state: PogState, frame: Rect, focus: str | None) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{frame.w}" height="{frame.h}" '
            f'viewBox="{frame.x} {frame.y} {frame.w} {frame.h}" font-family="DejaVu Sans, Verdana, sans-serif">',
            f"<title>{escape(_title(state, focus))}</title>",
            '<defs><marker id="pog-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" '
            f'markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{ATTACK}"/></marker></defs>',
            _rect(frame, "#ffffff")]


def _backgrounds(state: PogState, rects: Mapping[str, Rect], frame: Rect) -> Iterator[str]:
    pog = state.map
    for name, fill in MAP_FILL.items():
        area = _around((rects[key] for key, where in zip(pog.ids, pog.map, strict=True) if where == name), MARGIN)
        if area.meets(frame):
            yield _rect(area, fill, "#c8c0a0")
            yield _text(area.x + 6, area.y + area.h - 8, MAP_TITLE[name], 16, ' fill="#a89c70"')


def _connections(state: PogState, rects: Mapping[str, Rect], shown: set[str]) -> Iterator[str]:
    pog = state.map
    for a, b in pog.connections:
        if pog.ids[a] not in shown and pog.ids[b] not in shown:
            continue
        (x1, y1), (x2, y2) = rects[pog.ids[a]].centre, rects[pog.ids[b]].centre
        dashed = ' stroke-dasharray="6 4"' if pog.allowed(a, b) is not None else ""
        yield f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{LINK}" stroke-width="2"{dashed}/>'


def _spaces(state: PogState, rects: Mapping[str, Rect], shown: set[str],
            stacks: Mapping[str, list[str]]) -> Iterator[str]:
    pog = state.map
    owners = getattr(state, "trench_owner", None) or {}  # else the trench is the controller's
    for index, key in enumerate(pog.ids):
        if key not in shown:
            continue
        rect, side = rects[key], state.control.get(key, pog.control[index])
        fill = (NEUTRAL_FILL if state.neutral(key) else FILL)[side]
        name = pog.names[index]
        yield _rect(rect, fill, "#303030", tip=name)
        yield _text(rect.centre[0], rect.y - 4, name, 9, ' text-anchor="middle"')
        if key in state.forts or key in state.built_forts:
            yield from _fort(state, key, rect)
        if state.trenches.get(key):
            yield from _trench(state.trenches[key], owners.get(key, side), rect)
        yield from _stack(state, stacks.get(key, []), rect)


def _fort(state: PogState, key: str, rect: Rect) -> Iterator[str]:
    status = state.forts.get(key, "intact")
    badge = Rect(rect.x + 2, rect.y + 2, 11, 9)
    yield _rect(badge, FORT_FILL[status], FORT_FILL["intact"])
    if status == "destroyed":
        right, bottom = badge.x + badge.w, badge.y + badge.h
        yield (f'<path d="M{badge.x},{badge.y} L{right},{bottom} M{right},{badge.y} L{badge.x},{bottom}" '
               'stroke="#d00000" stroke-width="1.5"/>')
        return
    colour = "#ffffff" if status == "intact" else "#000000"
    yield _text(badge.centre[0], badge.y + 8, str(state.fort_strength(key)), 8,
                f' text-anchor="middle" font-weight="bold" fill="{colour}"')


def _trench(level: int, owner: str, rect: Rect) -> Iterator[str]:
    badge = Rect(rect.x + rect.w - 16, rect.y + 2, 14, 9)
    yield _rect(badge, DARK[owner])
    yield _text(badge.centre[0], badge.y + 8, f"T{level}", 7, ' text-anchor="middle" fill="#ffffff"')


def _stack(state: PogState, units: list[str], rect: Rect) -> Iterator[str]:
    """One line a unit, below the badges; a stack too tall for the space ends with "+N"."""
    room = max(1, (rect.h - 11) // UNIT_LINE)
    listed = units if len(units) <= room else units[:room - 1]
    for row, unit in enumerate(listed):
        yield _unit(state, unit, rect.x + 2, rect.y + 19 + row * UNIT_LINE, 7)
    if len(listed) < len(units):
        yield _text(rect.x + 2, rect.y + 19 + len(listed) * UNIT_LINE, f"+{len(units) - len(listed)}", 7)


def _unit(state: PogState, unit: str, x: int, y: int, size: int) -> str:
    facts, where = state.unit_facts[unit], state.units[unit]
    label = short_name(facts) + ("·r" if where.reduced else "")
    weight = ' font-weight="bold"' if facts.type == "army" else ""
    oos = f'<tspan fill="#d00000" font-weight="bold"> OOS{where.oos}</tspan>' if where.oos else ""
    return f'<text x="{x}" y="{y}" font-size="{size}" fill="{DARK[facts.faction]}"{weight}>{escape(label)}{oos}</text>'


def short_name(unit: Unit) -> str:
    """A unit's name as the picture writes it: "GE 1" (German 1st Army), "BEF", "GE c" (a corps)."""
    words = unit.name.split()
    if words[-1] == "Corps":
        words[-1] = "c"
    elif words[-1] == "Army" and len(words) > 1:
        words.pop()
    if words[0].isdigit():
        words.insert(0, unit.nation.upper())
    return " ".join(words)


def _boxes(state: PogState, rects: Mapping[str, Rect], shown: set[str],
           stacks: Mapping[str, list[str]]) -> Iterator[str]:
    """The reserve and eliminated boxes: their units in columns; "+N more" past what fits."""
    for key, box in state.map.boxes.items():
        if key not in shown:
            continue
        rect, units = rects[key], stacks.get(key, [])
        yield _rect(rect, "#ffffff", DARK[box.side], 2)
        yield _text(rect.x + 6, rect.y + 15, box.name, 12, f' font-weight="bold" fill="{DARK[box.side]}"')
        rows = max(1, (rect.h - 24) // BOX_LINE)
        room = max(1, (rect.w - 8) // BOX_COLUMN) * rows
        listed = units if len(units) <= room else units[:room - 1]
        for slot, unit in enumerate(listed):
            column, row = divmod(slot, rows)
            yield _unit(state, unit, rect.x + 6 + column * BOX_COLUMN, rect.y + 30 + row * BOX_LINE, 9)
        if len(listed) < len(units):
            column, row = divmod(len(listed), rows)
            yield _text(rect.x + 6 + column * BOX_COLUMN, rect.y + 30 + row * BOX_LINE,
                        f"+{len(units) - len(listed)} more", 9)


def _last_combat(state: PogState, rects: Mapping[str, Rect], shown: set[str]) -> Iterator[str]:
    """The turn's last combat: attackers ringed orange, an arrow from each to the defender. The
    defending space is the record's `defender`, else its `space` (as combat.py records it)."""
    if not state.combats:
        return
    last = state.combats[-1]
    attackers = [key for key in last.get("attack_spaces", []) if key in rects]
    defender = last.get("defender", last.get("space"))
    defender = defender if defender in rects else None
    for key in attackers:
        if key in shown:
            yield _ring(rects[key], ATTACK)
    if defender is None:
        return
    if defender in shown:
        yield _ring(rects[defender], DEFEND)
    for key in attackers:
        yield _arrow(rects[key], rects[defender])


def _ring(rect: Rect, colour: str) -> str:
    return _rect(Rect(rect.x - 2, rect.y - 2, rect.w + 4, rect.h + 4), "none", colour, 3)  # clear of the name


def _arrow(start: Rect, end: Rect) -> str:
    """From the attacker's centre to the edge of the defender's ring (integer arithmetic only, so
    every machine draws the same bytes)."""
    (x1, y1), (x2, y2) = start.centre, end.centre
    length = max(1, math.isqrt((x2 - x1) ** 2 + (y2 - y1) ** 2))
    back = min(end.w, end.h) // 2 + 4
    tip_x, tip_y = x2 - (x2 - x1) * back // length, y2 - (y2 - y1) * back // length
    return (f'<line x1="{x1}" y1="{y1}" x2="{tip_x}" y2="{tip_y}" stroke="{ATTACK}" stroke-width="4" '
            'stroke-opacity="0.85" marker-end="url(#pog-arrow)"/>')


def _header(state: PogState, frame: Rect, focus: str | None) -> Iterator[str]:
    """The title band: the turn (and the focus), then a legend of the colours and marks."""
    yield _rect(Rect(frame.x, frame.y, frame.w, HEADER), "#ffffff", extra=' fill-opacity="0.9"')
    x, y = frame.x + 8, frame.y + 16
    yield _text(x, y, _title(state, focus), 14, ' font-weight="bold"')
    y += 17
    for swatch, label in ((FILL["ap"], "Allied"), (FILL["cp"], "Central Powers"),
                          (FORT_FILL["besieged"], "besieged fort")):
        yield _rect(Rect(x, y - 9, 12, 10), swatch, "#303030")
        yield _text(x + 16, y, label, 10)
        x += 24 + 6 * len(label)
    yield (f'<line x1="{x}" y1="{y - 4}" x2="{x + 24}" y2="{y - 4}" stroke="{LINK}" stroke-width="2" '
           'stroke-dasharray="6 4"/>')
    yield _text(x + 28, y, "limited connection", 10)
    x += 28 + 6 * len("limited connection") + 12
    for colour, label in ((ATTACK, "attacker"), (DEFEND, "defender")):
        yield _rect(Rect(x, y - 9, 12, 10), "none", colour, 3)
        yield _text(x + 16, y, label, 10)
        x += 24 + 6 * len(label)
