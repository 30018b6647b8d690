"""What `pbem show` draws for Paths of Glory: the map by nation, one space, supply.

Each view has a data function (what --json prints) and a render function drawing that data.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NotRequired, TypedDict

from .data import UnknownSpace, slug
from .state import PogState

NATION_NAMES = {
    "br": "Britain", "fr": "France", "be": "Belgium", "ho": "Holland", "ge": "Germany", "ah": "Austria-Hungary",
    "it": "Italy", "ru": "Russia", "sb": "Serbia", "mn": "Montenegro", "al": "Albania", "gr": "Greece",
    "bu": "Bulgaria", "ro": "Romania", "tu": "Turkey", "pe": "Persia", "ar": "Arabia", "eg": "Egypt",
    "none": "Beach heads",
}


def space_data(state: PogState, space: str, units: list[str] | None = None) -> dict:
    """One space or box; `units`, if given, are the units in it (the map view finds them all at once)."""
    pog_map = state.map
    if units is None:
        units = state.units_in(space)
    if space in pog_map.boxes:
        box = pog_map.boxes[space]
        return {"id": space, "name": box.name, "box": True, "side": box.side,
                "units": [_unit_data(state, u) for u in units]}
    index = pog_map.index[space]
    data = {
        "id": space, "name": pog_map.name_of(space), "map": pog_map.map[index], "nation": pog_map.nation[index],
        "control": state.control[space], "terrain": pog_map.terrain[index], "neutral": state.neutral(space),
        "units": [_unit_data(state, u) for u in units],
        "connections": sorted(pog_map.ids[n] for n in pog_map.neighbours[index]),
    }
    if pog_map.vp[index]:
        data["vp"] = pog_map.vp[index]
    if space in state.forts:
        printed = pog_map.fort[index] or state.built_forts.get(space, 0)
        data["fort"] = {"strength": state.fort_strength(space) or printed, "state": state.forts[space]}
    if space in state.trenches:
        data["trench"] = state.trenches[space]
    if pog_map.source[index]:
        data["source"] = True
    if pog_map.port[index]:
        data["port"] = pog_map.port[index]
    if pog_map.capital[index]:
        data["capital"] = True
    if pog_map.offmap[index]:
        data["offmap"] = True  # 14.1.2 note: RO and SB units trace supply into these boxes
    return data


def _unit_data(state: PogState, unit: str) -> dict:
    facts = state.unit_facts[unit]
    where = state.units[unit]
    name = facts.name if not facts.name[0].isdigit() else f"{facts.nation.upper()} {facts.name}"
    data = {"id": unit, "name": name, "nation": facts.nation, "type": facts.type,
            "reduced": where.reduced,
            "factors": [facts.rcf, facts.rlf, facts.rmf] if where.reduced else [facts.cf, facts.lf, facts.mf]}
    if where.oos:
        data["oos"] = where.oos
    return data


def map_data(state: PogState, nation: str | None = None) -> dict:
    """Every space that holds something (units, a fort, a trench) or matters (VP), by nation."""
    pog_map = state.map
    placed: dict[str, list[str]] = {}  # the units in each space, found in one pass (as units_in sorts them)
    for unit in sorted(state.units):
        placed.setdefault(state.units[unit].space, []).append(unit)
    fronts: dict[str, list[dict]] = {}
    for index, space in enumerate(pog_map.ids):
        if nation and pog_map.nation[index] != nation:
            continue
        if not (space in placed or pog_map.vp[index] or space in state.forts or space in state.trenches or nation):
            continue
        fronts.setdefault(pog_map.nation[index], []).append(space_data(state, space, placed.get(space, [])))
    boxes = {box: [_unit_data(state, u) for u in placed.get(box, [])] for box in sorted(pog_map.boxes)}
    return {"turn": state.turn, "turn_label": state.turn_label, "at_war": sorted(state.at_war),
            "nations": fronts, "boxes": {k: v for k, v in boxes.items() if v}}


def _units_text(units: list[dict]):
    from rich.text import Text

    from pbem.safetext import plain

    text = Text()
    for unit in units:
        style = "bold" if unit["type"] == "army" else ""
        text.append(plain(unit["name"]) + ("·r" if unit["reduced"] else ""), style=style)
        if unit.get("oos"):
            text.append(f" OOS{unit['oos']}", style="bold red")
        text.append("  ")
    return text


def render_map(data: dict):
    """Every name shown is a Text: what the map and the orders hold is never read as rich markup."""
    from rich.console import Group
    from rich.text import Text

    from pbem.report import literal

    parts: list[Text | NationTable] = [literal(f"Turn {data['turn']}: {data['turn_label']}", "bold")]
    for nation, spaces in data["nations"].items():
        rows = []
        for space in spaces:
            fort = space.get("fort")
            fort_text = f"{fort['strength']} {fort['state']}" if fort else ""
            style = "blue" if space["control"] == "ap" else "red"
            rows.append((literal(space["name"] + (" ★" if space.get("vp") else "")),
                         literal(space["control"].upper(), style), literal(fort_text),
                         literal(space.get("trench", "")), _units_text(space["units"])))
        parts.append(NationTable(literal(NATION_NAMES.get(nation, nation)), rows))
    for box, units in data["boxes"].items():
        parts.append(Text.assemble(literal(box.replace("_", " "), "bold"), ": ", _units_text(units)))
    return Group(*parts)


class NationTable:
    """One nation's spaces, as `Table(title=…, show_edge=False)` draws them: the title, a bold header
    over a heavy rule, a space either side of each cell. Where the console is wide enough the lines
    are put out directly, at a fraction of the cost of a rich Table, whose cell-by-cell layout made
    the hundred rows of the map view the slowest part of `pbem show`; a narrower console gets the
    rich Table, which wraps the cells."""

    HEADERS = ("space", "ctrl", "fort", "trench", "units")

    def __init__(self, title, rows: list[tuple]) -> None:
        self.title = title
        self.rows = rows

    def __rich_console__(self, console, options):
        sizes = [[cell.cell_len for cell in row] for row in self.rows]
        widths = [max([len(header), *(size[i] for size in sizes)]) for i, header in enumerate(self.HEADERS)]
        width = sum(widths) + 3 * len(widths) - 1
        if width > options.max_width:
            yield self.table()
            return
        from rich.text import Text

        out = _Segments(console)
        out.add(self.title)
        out.plain(" " * (width - self.title.cell_len) + "\n")
        out.cells([Text(header, "table.header") for header in self.HEADERS], map(len, self.HEADERS), widths, "┃")
        out.plain("╇".join("━" * (width + 2) for width in widths) + "\n")
        for row, size in zip(self.rows, sizes, strict=True):
            out.cells(row, size, widths, "│")
        yield from out.done()

    def table(self):
        """The same as a rich Table."""
        from rich.table import Table

        table = Table(title=self.title, title_justify="left", show_edge=False)
        for column in self.HEADERS:
            table.add_column(column)
        for row in self.rows:
            table.add_row(*row)
        return table


class _Segments:
    """What a renderable puts out, in as few segments as can be: unstyled text runs into one."""

    def __init__(self, console) -> None:
        self.console = console
        self.segments: list = []
        self.pending: list[str] = []

    def plain(self, text: str) -> None:
        self.pending.append(text)

    def add(self, text) -> None:
        """A rich Text: one segment for a text in a single style (most cells), else as rich renders it."""
        if not text.style and not text.spans:
            self.pending.append(text.plain)
            return
        self._flush()
        if text.spans:
            self.segments.extend(text.render(self.console))
        else:
            from rich.segment import Segment

            self.segments.append(Segment(text.plain, self.console.get_style(text.style)))

    def cells(self, cells: Iterable, sizes: Iterable[int], widths: list[int], bar: str) -> None:
        """One line of a table: the cells (of these sizes) padded to the column widths."""
        self.plain(" ")
        for index, (cell, size, width) in enumerate(zip(cells, sizes, widths, strict=True)):
            self.add(cell)
            self.plain(" " * (width - size) + (f" {bar} " if index < len(widths) - 1 else " \n"))

    def _flush(self) -> None:
        if self.pending:
            from rich.segment import Segment

            self.segments.append(Segment("".join(self.pending)))
            self.pending = []

    def done(self) -> list:
        self._flush()
        return self.segments


def render_space(data: dict):
    from rich.table import Table

    from pbem.report import literal

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("Space", literal(f"{data['name']} ({data['id']})"))
    if data.get("box"):
        grid.add_row("Box", literal(data["side"].upper()))
    else:
        nation = NATION_NAMES.get(data["nation"], data["nation"])
        grid.add_row("Nation", literal(nation + (" (neutral)" if data["neutral"] else "")))
        grid.add_row("Control", literal(data["control"].upper()))
        grid.add_row("Terrain", literal(data["terrain"]))
        facts = [f"{data['vp']} VP" if data.get("vp") else "", "supply source" if data.get("source") else "",
                 f"{data['port'].upper()} port" if data.get("port") else "", "capital" if data.get("capital") else "",
                 "off-map box" if data.get("offmap") else ""]
        if any(facts):
            grid.add_row("Facts", literal(", ".join(f for f in facts if f)))
        if data.get("fort"):
            grid.add_row("Fort", literal(f"strength {data['fort']['strength']}, {data['fort']['state']}"))
        if data.get("trench"):
            grid.add_row("Trench", literal(f"level {data['trench']}"))
        grid.add_row("Connects to", literal(", ".join(data["connections"])))
    grid.add_row("Units", _units_text(data["units"]))
    return grid


def find(state: PogState, text: str) -> str:
    """A space or box from what a player typed; a near miss names the closest (IllegalOrder-free)."""
    from pbem.errors import UsageError

    try:
        return state.map.find(text)
    except UnknownSpace as exc:
        raise UsageError(str(exc), field="SPACE") from None


def find_nation(state: PogState, text: str) -> str:
    """A nation with spaces on the map, from its id or its name in any case (`ge`, `Germany`,
    `austria hungary`); anything else is refused with the nearest name."""
    import difflib

    from pbem.errors import UsageError

    names = {nation: NATION_NAMES.get(nation, nation) for nation in sorted(set(state.map.nation))}
    forms: dict[str, str] = {}
    for nation, name in names.items():
        for form in (nation, slug(name)):
            forms.setdefault(form, nation)
            forms.setdefault(form.replace("_", ""), nation)
    key = slug(text)
    found = forms.get(key) or forms.get(key.replace("_", ""))
    if found:
        return found
    nearest = forms[max(forms, key=lambda form: difflib.SequenceMatcher(None, key, form).ratio())]
    raise UsageError(f"unknown nation {text!r}; did you mean {names[nearest]} ({nearest})?", field="NATION")


class UnitSupply(TypedDict):
    """One unit's line in the supply view."""

    space: str
    status: str
    sources: list[str]
    rule: NotRequired[str]  # the rule of its special supply
    oos: NotRequired[int]  # its OOS marker


