"""Rich renderables for what the commands show, and export to text, HTML and SVG for mailing."""

from __future__ import annotations

import io
import re

from rich.cells import cell_len
from rich.console import Console, Group
from rich.measure import Measurement
from rich.panel import Panel
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from .safetext import plain


def literal(value, style: str = "") -> Text:
    """A player's text shown as written: never read as rich markup or emoji codes (a Text, unlike a
    str, is not parsed), and safe for the terminal."""
    return Text(plain(value), style=style)


def _short(hex_id: str | None) -> str:
    return (hex_id or "")[:12]


def _sealed_lines(step: dict) -> list:
    """A simultaneous decision: what is asked, who owes a seal or an unseal, who collects."""
    lines = [literal(step["prompt"] or f"a simultaneous decision of {', '.join(step['members'])}")]
    if step["seals_from"]:
        lines.append(literal(f"Waiting for the seals of {', '.join(step['seals_from'])} (pbem seal)", "warn"))
    elif step["unseals_from"]:
        lines.append(literal(f"Every member has sealed: waiting for the unseals of {', '.join(step['unseals_from'])} "
                             "(pbem unseal)", "warn"))
    else:
        lines.append(literal(f"All unsealed: {step['collector']} collects them (pbem move)", "warn"))
    lines.extend(_deadline_text(step, "move"))
    return lines


def _unsealed_text(unsealed: dict) -> str:
    """The orders a collector's entry unsealed: each member's, or why there are none."""
    parts = [f"{player} " + ("(unreadable)" if orders is None else "; ".join(orders) or "(no orders)")
             for player, orders in unsealed.items()]
    return "unsealed: " + " | ".join(parts)


def status_view(data: dict):
    title = Text.assemble(("Game ", "bold"), (plain(data["game"]), "bold cyan"),
                          plain(f"  ({data['ruleset']}, dice: {data['dice']})"))
    lines = [title]
    if data.get("me"):
        lines.append(Text.assemble("You are ", (plain(data["me"]), "player")))
    lines.append(Text(f"Log: {data['head_seq']} entries, head {_short(data['head_id'])}"))
    if data.get("standing"):
        lines.append(literal(data["standing"]))
    step = data.get("step", {})
    kind = step.get("kind")
    if kind == "joining":
        lines.append(literal(f"Waiting for joins from {', '.join(step['waiting_for'])}", "warn"))
    elif kind == "reveal":
        text = Text.assemble(
            "Roll point of seq ", (str(step["seq"]), "bold"),
            plain(f" (entry {_short(step['entry'])} by {step['author']}): "),
            (plain("waiting for reveals from " + ", ".join(step["waiting_for"])), "warn"),
        )
        lines.append(text)
        lines.extend(_deadline_text(step, "reveal"))
    elif kind == "decision":
        lines.append(Text.assemble("Next step: ", (plain(", ".join(step["waiting_for"])), "player"), " to move"))
        if step.get("prompt"):
            lines.append(literal(step["prompt"]))
        lines.extend(_deadline_text(step, "move"))
    elif kind == "sealed":
        lines.extend(_sealed_lines(step))
    elif kind == "over":
        lines.append(Text.assemble(("Game over: ", "bold"), (plain(step["result"]), "ok")))
        if step.get("disclosures_from"):
            lines.append(literal(f"Waiting for the disclosures of {', '.join(step['disclosures_from'])} "
                                 "(pbem disclose), so that everyone can audit the hidden draws", "warn"))
        if step.get("closing_entry_by"):
            lines.append(literal(f"{step['closing_entry_by']} signs the closing entry that fixes the result "
                                 "(pbem move with no orders)", "warn"))
    for dispute in data.get("disputes", []):
        lines.append(literal(f"You dispute seq {dispute['seq']}: {dispute['player']} owes a disclosure up to it "
                             "(pbem disclose --upto), then 'pbem audit'", "warn"))
    if data.get("held"):
        lines.append(Text(f"{data['held']} message(s) held in held/ waiting for a predecessor", style="warn"))
    for fork in data.get("forks", []):
        lines.append(literal(f"Game stopped: proof of equivocation in {fork}", "bad"))
    # A Text title, not a string: rich would parse a string as markup, loading its emoji table.
    return Panel(Group(*[line for line in lines if line]), title=Text("pbem status"), expand=False)


