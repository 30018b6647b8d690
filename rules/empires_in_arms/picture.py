"""The Empires in Arms map as an SVG picture: `pbem show picture`, and the top of `pbem report
--html/--svg` (the `Ruleset.picture` hook). Standard library only.

Each area of data/map.toml is a disc at its x, y (spread twice apart), filled with the colour of the power holding its
territory (grey: a free minor), ringed thicker where it has a city; the borders join the discs
(blue: a river, brown dashed: a mountain range). Under each disc its corps (name and strength)
and leaders. The last reaction or overrun of the land phase (or of the last phase with any) is
drawn on top: an arrow from where the reacting force stood to where it went (green if it
succeeded, red if it failed), or a ring around the overrun area (green: swept, red: failed).
A title band gives the turn, the month and the step.

Size: the whole sample map is about 20 KB. With `focus` the picture is a window: the rectangle
around the area and the areas bordering it. Deterministic: areas and borders in map order, units
by name, integer arithmetic only.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import escape

from . import geography
from .state import EiaState

RADIUS, MARGIN, HEADER = 26, 70, 40
SCALE = 2  # the sample map's points are close together: spread them for the unit labels
COLOURS = {"austria": "#e8e0a8", "britain": "#e8a8a8", "france": "#a8c0e8", "prussia": "#b8b8b8",
           "russia": "#a8d8a8", "spain": "#e8c898", "turkey": "#c8a8d8"}
FREE = "#eeeeee"
RIVER, RANGE, PLAIN = "#3070c0", "#8a6a40", "#b0b0b0"
DONE, FAILED = "#1a9a30", "#c02020"


def draw(state: EiaState, focus: str | None = None) -> str:
    """The picture of `state`: the whole map, or the window around `focus` (an area as a player
    names it; UsageError naming the closest when none matches)."""
    shown = _shown(focus)
    left, top, width, height = _frame(shown)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="{left} {top} {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif">',
             f"<title>{escape(_title(state))}</title>",
             '<defs><marker id="eia-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" '
             'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333333"/></marker></defs>',
             f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="#ffffff"/>',
             *_borders(shown), *_areas(state, shown), *_last_event(state, shown),
             f'<text x="{left + 10}" y="{top + 26}" font-size="18">{escape(_title(state))}</text>', "</svg>"]
    return "\n".join(parts) + "\n"


def _shown(focus: str | None) -> list[str]:
    if focus is None:
        return list(geography.areas())
    area = geography.area_named(focus)
    near = {area} | {other for other, _ in geography.neighbours(area)}
    return [a for a in geography.areas() if a in near]


def _frame(shown: list[str]) -> tuple[int, int, int, int]:
    xs = [_at(a)[0] for a in shown]
    ys = [_at(a)[1] for a in shown]
    left, top = min(xs) - MARGIN - 40, min(ys) - MARGIN - HEADER
    return left, top, max(xs) - min(xs) + 2 * MARGIN + 80, max(ys) - min(ys) + 2 * MARGIN + HEADER + 40


def _title(state: EiaState) -> str:
    from .sequence import month

    if state.turn == 0:
        return "Empires in Arms · before the game"
    year, number = month(state)
    doing = f"{state.phasing}'s land phase" if state.step == "land" and state.phasing else state.step.replace("_", " ")
    return f"Empires in Arms · turn {state.turn}, {year}-{number:02d} · {doing}"


def _at(area: str) -> tuple[int, int]:
    facts = geography.areas()[area]
    return SCALE * int(facts["x"]), SCALE * int(facts["y"])


def _borders(shown: list[str]) -> Iterator[str]:
    seen = set(shown)
    for area in shown:
        for other, kind in geography.neighbours(area):
            if other in seen and shown.index(other) > shown.index(area):
                (x1, y1), (x2, y2) = _at(area), _at(other)
                colour = {"river": RIVER, "mountain": RANGE}.get(kind, PLAIN)
                dash = ' stroke-dasharray="8,5"' if kind == "mountain" else ""
                yield (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" '
                       f'stroke-width="{4 if kind == "river" else 2}"{dash}/>')


def _areas(state: EiaState, shown: list[str]) -> Iterator[str]:
    for area in shown:
        facts = geography.areas()[area]
        x, y = _at(area)
        holder = state.control.get(facts["territory"])
        tip = f"{facts['name']}: {facts['terrain']}, held by {holder or 'nobody (a free minor)'}"
        yield (f'<circle id="area-{area}" cx="{x}" cy="{y}" r="{RADIUS}" fill="{COLOURS.get(holder or "", FREE)}" '
               f'stroke="#444444" stroke-width="{3 if facts.get("city") else 1}"><title>{escape(tip)}</title></circle>')
        yield f'<text x="{x}" y="{y + 4}" font-size="11" text-anchor="middle">{escape(facts["name"])}</text>'
        lines = [f"{name} {unit.strength}" for name, unit in sorted(state.corps.items()) if unit.area == area]
        lines += [name for name, leader in sorted(state.leaders.items()) if leader.area == area]
        for index, line in enumerate(lines):
            yield (f'<text x="{x}" y="{y + RADIUS + 18 + 11 * index}" font-size="10" text-anchor="middle">'
                   f"{escape(line)}</text>")


def last_event(state: EiaState) -> dict | None:
    """The last reaction or overrun of this land phase, or of the last phase that had one."""
    for log in (state.land_log, state.last_phase.get("log", [])):
        found = [event for event in log if event["event"] not in ("battle", "plan")]
        if found:
            return found[-1]
    return None


def _last_event(state: EiaState, shown: list[str]) -> Iterator[str]:
    event = last_event(state)
    if event is None:
        return
    colour = DONE if event["success"] else FAILED
    if event["event"] == "overrun":
        if event["area"] in shown:
            x, y = _at(event["area"])
            yield (f'<circle id="last-overrun" cx="{x}" cy="{y}" r="{RADIUS + 8}" fill="none" stroke="{colour}" '
                   f'stroke-width="5"><title>{escape(_overrun_tip(event))}</title></circle>')
        return
    if event["from"] in shown and event["to"] in shown:
        (x1, y1), (x2, y2) = _at(event["from"]), _at(event["to"])
        tip = f"{event['event']} by {event['leader'] or ', '.join(event['corps'])}: " + ("done" if event["success"]
                                                                                         else "failed")
        yield (f'<line id="last-reaction" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" '
               f'stroke-width="6" marker-end="url(#eia-arrow)"><title>{escape(tip)}</title></line>')


def _overrun_tip(event: dict) -> str:
    return f"overrun in {event['area']}: {event['attack']} against {event['defence']}: " + (
        "swept" if event["success"] else "failed")
