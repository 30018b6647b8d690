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


def _landwehr(power) -> str:
    """12.11.3: active, or once active (the German Confederation penalty stays, 12.11.3.1)."""
    return "active" if power.landwehr else "once" if power.landwehr_ever else ""


def powers_data(state: EiaState) -> dict:
    return {"turn": state.turn, "powers": {name: {"status": p.status, "pp": p.pp, "money": p.money,
                                                  "manpower": p.manpower, "vp": p.vp, "controller": p.controller,
                                                  "last_controller": p.last_controller, "landwehr": _landwehr(p)}
                                           for name, p in state.powers.items()},
            "wars": state.wars, "alliances": state.alliances, "surrendered": state.surrendered,
            "militia_conversions": state.conversions}


def render_powers(data: dict):
    from rich.table import Table

    from pbem.report import literal

    table = Table(title=literal(f"Major powers ({_when(data['turn'])})"), title_justify="left")
    for column in ("power", "status", "controlled by", "PP", "money", "manpower", "VP", "last controller",
                   "landwehr"):
        table.add_column(column)
    for name, p in data["powers"].items():
        table.add_row(*(literal(str(value)) for value in (name, p["status"], p["controller"] or "—", p["pp"],
                                                          f"${p['money']}", p["manpower"], p["vp"],
                                                          p["last_controller"] or "—", p["landwehr"] or "—")))
    if not data["militia_conversions"]:
        return table
    from rich.console import Group

    converted = "; ".join(f"{c['power']}: {c['infantry']} infantry of {c['corps']} into {3 * c['infantry']} militia "
                          f"in {c['city']}" for c in data["militia_conversions"])
    return Group(table, literal(f"before the game (12.11.2): {converted}"))


def diplomacy_data(state: EiaState) -> dict:
    return {"last_control": state.last_control, "voided": state.voided, "last_economic": state.last_economic,
            "informal_peace": state.informal_peace, "peace": state.peace}


def _peace_lines(record: dict) -> list[str]:
    """This turn's tries to force an UMP to sue (14.3.3.8)."""
    lines = []
    for result in record.get("results", []):
        made = ", ".join(f"{kind} peace with {enemy}" for enemy, kind in result.get("peace", []))
        lines.append(f"peace step, turn {record['turn']}: {result['power']} forces {result['ump']} to sue: die "
                     f"{result['die']} against {result['above']}: " + (f"it sues: {made}" if result["sues"] else
                                                                       "it fights on") + " (14.3.3.8)")
    return lines


def _economic_lines(record: dict) -> list[str]:
    """The last New Political Combinations step and loss rolls (12.11.3, 10.5.2)."""
    if not record:
        return []
    lines = [f"New Political Combinations, turn {record['turn']}:"]
    lines += [f"  {d['power']}'s landwehr {'activated' if d['active'] else 'deactivated'} by {d['player']} "
              "(2 PP, 12.11.3)" for d in record["landwehr"]]
    lines += [f"  voided: {v['player']}'s order {v['order']} ({v['rule']}: {v['why']})" for v in record["voided"]]
    gained = ", ".join(f"{power} +{amount}" for power, amount in record.get("manpower", {}).items())
    lines += [f"  manpower (E28, 12.10): {gained}"] if gained else []
    lines += [f"  {loss['power']} ({loss['zone']}) economic loss: die {loss['die']}"
              + (f", landwehr -1 = {loss['modified']}" if "landwehr" in loss else "") + f": ${loss['money']} (10.5.2)"
              for loss in record["losses"]]
    return lines if len(lines) > 1 else [*lines, "  no landwehr decision, no loss roll"]