def supply_data(state: PogState, side: str | None = None) -> dict:
    """Each unit on the map: supplied, special or out, the sources it reaches, its OOS marker."""
    from . import supply

    if side not in (None, "ap", "cp"):
        from pbem.errors import UsageError

        raise UsageError(f"side is ap or cp, not {side!r}", field="SIDE")
    computed = supply.compute(state)
    units: dict[str, UnitSupply] = {}
    for unit, status in sorted(computed.units().items()):
        if side and state.faction(unit) != side:
            continue
        entry: UnitSupply = {"space": state.units[unit].space, "status": status,
                             "sources": list(computed.sources(unit))}
        special = computed.special_rule(unit)
        if special:
            entry["rule"] = special
        if state.units[unit].oos:
            entry["oos"] = state.units[unit].oos
        units[unit] = entry
    return {"side": side or "both", "units": units}


def render_supply(data: dict):
    from rich.table import Table

    from pbem.report import literal

    table = Table(title=literal(f"Supply ({data['side']})"), title_justify="left")
    for column in ("unit", "space", "supply", "sources", "OOS"):
        table.add_column(column)
    styles = {"supplied": "green", "special": "yellow", "out": "bold red"}
    for unit, entry in data["units"].items():
        status = entry["status"] + (f" ({entry['rule']})" if entry.get("rule") else "")
        table.add_row(literal(unit), literal(entry["space"]), literal(status, styles.get(entry["status"], "")),
                      literal(", ".join(entry["sources"])), literal(f"OOS{entry['oos']}" if entry.get("oos") else ""))
    return table
