"""What `pbem show` displays of a World in Flames game: the impulse and every unit (`impulse`),
one hex (`hex ID`), each unit's supply path (`supply [POWER]`) and one sea area (`sea AREA`); and
the status line. Each view has a data function (what --json prints) and a render function drawing
exactly that data."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import UsageError
from pbem.ruleset import Decision, View

from . import charts, impulses, position, readiness, stacking, supply
from . import world as worlds
from .situation import NEUTRAL
from .state import WifState


def standing(state: WifState) -> str:
    if state.impulse > state.impulses:
        return f"all {state.impulses} impulses played"
    return f"impulse {state.impulse} of {state.impulses} ({state.side}); {len(state.destroyed)} units destroyed"


def impulse_data(state: WifState, options: Mapping[str, bool]) -> dict:
    supplied = readiness.supplied(state, options)
    units = {name: {"country": u["country"], "kind": position.facts(state, name)["kind"],
                    "where": u.get("hex") or u["sea"], "face_up": u["face_up"], "supplied": supplied[name],
                    "emergency": any(name in given for given in state.emergency.values())}
             for name, u in state.units.items()}
    return {"impulse": state.impulse, "impulses": state.impulses, "side": state.side,
            "acting": _deciding(state, options), "last": state.last.get("text", ""), "units": units,
            "destroyed": state.destroyed, "attack": state.attack, "retreat": state.retreat,
            "overstack": state.overstack, "emergency": state.emergency}


def _deciding(state: WifState, options: Mapping[str, bool]) -> str:
    """The player the game waits for, "" when dice are due or it is over."""
    asked = impulses.pending(state, options)
    return asked.players[0] if isinstance(asked, Decision) else ""


def render_impulse(data: dict):
    from rich.console import Group
    from rich.table import Table

    from pbem.report import literal

    if data["impulse"] > data["impulses"]:
        title = f"All {data['impulses']} impulses played"
    else:
        title = f"Impulse {data['impulse']} of {data['impulses']}: the {data['side']}" + (
            f", {data['acting']} to act" if data["acting"] else "")
    table = Table(title=literal(title), title_justify="left")
    for column in ("unit", "country", "kind", "where", "face", "supply"):
        table.add_column(column)
    for name, u in data["units"].items():
        supply_word = "emergency" if u["emergency"] else "in" if u["supplied"] else "OUT"
        table.add_row(*(literal(str(v)) for v in (name, u["country"], u["kind"], u["where"],
                                                   "up" if u["face_up"] else "down", supply_word)))
    lines = [literal(f"last: {data['last']}")] if data["last"] else []
    if data["destroyed"]:
        lines.append(literal(f"destroyed: {', '.join(data['destroyed'])}"))
    return Group(table, *lines)


def hex_data(state: WifState, options: Mapping[str, bool], name: str) -> dict:
    if not name:
        raise UsageError("show hex needs a hex: its name or id (pbem show hex warsaw)", field="hex")
    world = worlds.for_options(options)
    where = worlds.hex_named(world, name)
    text = world.ids[where]
    situation = position.situation(state, dict(options))
    present = sorted(u for u, facts in state.units.items() if facts.get("hex") == text)
    zoc_by = {side: where in supply.enemy_zoc(situation, other) for side, other in (("axis", "allies"),
                                                                                    ("allies", "axis"))}
    kinds = [position.facts(state, u)["kind"] for u in present]
    return {"hex": text, "name": next((n for n, i in world.names.items() if i == where), ""),
            "terrain": world.terrain[where], "country": world.country[where], "counts": world.scale[where],
            "off_map": world.offmap(where), "controller": situation.controller(where),
            "held_this_turn": state.held.get(text, []), "units": present,
            "zoc_of": [side for side, inside in zoc_by.items() if inside],
            "stacking": {"land": [sum(k in stacking.kinds.LAND for k in kinds), stacking.land_limit(world, where)],
                         "aircraft": [sum(k in stacking.kinds.AIR for k in kinds),
                                      stacking.aircraft_limit(world, where, kinds, options)],
                         "naval": [sum(k in stacking.kinds.SHIPS for k in kinds),
                                   stacking.naval_limit(world, where, options, _friendly_port(situation, where))]},
            "neighbours": [world.ids[n] for n in world.neighbours[where]]}


def _friendly_port(situation, where: int) -> bool:
    """A port counts as friendly to the side controlling it, a neutral's to nobody (2.3.1)."""
    return situation.side_of(situation.controller(where)) != NEUTRAL if situation.controller(where) else False


