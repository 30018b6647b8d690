"""`pbem show tracks`, `pbem show combat [N]` and `pbem show cards` for Paths of Glory: the record
tracks, the turn's combats step by step, and the combat cards' public zones. Each view has a data
function (what --json prints) and a render function drawing exactly that data."""

from __future__ import annotations

from pbem.errors import UsageError

from . import war
from .replacements import rp_types
from .state import PogState

SIDES = ("ap", "cp")


def tracks_data(state: PogState) -> dict:
    """VP, both war statuses and the combined one, commitment, the SoE tracks and boxes, the CP
    Russian VP, RPs, MOs, turn, round and rounds in the turn, and each side's Action Chart."""
    return {
        "turn": state.turn, "turn_label": state.turn_label, "round": state.round,
        "rounds": war.rounds_per_turn(state), "active": state.active,
        "vp": war.track(state, "vp"),
        "war_status": {side: state.war_status[side] for side in SIDES},
        "combined_war_status": war.combined_war_status(state),
        "commitment": {side: state.commitment[side] for side in SIDES},
        "br_us_involvement": war.track(state, "br_us_involvement"),
        "russian_turmoil": war.track(state, "russian_turmoil"),
        "cp_russian_vp": war.track(state, "cp_russian_vp"),
        "us_entry": war.box(state, "us_entry"),
        "russian_capitulation": war.box(state, "russian_capitulation"),
        "rp": {side: {rp: war.track(state, f"rp_{rp}") for rp in rp_types(side)} for side in SIDES},
        "mandated_offensives": {side: state.mo.get(side, "not rolled") for side in SIDES},
        "action_chart": {side: list(state.chart.get(side, [])) for side in SIDES},
    }


def render_tracks(data: dict):
    from rich.table import Table

    from pbem.report import literal

    table = Table(title=literal(f"Tracks: {data['turn_label']} (turn {data['turn']}), round {data['round']} "
                                f"of {data['rounds']}, {data['active'].upper()} to act"), title_justify="left")
    table.add_column("track")
    table.add_column("Allied Powers")
    table.add_column("Central Powers")
    table.add_row("VP", literal(str(data["vp"])), "")
    table.add_row("war status", *(literal(str(data["war_status"][side])) for side in SIDES))
    table.add_row("combined war status", literal(str(data["combined_war_status"])), "")
    table.add_row("commitment", *(literal(data["commitment"][side]) for side in SIDES))
    table.add_row("mandated offensive", *(literal(data["mandated_offensives"][side]) for side in SIDES))
    table.add_row("BR entry / US involvement", literal(f"{data['br_us_involvement']} ({data['us_entry']})"), "")
    table.add_row("Russian turmoil", "", literal(f"{data['russian_turmoil']} ({data['russian_capitulation']})"))
    table.add_row("CP Russian VP", "", literal(str(data["cp_russian_vp"])))
    table.add_row("RPs", *(literal(", ".join(f"{rp.upper()} {n}" for rp, n in data["rp"][side].items()))
                           for side in SIDES))
    table.add_row("action chart (8.1.8)", *(literal(", ".join(f"{i}: {name}" for i, name in
                                                              enumerate(data["action_chart"][side], 1)) or "—")
                                             for side in SIDES))
    return table


def combat_data(state: PogState, number: str | None = None) -> dict:
    """The turn's combat `number` (1 is the first; none given: the last, or the one under way)."""
    combats = [*state.combats, *([state.action["combat"]] if state.action.get("combat") else [])]
    if not combats:
        raise UsageError(f"no combat has been fought in turn {state.turn} yet", field="N")
    if number is None:
        return {"number": len(combats), "of": len(combats), **combats[-1]}
    if not number.isdigit() or not 1 <= int(number) <= len(combats):
        raise UsageError(f"combat N is 1 to {len(combats)} this turn, not {number!r}", field="N")
    return {"number": int(number), "of": len(combats), **combats[int(number) - 1]}


