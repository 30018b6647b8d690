"""`pbem show powers` and `pbem show diplomacy` for Empires in Arms, and the status line. Each view
has a data function (what --json prints) and a render function drawing exactly that data."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.ruleset import View

from .state import PLAYER, EiaState


def _when(turn: int) -> str:
    return "before the game" if turn == 0 else f"turn {turn}"


def standing(state: EiaState) -> str:
    when = _when(state.turn)
    umps = [f"{name} {p.status}" + (f" ({p.controller})" if p.controller else "")
            for name, p in state.powers.items() if p.status != PLAYER]
    return f"{when}; UMPs: {', '.join(umps) or 'none'}"


def powers_data(state: EiaState) -> dict:
    return {"turn": state.turn, "powers": {name: {"status": p.status, "pp": p.pp, "money": p.money,
                                                  "manpower": p.manpower, "vp": p.vp, "controller": p.controller,
                                                  "last_controller": p.last_controller}
                                           for name, p in state.powers.items()},
            "wars": state.wars, "alliances": state.alliances, "surrendered": state.surrendered}


def render_powers(data: dict):
    from rich.table import Table

    from pbem.report import literal

    table = Table(title=literal(f"Major powers ({_when(data['turn'])})"), title_justify="left")
    for column in ("power", "status", "controlled by", "PP", "money", "manpower", "VP", "last controller"):
        table.add_column(column)
    for name, p in data["powers"].items():
        table.add_row(*(literal(str(value)) for value in (name, p["status"], p["controller"] or "—", p["pp"],
                                                          f"${p['money']}", p["manpower"], p["vp"],
                                                          p["last_controller"] or "—")))
    return table


def diplomacy_data(state: EiaState) -> dict:
    return {"last_control": state.last_control, "voided": state.voided}


def render_diplomacy(data: dict):
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    control = data["last_control"]
    if not control:
        return Text("No UMP Control Step has been rolled yet.")
    lines = [literal(f"UMP Control Step, {_when(control['turn'])}")]
    for ump, result in control["umps"].items():
        lines.append(literal(f"{ump}: {result['status']}" + (f", to {result['winner']}" if "winner" in result else "")))
        for roll in result["rolls"]:
            mods = ", ".join(f"{name} {value:+d}" for name, value in roll["modifiers"].items()) or "no modifier"
            lines.append(literal(f"  {roll['power']}: dice {roll['dice'][0]}+{roll['dice'][1]}, {mods}: "
                                 f"{roll['total']}"))
        for faces in result.get("rolloff", []):
            lines.append(literal("  roll-off: " + ", ".join(f"{power} {die}" for power, die in faces.items())))
        back = result.get("back_from_neutral")
        if back:
            lines.append(literal(f"  back from {back['neutral_phases']} neutral phase(s): ${back['money']}, "
                                 f"{back['manpower']} manpower"))
    for voided in data["voided"]:
        lines.append(literal(f"voided: {voided['player']}'s order {voided['order']} ({voided['rule']}: "
                             f"{voided['why']})"))
    return Group(*lines)


def victory_data(state: EiaState, commands: dict[str, list[str]]) -> dict:
    from .victory import claims

    return {"claims": claims(state, commands), "must_accept_peace": state.must_accept_peace}


def render_victory(data: dict):
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    lines = []
    for claim in data["claims"]:
        via = (f" with {claim['ump']} ({claim['ump_vp']} VP, level {claim['ump_level']})" if "ump" in claim else "")
        lines.append(literal(f"{claim['player']} may announce victory: {claim['power']}{via}, {claim['vp']} VP "
                             f"against {claim['level']} (14.3.9)"))
    if not lines:
        lines.append(Text("Nobody may announce victory now."))
    if data["must_accept_peace"]:
        umps = ", ".join(data["must_accept_peace"])
        lines.append(literal(f"to accept any peace terms at the next peace step: {umps} (14.3.6.1a)"))
    return Group(*lines)


def area_data(state: EiaState, name: str = "") -> dict:
    from pbem.errors import UsageError

    from . import geography
    from .units import militia_morale

    if not name:
        raise UsageError("name an area: pbem show area Vienna", field="area")
    area = geography.area_named(name)
    facts = geography.areas()[area]
    territory = facts["territory"]
    return {"area": area, **facts, "home": geography.territories()[territory].get("home"),
            "held_by": state.control.get(territory), "forces": state.forces_in(area),
            "units": {name: {"power": u.power, "kind": u.kind, "factors": u.factors, "strength": u.strength,
                             "stopped": u.stopped,
                             **({"militia_morale": militia_morale(u.kind, state.powers[u.power].landwehr)}
                                if u.factors.get("militia") else {})}
                      for name, u in state.corps.items() if u.area == area},
            "leaders": [name for name, leader in state.leaders.items() if leader.area == area],
            "borders": [{"to": other, "crossing": kind} for other, kind in geography.neighbours(area)]}


def render_area(data: dict):
    from rich.console import Group

    from pbem.report import literal

    marks = "".join(f", {word}" for word in ("city", "depot") if data.get(word))
    forces = ", ".join(f"{power} {strength}" for power, strength in data["forces"].items()) or "none"
    borders = ", ".join(b["to"] + (f" ({b['crossing']})" if b["crossing"] else "") for b in data["borders"])
    units = ", ".join(f"{name} ({u['power']} {u['kind']} {u['strength']}"
                      + (f", militia morale {u['militia_morale'] / 10:g}" if "militia_morale" in u else "") + ")"
                      for name, u in data["units"].items())
    return Group(literal(f"{data['name']} ({data['area']}): {data['terrain']}{marks}"),
                 literal(f"territory {data['territory']}" + (f", home of {data['home']}" if data["home"] else "")
                         + f"; held by {data['held_by'] or 'nobody (a free minor)'}"),
                 literal(f"forces: {forces}" + (f": {units}" if units else "")),
                 literal(f"leaders: {', '.join(data['leaders']) or 'none'}"), literal(f"borders: {borders}"))


def land_data(state: EiaState) -> dict:
    return {"turn": state.turn, "step": state.step, "phasing": state.phasing, "movement": state.movement,
            "overrun": state.overrun, "log": state.land_log, "attack_minus": state.attack_minus,
            "prisoners": state.prisoners,
            "units": {name: {"power": u.power, "kind": u.kind, "area": u.area, "strength": u.strength, "mp": u.mp,
                             "stopped": u.stopped} for name, u in state.corps.items()},
            "leaders": {name: leader.area for name, leader in state.leaders.items()}}


def _event_line(event: dict) -> str:
    if event["event"] == "overrun":
        fates = ", ".join(f"{p} {f}" for p, f in event.get("fates", {}).items())
        return (f"overrun in {event['area']}: {event['attack']} against {event['defence']}, "
                + ("5 to 1: swept" + (f" ({fates})" if fates else "") if event["success"] else
                   "under 5 to 1: the movers stop and attack at -1 (12.3.9.5)"))
    who = event["leader"] or ", ".join(event["corps"])
    mods = "".join(f", {name} {value:+d}" for name, value in event["modifiers"].items())
    die = f"die {event['die']}" if "die" in event else "no die needed"
    return (f"{event['event']} by {who} ({event['power']}) from {event['from']} to {event['to']}: rating "
            f"{event['rating']}{mods}, needs {event['needed']} or less; {die}: "
            + ("done" if event["success"] else "failed"))


def render_land(data: dict):
    from rich.console import Group
    from rich.table import Table

    from pbem.report import literal

    lines = [literal(f"{_when(data['turn'])}, " + (f"{data['phasing']}'s land phase" if data["phasing"] else
                                                   f"step {data['step']}"))]
    move = data["movement"]
    if move:
        lines.append(literal(f"moving: {', '.join(move['units'] + move['leaders'])} in {move['area']}, "
                             f"waiting for reactions" + (f"; then {', '.join(move['rest'])}" if move["rest"] else "")))
    lines += [literal(_event_line(event)) for event in data["log"]]
    for area in data["attack_minus"]:
        lines.append(literal(f"{area}: the phasing forces attack at -1 (12.3.9.5)"))
    table = Table(title=literal("Units on the map"), title_justify="left")
    for column in ("unit", "power", "kind", "area", "strength", "MP left", "stopped"):
        table.add_column(column)
    for name, u in data["units"].items():
        table.add_row(*(literal(str(v)) for v in (name, u["power"], u["kind"], u["area"], u["strength"], u["mp"],
                                                  "yes" if u["stopped"] else "")))
    leaders = ", ".join(f"{name} ({area or 'off the map'})" for name, area in data["leaders"].items())
    return Group(*lines, table, literal(f"leaders: {leaders or 'none'}"))


def all_views(state: EiaState, commands: dict[str, list[str]]) -> Mapping[str, View]:
    return {
        "powers": View("each major power: player's or UMP (active, inactive, neutral), controller, PP, money",
                       lambda: powers_data(state), render_powers),
        "diplomacy": View("the last UMP Control Step: every overture's dice and modifiers, and the voided ones",
                          lambda: diplomacy_data(state), render_diplomacy),
        "area": View("one area of the sample map: terrain, territory, who holds it, forces, borders",
                     lambda name="": area_data(state, name), render_area),
        "land": View("the land phase: whose it is, the move waiting for reactions, each reaction and overrun "
                     "with its die, and every unit with its movement points",
                     lambda: land_data(state), render_land),
        "victory": View("who may announce victory now, with a power or an UMP it controls (14.3.9)",
                        lambda: victory_data(state, commands), render_victory),
    }