def render_hex(data: dict):
    from pbem.report import literal

    land, air, naval = data["stacking"]["land"], data["stacking"]["aircraft"], data["stacking"]["naval"]
    lines = [f"{data['hex']}" + (f" ({data['name']})" if data["name"] else "") + f": {data['terrain']}, "
             f"{data['country'] or 'no country'}, counts {data['counts']}" + (", off-map" if data["off_map"] else ""),
             f"controlled by {data['controller'] or 'nobody'}"
             + (f"; held this turn by {', '.join(data['held_this_turn'])}" if data["held_this_turn"] else ""),
             f"units: {', '.join(data['units']) or 'none'}",
             f"in the ZOC of the {' and the '.join(data['zoc_of'])}" if data["zoc_of"] else "in no ZOC",
             f"stacking (2.3.1): land {land[0]} of {land[1]}, aircraft {air[0]} of {air[1]}, naval {naval[0]} of "
             f"{'no limit' if naval[1] is None else naval[1]}",
             f"adjacent: {', '.join(data['neighbours'])}"]
    return literal("\n".join(lines))


def supply_data(state: WifState, options: Mapping[str, bool], power: str = "") -> dict:
    situation = position.situation(state, dict(options))
    supplied = readiness.supplied(state, options)
    power = power.strip().lower()
    found = {}
    for name, u in state.units.items():
        if power and power not in (u["country"], situation.major_of(u["country"])):
            continue
        unit = position.unit(state, name)
        found[name] = {"supplied": supplied[name], "at_sea": bool(unit.sea),
                       "emergency": any(name in given for given in state.emergency.values()),
                       "length": 0 if unit.sea else charts.path_length(situation.weather_at(unit.hex)),
                       "path": [] if unit.sea else supply.explain(situation, unit)}
    if power and not found:
        known = sorted({*situation.sides, *(u["country"] for u in state.units.values())})
        raise UsageError(f"no unit of {power!r} (powers and countries: {', '.join(known)})", field="power")
    return {"power": power, "units": found}


def render_supply(data: dict):
    from pbem.report import literal

    lines = []
    for name, u in data["units"].items():
        if u["at_sea"]:
            lines.append(f"{name}: at sea, always in supply (2.4.1)")
            continue
        word = "in supply" if u["supplied"] and not u["emergency"] else "emergency supply" if u["emergency"] else \
            f"OUT OF SUPPLY: no supply path of {u['length']} hexes or less (2.4.2)"
        lines.append(f"{name}: {word}")
        lines += [f"  {_step_line(step)}" for step in u["path"]]
    return literal("\n".join(lines) or "no units")


def _step_line(step: dict) -> str:
    notes = [step["path"], "at sea" if step["at_sea"] else f"counts {step['counts']}"]
    source = f"  <- {step['source']} source" if step["source"] else ""
    named = f" {step['name']}" if step["name"] else ""
    return f"{step['place']}{named} ({', '.join(notes)}){source}"


def sea_data(state: WifState, options: Mapping[str, bool], name: str) -> dict:
    world = worlds.for_options(options)
    if not name:
        raise UsageError("show sea needs a sea area: pbem show sea black_sea", field="sea")
    if name not in world.seas:
        import difflib

        near = difflib.get_close_matches(name, list(world.seas), n=1)
        raise UsageError(f"no sea area {name!r}" + (f"; did you mean {near[0]}?" if near else ""), field="sea")
    sea = world.seas[name]
    situation = position.situation(state, dict(options))
    return {"sea": name, "name": sea.name, "units": sorted(u for u, f in state.units.items() if f.get("sea") == name),
            "adjacent": sorted(sea.neighbours), "ports": sorted(world.ids[p] for p in sea.ports),
            "open_to": [side for side in ("axis", "allies") if supply.sea_open(situation, name, side)]}


def render_sea(data: dict):
    from pbem.report import literal

    return literal("\n".join([f"{data['name']} ({data['sea']})",
                              f"units in its sea-box: {', '.join(data['units']) or 'none'}",
                              f"adjacent: {', '.join(data['adjacent']) or 'none'}",
                              f"ports: {', '.join(data['ports']) or 'none'}",
                              f"open to overseas supply for: {', '.join(data['open_to']) or 'nobody'} (2.4.2)"]))


def all_views(state: WifState, options: Mapping[str, bool]) -> Mapping[str, View]:
    return {
        "impulse": View("the impulse: who acts, the last action, every unit with where it is, its face and supply",
                        lambda: impulse_data(state, options), render_impulse),
        "hex": View("one hex: terrain, country, control (and who held it this turn), units, whose ZOC, stacking",
                    lambda *words: hex_data(state, options, " ".join(words)), render_hex),
        "supply": View("each unit's supply (of one power if named): its path hex by hex with what each counts, "
                       "the railway paths of its secondary sources, the overseas leg",
                       lambda power="": supply_data(state, options, power), render_supply),
        "sea": View("one sea area: the units in its sea-box, adjacent areas, ports, whom it is open to",
                    lambda name="": sea_data(state, options, name), render_sea),
    }