def render_diplomacy(data: dict):
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    control = data["last_control"]
    if not control:
        return Text("No UMP Control Step has been rolled yet.")
    lines = [literal(f"informal peace (14.3.3.9): {' and '.join(pair)}") for pair in data["informal_peace"]]
    lines += [literal(line) for line in _peace_lines(data["peace"])]
    lines.append(literal(f"UMP Control Step, {_when(control['turn'])}"))
    for ump, result in control["umps"].items():
        lines.append(literal(f"{ump}: {result['status']}" + (f", to {result['winner']}" if "winner" in result else "")))
        for roll in result["rolls"]:
            mods = ", ".join(f"{name} {value:+d}" for name, value in roll["modifiers"].items()) or "no modifier"
            lines.append(literal(f"  {roll['power']}: dice {roll['dice'][0]}+{roll['dice'][1]}, {mods}: "
                                 f"{roll['total']}"))
        for faces in result.get("rolloff", []):
            lines.append(literal("  roll-off: " + ", ".join(f"{power} {die}" for power, die in faces.items())))
        back = result.get("back_from_neutral", {})
        if "neutral_phases" in back:
            lines.append(literal(f"  back from {back['neutral_phases']} neutral phase(s): ${back['money']}, "
                                 f"{back['manpower']} manpower"))
        if back.get("set_up"):
            placed = ", ".join(f"{name} in {area}" for name, area in back["set_up"].items())
            lines.append(literal(f"  set up again (14.3.3.5): {placed}"))
    for voided in data["voided"]:
        lines.append(literal(f"voided: {voided['player']}'s order {voided['order']} ({voided['rule']}: "
                             f"{voided['why']})"))
    lines += [literal(line) for line in _economic_lines(data["last_economic"])]
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
            "overrun": state.overrun, "log": state.land_log, "last_phase": state.last_phase,
            "attack_minus": state.attack_minus,
            "prisoners": state.prisoners,
            "units": {name: {"power": u.power, "kind": u.kind, "area": u.area, "strength": u.strength, "mp": u.mp,
                             "stopped": u.stopped} for name, u in state.corps.items()},
            "leaders": {name: leader.area for name, leader in state.leaders.items()}}


def _battle_line(event: dict) -> str:
    sides = event["powers"]
    head = (f"battle in {event['area']}: {sides['attacker']} ({event['strength']['attacker']}) attacks "
            f"{sides['defender']} ({event['strength']['defender']})")
    if event["trivial"]:
        head += ", 5 to 1 or more: trivial combat (12.3.9.1)"
    options = event.get("options", {})
    if options:
        head += f"; options {options.get('attacker', '-')} against {options.get('defender', '-')}"
    for check in event.get("check_log", []):
        head += (f"; the {check['side']} stands" if check.get("stood") else
                 f"; {check['side']}'s tactics check {check['die']} against {check['rating']}: "
                 + (f"passed, {check['option']}" if check["passed"] else "failed"))
    for side, roll in event.get("rolls", {}).items():
        mods = "".join(f" {name} {value:+d}" for name, value in roll["modifiers"].items())
        head += f"; {side} die {roll['die']}{mods} = {roll['total']}"
    losses = ", ".join(f"{side} {lost}" for side, lost in event.get("losses", {}).items())
    head += f"; losses: {losses or 'none'}; the {event['loser']} loses"
    if "surrendered" in event:
        return head + " and surrenders, with no area to retreat into"
    return head + (f" and retreats to {event['retreat']}" if "retreat" in event else "")


def _event_line(event: dict) -> str:
    if event["event"] == "battle":
        return _battle_line(event)
    if event["event"] == "plan":
        voided = "; ".join(f"{v['player']}'s order {v['order']} voided ({v['rule']}: {v['why']})"
                           for v in event["voided"])
        return "the sealed moves and policies are carried out (planned reactions)" + (f"; {voided}" if voided else "")
    if event["event"] == "overrun":
        fates = ", ".join(f"{p} chose {f}" for p, f in event.get("fates", {}).items())
        return (f"overrun in {event['area']}: {event['attack']} against {event['defence']}, "
                + ("5 to 1: swept" + (f" ({fates})" if fates else "") if event["success"] else
                   "under 5 to 1: the movers stop and attack at -1 (12.3.9.5)"))
    who = event["leader"] or ", ".join(event["corps"])
    if event.get("automatic"):
        return (f"{event['event']} by {who} ({event['power']}) from {event['from']} to {event['to']}: cavalry alone, "
                "entered by infantry or beside it, withdraws at will (12.3.7.4.2.1)")
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
    last = data["last_phase"]
    if last and last["log"]:
        lines.append(literal(f"the last land phase with events, {last['power']}'s in {_when(last['turn'])}:"))
        lines += [literal("  " + _event_line(event)) for event in last["log"]]
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
        "diplomacy": View("the last UMP Control Step (every overture's dice and modifiers, the voided ones), the "
                          "last landwehr decisions and economic loss rolls, and informal peace",
                          lambda: diplomacy_data(state), render_diplomacy),
        "area": View("one area of the sample map: terrain, territory, who holds it, forces, borders",
                     lambda name="": area_data(state, name), render_area),
        "land": View("the land phase: whose it is, the move waiting for reactions, each reaction and overrun "
                     "with its die, and every unit with its movement points",
                     lambda: land_data(state), render_land),
        "victory": View("who may announce victory now, with a power or an UMP it controls (14.3.9)",
                        lambda: victory_data(state, commands), render_victory),
    }