def _deadline_text(step: dict, what: str) -> list[Text]:
    """The deadline line of a step, if the step has one."""
    if not step.get("since"):
        return []
    style = "bad" if step.get("overdue") else "dim"
    late = " — OVERDUE" if step.get("overdue") else ""
    return [Text(f"  {what} owed since {step['since']}, due {step['due']}{late}", style=style)]


def draws_text(draws: list[dict]) -> Text:
    text = Text()
    for draw in draws:
        if draw["kind"] == "die":
            text.append(f"d{draw['size']}→", style="dim")
            text.append(str(draw["result"]), style="bold cyan")
        else:
            text.append(plain(f"{draw['kind']}({draw['size']})→{draw['result']}"), style="cyan")
        text.append(" ")
    if draws:
        text.append(plain(f"({draws[0]['purpose']}, {draws[0]['rule']})"), style="dim")
    return text


def log_view(rows: list[dict], more: str | None = None):
    """The log as a table; `more` is a caption telling how to see the entries left out."""
    return LogTable(rows, more)


def _log_cells(row: dict) -> tuple:
    orders = "; ".join(row["orders"]) or ("(uses only)" if row["uses"] else "(binds the first roll)")
    if row.get("unsealed"):
        orders = _unsealed_text(row["unsealed"]) + ("; " + orders if row["orders"] else "")
    dice = literal(f"waiting for reveals from {', '.join(row['waiting_for'])}", "warn") \
        if row.get("waiting_for") else draws_text(row["dice"])
    when = row["time"][5:16].replace("T", " ")
    return (str(row["seq"]), literal(row["player"]), literal(when), literal(orders), dice,
            literal(_short(row["id"])))


