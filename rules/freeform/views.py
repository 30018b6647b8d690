"""Terminal views of a freeform game (rich renderables)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from pbem.report import literal, plain

from ..common import tables


def state_view(state: dict):
    info = Table.grid(padding=(0, 2))
    info.add_column(style="bold")
    info.add_column()
    info.add_row("Turn", literal(state["turn"]))
    if state["result"] is not None:
        info.add_row("Result", literal(state["result"], "bold green"))
    elif state["pending_roll"]:
        roll = state["pending_roll"]
        info.add_row("Rolling", literal(f"{roll['dice']} for {roll['player']}: {roll['purpose']}"))
    else:
        info.add_row("Step", literal(state["next"]))
    if state["resigned"]:
        info.add_row("Resigned", literal(", ".join(state["resigned"])))
    parts: list[Table | Text] = [info]
    if state["counters"]:
        counters = Table(title="Counters", title_justify="left")
        counters.add_column("counter")
        counters.add_column("value", justify="right")
        for name, value in sorted(state["counters"].items()):
            counters.add_row(literal(name), literal(value))
        parts.append(counters)
    if state["last_roll"]:
        roll = state["last_roll"]
        line = Text.assemble(
            ("Last roll: ", "bold"), plain(f"{roll['player']} rolled {roll['dice']} for {roll['purpose']!r}: "),
            (" ".join(map(str, roll["faces"])), "cyan"), " = ", (str(roll["total"]), "bold cyan"),
        )
        if "outcome" in roll:
            line.append(plain(f"  → {roll['table']}: {roll['outcome']}"), style="magenta")
        parts.append(line)
    if state.get("sealed"):
        parts.append(literal(f"Sealed round open: {', '.join(state['sealed']['players'])} choose "
                             f"({state['sealed']['purpose']})"))
    if state.get("last_sealed"):
        parts.append(_last_sealed(state["last_sealed"]))
    return Group(*parts)


def _last_sealed(last: dict) -> Text:
    """The last sealed round: every member's choice, an abstention, or his voided orders with the rule."""
    shown = []
    for player, choice in last["choices"].items():
        if player in last["voided"]:
            shown.append(f"{player} voided ({last['voided'][player]})")
        else:
            shown.append(f"{player} {choice}" if choice is not None else f"{player} abstains")
    return Text.assemble(("Last sealed round: ", "bold"), plain(f"{last['purpose']}: " + " · ".join(shown)))


def tables_data(state) -> dict:
    """Each charter table as rows [low, high, result]; open ends as null."""
    data = {}
    for name, table in sorted(state.setup.tables.items()):
        if name == "deck":  # cards, not die ranges: shown by 'pbem show hand'
            continue
        rows = []
        for low, high, result in tables.ranges(table):
            rows.append([None if low <= -(2**63) else low, None if high >= 2**63 else high, result])
        data[name] = rows
    return data


def tables_view(data: dict):
    if not data:
        return Text("This charter has no tables.")
    parts = []
    for name, rows in data.items():
        grid = Table(title=literal(name), title_justify="left")
        grid.add_column("roll", justify="right")
        grid.add_column("result")
        for low, high, result in rows:
            if low == high:
                label = str(low)
            elif high is None:
                label = f"{low}+"
            elif low is None:
                label = f"{high} or less"
            else:
                label = f"{low}-{high}"
            grid.add_row(label, literal(result))
        parts.append(grid)
    return Group(*parts)


def hand_view(data: dict):
    """Your hand and pile where your key is; everyone's counts and the cards played."""
    parts: list = []
    for player, mine in data["yours"].items():
        parts.append(Text.assemble((f"{player}'s hand: ", "bold"), plain(", ".join(mine["hand"]) or "(empty)"),
                                   plain(f"  ({mine['pile']} in the pile)")))
    if not data["yours"]:
        parts.append(Text("Your hand is derived from your key: run this where your key and game directory are.",
                          style="dim"))
    counts = Table(title="Cards held", title_justify="left")
    counts.add_column("player")
    counts.add_column("hand", justify="right")
    counts.add_column("pile", justify="right")
    for player, held in data["counts"].items():
        counts.add_row(literal(player), literal(held["hand"]), literal(held["pile"]))
    parts.append(counts)
    if data["played"]:
        parts.append(Text.assemble(("Played: ", "bold"), plain("; ".join(f"{p['player']} {p['card']}"
                                                                         for p in data["played"]))))
    return Group(*parts)
