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

    if not name:
        raise UsageError("name an area: pbem show area Vienna", field="area")
    area = geography.area_named(name)
    facts = geography.areas()[area]
    territory = facts["territory"]
    return {"area": area, **facts, "home": geography.territories()[territory].get("home"),
            "held_by": state.control.get(territory), "forces": state.forces.get(area, {}),
            "borders": [{"to": other, "crossing": kind} for other, kind in geography.neighbours(area)]}


def render_area(data: dict):
    from rich.console import Group

    from pbem.report import literal

    marks = "".join(f", {word}" for word in ("city", "depot") if data.get(word))
    forces = ", ".join(f"{power} {strength}" for power, strength in data["forces"].items()) or "none"
    borders = ", ".join(b["to"] + (f" ({b['crossing']})" if b["crossing"] else "") for b in data["borders"])
    return Group(literal(f"{data['name']} ({data['area']}): {data['terrain']}{marks}"),
                 literal(f"territory {data['territory']}" + (f", home of {data['home']}" if data["home"] else "")
                         + f"; held by {data['held_by'] or 'nobody (a free minor)'}"),
                 literal(f"forces: {forces}"), literal(f"borders: {borders}"))


def all_views(state: EiaState, commands: dict[str, list[str]]) -> Mapping[str, View]:
    return {
        "powers": View("each major power: player's or UMP (active, inactive, neutral), controller, PP, money",
                       lambda: powers_data(state), render_powers),
        "diplomacy": View("the last UMP Control Step: every overture's dice and modifiers, and the voided ones",
                          lambda: diplomacy_data(state), render_diplomacy),
        "area": View("one area of the sample map: terrain, territory, who holds it, forces, borders",
                     lambda name="": area_data(state, name), render_area),
        "victory": View("who may announce victory now, with a power or an UMP it controls (14.3.9)",
                        lambda: victory_data(state, commands), render_victory),
    }