class LogTable:
    """The log table, drawn exactly as rich draws it but cheaper on a long log.

    Rich measures every cell to size the columns, and holds every cell and every segment of the
    table at once. Here the widths come from a table of only the rows holding each column's widest
    line and longest word, which measures the same; the rows are then drawn a block at a time with
    those widths, each block's header and edges cut away where the whole table has none; and each
    repeated segment (borders, blank cells) is kept once while the console holds the output."""

    BLOCK = 256  # rows drawn at a time

    def __init__(self, rows: list[dict], more: str | None) -> None:
        self.rows = rows
        self.more = more

    def table(self, rows: list[dict], widths: list[int] | None = None, *, title: bool = True,
              caption: bool = True) -> Table:
        """Rich's table of these rows; `widths` fixes each column's content width."""
        table = Table(title="Log" if title else None, title_justify="left",
                      caption=literal(self.more) if self.more and caption else None, caption_justify="left")
        table.add_column("seq", justify="right")
        table.add_column("player", style="player")
        table.add_column("time", style="dim")
        table.add_column("orders")
        table.add_column("dice drawn at its roll point")
        table.add_column("id", style="id")
        for column, width in zip(table.columns, widths or [], strict=False):
            column.width = width
        for row in rows:
            table.add_row(*_log_cells(row))
        return table

    def __rich_console__(self, console, options):
        widths = self._widths(console, options)
        drawn = self._blocks(console, options, widths) if widths else console.render(self.table(self.rows), options)
        kept: dict = {}
        for segment in drawn:
            yield kept.setdefault(segment, segment)

    def __rich_measure__(self, console, options):
        return Measurement.get(console, options, self.table(self.rows))

    def _blocks(self, console, options, widths: list[int]):
        """The first block down to its last row, the rows of each block after it, then the last
        block's bottom edge and caption."""
        head = len(self._lines(console, options, [], widths, title=False, caption=False)) - 1  # edge, header, rule
        count = max(1, -(-len(self.rows) // self.BLOCK))
        for index in range(count):
            first, last = index == 0, index == count - 1
            rows = self.rows[index * self.BLOCK:(index + 1) * self.BLOCK]
            lines = self._lines(console, options, rows, widths, title=first, caption=last)
            for line in lines[0 if first else head:None if last else -1]:
                yield from line
                yield Segment.line()

    def _lines(self, console, options, rows: list[dict], widths: list[int], **parts) -> list:
        return list(Segment.split_lines(console.render(self.table(rows, widths, **parts), options)))

    def _widths(self, console, options) -> list[int] | None:
        """The content width rich would give each column of the whole table, or None where they
        cannot be had this way (a rich without these internals, or columns squeezed to nothing)."""
        probe = self.table([self.rows[i] for i in sorted(self._widest())])
        try:
            widths = probe._calculate_column_widths(console, options.update_width(options.max_width
                                                                                  - probe._extra_width))
            pads = [probe._get_padding_width(i) for i in range(len(probe.columns))]
        except (AttributeError, TypeError):
            return None
        if min(widths) < 1:
            return None
        return [width - pad for width, pad in zip(widths, pads, strict=True)]

    def _widest(self) -> set[int]:
        """Rows holding, in some column, the widest line or the longest word: a column measures as
        the largest of each over its cells (rich's Text.__rich_measure__)."""
        best: dict[tuple[int, int], tuple[int, int]] = {}  # (column, 0: word, 1: line) -> (size, row)
        for index, row in enumerate(self.rows):
            for column, cell in enumerate(_log_cells(row)):
                for which, size in enumerate(_measure(cell)):
                    if size > best.get((column, which), (-1, 0))[0]:
                        best[column, which] = (size, index)
        return {index for _, index in best.values()}


def _measure(cell: Text | str) -> tuple[int, int]:
    """(longest word, widest line) in cells; a str cell is a seq number, without markup."""
    text = cell if isinstance(cell, str) else cell.plain
    lines = text.splitlines()
    widest = max(map(cell_len, lines)) if lines else 0
    words = text.split()
    return (max(map(cell_len, words)) if words else widest), widest


def left_out(rows: list[dict], head: int, command: str) -> str | None:
    """For a log showing only its recent entries: which ones, and how to see the others."""
    if head == 0 or (rows and rows[0]["seq"] == 1):
        return None
    shown = f"Entries {rows[0]['seq']}–{head} of {head}" if rows else f"No entries: the log ends at seq {head}"
    return f"{shown}. '{command} --last N' or '{command} --since SEQ' shows others ('--since 1': all of them)."


def outcome_lines(report, summarise) -> Group:
    lines = []
    for outcome in report.outcomes:
        message = outcome.message
        what = message.type if message.seq is None else f"{message.type} seq {message.seq}"
        if outcome.status == "applied":
            detail = "; ".join(summarise(o) for o in message.orders) if message.type == "move" else ""
            lines.append(Text.assemble(("✓ applied ", "ok"), f"{what} by ", (plain(message.player), "player"),
                                       plain(f": {detail}") if detail else "", (f"  {_short(message.id)}", "id")))
        elif outcome.status == "duplicate":
            lines.append(Text.assemble(("= already in the log: ", "dim"), plain(f"{what} by {message.player}")))
        else:
            lines.append(Text.assemble(("… held: ", "warn"), plain(f"{what} by {message.player}: {outcome.detail}")))
    for dropped in report.dropped:
        lines.append(literal(f"✗ dropped from held/: {dropped}", "bad"))
    for record in report.rolls:
        draws = [d.to_dict() for d in record.draws]
        lines.append(Text.assemble(("🎲 roll point of seq ", "bold"), (str(record.seq), "bold"), ": ",
                                   draws_text(draws)))
    return Group(*lines)


def delivery_lines(posted: list) -> Group:
    """Who got each mailed message, who did not and why, and what waits in the queue."""
    lines = []
    for item in posted:
        message, delivery = item.message, item.delivery
        what = message.type + (f" seq {message.seq}" if message.seq is not None else "")
        if delivery.delivered:
            lines.append(Text.assemble(("Mailed", "ok"), plain(f" {what} to {', '.join(delivery.delivered)}")))
        for recipient, reason in delivery.failed.items():  # a server's answer is a stranger's text too
            lines.append(Text.assemble(("Not delivered", "warn"), plain(f" {what} to {recipient}: {reason}")))
        if item.queued:
            lines.append(literal(f"Queued in {item.queued.parent}: 'pbem send --retry' sends it again."))
    return Group(*lines)


def refusal_line(refusal) -> str:
    """One line per refused mail: why, and whether it is marked read or left for the next run."""
    text = f"refused mail {refusal.mail}: {refusal.error}"
    proof = getattr(refusal.error, "proof", ())
    if refusal.final and proof:
        text += f"; proof of equivocation kept in forks/: {' and '.join(proof)}; the game is stopped"
    verdict = "marked read: it can never apply" if refusal.final else "left unread: it may apply on a later run"
    return plain(f"{text} ({verdict})")  # the mail's Message-ID is a stranger's text


def roll_view(explained: dict):
    lines = [Text.assemble(("Roll point of seq ", "bold"), str(explained["seq"]), f" (entry {explained['entry']})"),
             literal(f"dice policy: {explained['policy']}")]
    inputs = explained["inputs"]
    lines.append(literal(f"seed = {inputs['formula']}", "dim"))
    for key, value in inputs.items():
        if key != "formula":
            lines.append(literal(f"  {key} = {value}"))
    for witness in explained["witnesses"]:
        lines.append(Text.assemble("  value of ", (plain(witness["player"]), "player"),
                                   plain(f" = {witness['value']}")))
    lines.append(Text.assemble("seed = ", (plain(explained["seed"]), "id")))
    table = Table(title="Draws, in order", title_justify="left")
    for column in ("#", "draw", "words read", "rejected", "result", "purpose", "rule"):
        table.add_column(column)
    for draw in explained["draws"]:
        cells = (draw["index"], f"{draw['kind']} {draw['size']}", " ".join(str(w) for w in draw["words"]),
                 " ".join(str(w) for w in draw.get("rejected", [])) or "-", draw["result"], draw["purpose"],
                 draw["rule"])
        table.add_row(*(literal(cell) for cell in cells))
    hidden = [literal(f"private: {request['shown']}", "dim") for request in explained.get("private", [])]
    return Group(*lines, table, *hidden)


def export(renderables: list, fmt: str, width: int = 110, picture: str | None = None) -> str:
    """Render to text, HTML or SVG for mailing (rich's recording console). A `picture` (SVG text,
    Ruleset.picture) goes above the text in HTML and SVG; plain text has no room for it."""
    from rich.theme import Theme

    from .console import THEME

    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True, theme=Theme(THEME))
    for renderable in renderables:
        console.print(renderable)
    if fmt == "html":
        page = console.export_html(inline_styles=True)
        return page if picture is None else html_with_picture(page, picture)
    if fmt == "svg":
        terminal = console.export_svg(title="pbem report")
        return terminal if picture is None else stacked_svg([picture, terminal])
    return console.export_text()


def html_with_picture(page: str, picture: str) -> str:
    """An HTML page with the picture first in its body, at its own size (the page scrolls)."""
    head, body, rest = page.partition("<body>")  # rich escapes the text, so the first is the tag
    if not body:
        raise ValueError("the HTML report has no <body>")
    return f'{head}<body>\n<div style="overflow-x:auto">\n{svg_element(picture)}\n</div>{rest}'


def stacked_svg(documents: list[str]) -> str:
    """SVG documents one above the other, left-aligned and each at its own size, as one document."""
    placed, top, widest = [], 0.0, 0.0
    for document in documents:
        element = svg_element(document)
        end = element.index(">")
        root = element[:end].removesuffix("/")
        width, height = svg_size(root)
        root = _SIZE.sub("", root) + f' width="{_number(width)}" height="{_number(height)}"'
        placed.append(f'<g transform="translate(0 {_number(top)})">\n{root}{element[end:]}\n</g>')
        top, widest = top + height, max(widest, width)
    size = f'width="{_number(widest)}" height="{_number(top)}" viewBox="0 0 {_number(widest)} {_number(top)}"'
    return f'<svg xmlns="http://www.w3.org/2000/svg" {size}>\n' + "\n".join(placed) + "\n</svg>\n"


_SIZE = re.compile(r'\s(width|height)="([^"]*)"')
_VIEW_BOX = re.compile(r'\sviewBox="([^"]*)"')


def svg_element(document: str) -> str:
    """An SVG document from its root <svg> on: an XML declaration or doctype has no place inside
    another document."""
    start = document.find("<svg")
    if start < 0:
        raise ValueError("the picture is not SVG: it has no <svg> element")
    return document[start:].strip()


def svg_size(root: str) -> tuple[float, float]:
    """Width and height of an SVG root tag, in px: its width and height, else its viewBox's."""
    given = dict(_SIZE.findall(root))
    try:
        return float(given["width"].removesuffix("px")), float(given["height"].removesuffix("px"))
    except (KeyError, ValueError):
        pass
    box = _VIEW_BOX.search(root)
    numbers = box.group(1).replace(",", " ").split() if box else []
    if len(numbers) != 4:
        raise ValueError("an SVG picture needs a width and height in px, or a viewBox")
    return float(numbers[2]), float(numbers[3])


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.3f}".rstrip("0")