def render_combat(data: dict):
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    lines = [literal(f"Combat {data['number']} of {data['of']} this turn: {data['side'].upper()} attacks "
                     f"{data['space']} from {', '.join(data['attack_spaces'])}", "bold"),
             literal(f"attackers: {', '.join(data['attackers'])}"),
             literal(f"defenders: {', '.join(data['defenders']) or 'none (a fort alone)'}")]
    if "flank" in data:
        flank = data["flank"]
        roll = "no die" if flank["die"] is None else f"die {flank['die']}{flank['drm']:+d}"
        lines.append(literal(f"flank attack pinned from {data['pinning']}: {roll}, "
                             f"{'succeeds' if flank['success'] else 'fails'} ({'; '.join(flank['reasons'])})"))
    for role, names in data.get("cards", {}).items():
        lines.append(literal(f"{role}'s combat cards: {', '.join(names)}"))
    for role, names in data.get("markers", {}).items():
        lines.append(literal(f"events helping the {role}: {', '.join(names)}"))
    for who in ("attacker", "defender"):
        fire = data.get(f"{who}_fire")
        if fire:
            why = "; ".join(fire["reasons"]) or "nothing"
            lines.append(literal(f"{who}: {fire['strength']} on the {fire['table']} table, shift {fire['shift']:+d} "
                                 f"and DRM {fire['drm']:+d} ({why}), column {fire['label']}, die "
                                 f"{fire['die']}{fire['drm']:+d}: loss number {fire['loss_number']}"))
    lines += [literal(f"supply: {reason}", "dim") for reason in data.get("supply_reasons", [])]
    lines += [literal(f"· {line}") for line in data["log"]]
    if data.get("step") != "done":
        lines.append(Text(f"under way: {data['step']}", style="warn"))
    return Group(*lines)


def cards_data(state: PogState) -> dict:
    """The public card zones (base 9.5.4.2-9.5.4.5, R84), each side's hand and pile sizes (R92),
    the events in effect that act in combats (R88) and every other event in effect."""
    from .cards import catalogue, label
    from .combat_cards import markers

    def named(zone: str) -> list[str]:
        return [label(card) if card in catalogue() else card for card in state.cards.get(zone, [])]

    zones = {f"{side}_{where}": named(f"{side}_{where}") for side in SIDES for where in ("front", "discard")}
    acting = sorted({m.get("event", name) for name, m in markers().items() if m.get("event", name) in state.events})
    sizes = {side: {"hand": counts["hand"], "pile": counts["pile"]} for side, counts in sorted(state.hands.items())}
    in_effect = sorted(e for e in state.events if ":" not in e and e not in acting)  # not results or records
    return {**zones, "sizes": sizes, "removed": named("removed"), "used_this_round": named("round_used"),
            "used_this_turn": named("turn_used"), "combat_events": acting, "events_in_effect": in_effect}


def render_cards(data: dict):
    from rich.table import Table

    from pbem.report import literal

    sizes = {f"{side}_sizes": [f"{n['hand']} in hand, {n['pile']} in the pile"] for side, n in data["sizes"].items()}
    data = {**data, **sizes}
    rows = (("Allied hand and pile", "ap_sizes"), ("Central Powers hand and pile", "cp_sizes"),
            ("Allied cards kept in front (9.5.4.2)", "ap_front"), ("Central Powers cards kept in front", "cp_front"),
            ("Allied discard pile", "ap_discard"), ("Central Powers discard pile", "cp_discard"),
            ("removed from the game", "removed"), ("used this action round (9.5.4.4)", "used_this_round"),
            ("once-a-turn cards used this turn", "used_this_turn"), ("events acting in combats", "combat_events"),
            ("other events in effect", "events_in_effect"))
    table = Table(title="Cards and events", title_justify="left")
    table.add_column("zone")
    table.add_column("cards")
    for label, key in rows:
        table.add_row(label, literal(", ".join(data.get(key, [])) or "—"))
    return table


def render_hand(data: dict):
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    if not data["dealt"]:
        return Text("The hands are dealt at the roll point of the Central Powers' first entry (base 4.3).")
    lines = []
    for side, mine in data["yours"].items():
        lines.append(literal(f"Your hand ({side.upper()}): {', '.join(mine['hand']) or 'empty'}"))
        if mine["looking"]:
            lines.append(literal(f"Looking at (keep one: keep card=...): {', '.join(mine['looking'])}"))
        if mine.get("selection"):  # R119
            added, removed = (", ".join(mine["selection"][key]) or "none" for key in ("add", "remove"))
            lines.append(literal(f"Your optional cards: {added}; out of the game for them: {removed}"))
    if not data["yours"]:
        lines.append(Text("No hand of yours on this machine (your key holds it).", style="dim"))
    for side, counts in data["counts"].items():
        if counts:
            lines.append(literal(f"{side.upper()}: {counts['hand']} cards in hand (at most {counts['limit']}), "
                                 f"{counts['pile']} in the pile"))
    return Group(*lines)
