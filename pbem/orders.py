"""Orders as values: the one text form of an order, parsed and written back.

An order is a table (docs/protocol.md §3.3): a `kind` and fields whose values are text, integers,
booleans or lists of text. On the command line it is written `KIND key=value …`, each value read
by the type its ruleset declares for that field (`OrderKind`):

    roll dice=2d6+1 purpose="attack on Verdun" table=morale
    activate spaces=aachen,koblenz          a list: comma-separated, or an array ["a", "b"]
    set counter=vp add=-1                   an integer
    build_fort space=metz corps=ge_corps_4 rebuild=true

A value is a bare word, or a quoted string as TOML writes one: "…" with backslash escapes
(\\" \\\\ \\n \\t \\u00e9) or '…' taken literally; a whole `"key=value"` may be quoted too. `text(order)`
writes an order in exactly this form, on one line, so `parse(text(order)) == order` for every order
a ruleset accepts: what the log shows can be typed back.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from .errors import UsageError
from .ruleset import FieldSpec, OrderKind

BARE = re.compile(r"[A-Za-z0-9_.,:+\-/@#%^~*]+").fullmatch  # a value written without quotes
BARE_ITEM = re.compile(r"[\w.:+\-/@#%^~*']([\w.:+\-/@#%^~*' ]*[\w.:+\-/@#%^~*'])?").fullmatch  # no edge spaces
SPLIT = " \t\r\n"
TRUE, FALSE = ("true", "yes", "on"), ("false", "no", "off")


def parse(text: str, kinds: Mapping[str, OrderKind]) -> dict:
    """One order from its text form; values typed by the declared fields (others read as TOML)."""
    words = _words(text)
    if not words:
        raise UsageError("empty order", field="ORDER")
    order: dict[str, Any] = {"kind": _word(words[0], text)}
    kind = kinds.get(order["kind"])
    for word in words[1:]:
        key, sep, raw = (_word(word, text) if word[0] in "'\"" else word).partition("=")
        if not sep or not key:
            example = f"; for example: {kind.example}" if kind else ""
            raise UsageError(f"expected key=value in order {text!r}, got {word!r} (quote each whole order as one "
                             f"argument){example}", field="ORDER")
        if key in order:
            raise UsageError(f"{key} is given twice in order {text!r}", field="ORDER")
        value = raw if raw[:1] == "[" else _word(raw, text)
        order[key] = _value(value, kind.field(key) if kind else None, raw)
    return order


def _words(text: str) -> list[str]:
    """The words of an order: split at white space outside quotes and outside a value's [ … ] array,
    quotes and escapes kept (so `spaces=["aachen", "koblenz"]` is one word)."""
    words, current, quote, depth, escaped = [], "", "", 0, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\" and quote == '"':
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "[" and (depth or text[index - 1:index] == "="):
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        elif char in SPLIT and not depth:
            words.append(current)
            current = ""
            continue
        current += char
    if quote:
        raise UsageError(f"cannot read the order {text!r}: a {quote} is not closed; an apostrophe inside a value "
                         "wants double quotes: text=\"don't\"", field="ORDER")
    if depth:
        raise UsageError(f"cannot read the order {text!r}: a [ is not closed", field="ORDER")
    return [word for word in [*words, current] if word]


def _word(word: str, text: str) -> str:
    """A bare word as it stands, or a quoted one decoded as a TOML string ('…' literally; in "…" a
    line break or other control character typed raw counts as its escape)."""
    if word[:1] not in ("'", '"'):
        return word
    if word[0] == "'" and word[-1:] == "'" and len(word) > 1:
        return word[1:-1]
    escaped = re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", lambda raw: f"\\u{ord(raw.group()):04x}", word)
    try:
        found = tomllib.loads(f"v = {escaped}")["v"]
    except ValueError:
        found = None
    if not isinstance(found, str):
        raise UsageError(f"cannot read {word!r} in order {text!r}: a quoted value is one whole TOML string such as "
                         "\"attack on Verdun\" or 'C:\\path'", field="ORDER")
    return found


def _value(value: str, spec: FieldSpec | None, raw: str):
    if spec is None:
        return value if raw[:1] in ("'", '"') else _toml_or_text(value)
    if spec.type == "list":
        return _list(value, raw)
    if spec.type == "int":
        found = _toml_or_text(value)
        return found if isinstance(found, int) and not isinstance(found, bool) else value
    if spec.type == "bool" and value.lower() in TRUE + FALSE:
        return value.lower() in TRUE
    return value  # text, or a value of the wrong type: the ruleset refuses it by its rule, naming the field


def _list(value: str, raw: str) -> list:
    if raw[:1] == "[":
        found = _toml_or_text(value)
        if isinstance(found, list):
            return found
        value = value[1:-1]  # [aachen, koblenz]: bare items in brackets
    return [item.strip() for item in value.split(",") if item.strip()]


def _toml_or_text(value: str):
    try:
        return tomllib.loads(f"v = {value}")["v"]
    except ValueError:  # not TOML, or an integer of thousands of digits: kept as the text typed
        return value


def text(order: Mapping, kinds: Mapping[str, OrderKind]) -> str:
    """The order in its text form, on one line: declared fields in declared order, then any others."""
    kind = kinds.get(str(order.get("kind")))
    declared = [spec.name for spec in kind.fields] if kind else []
    keys = [key for key in declared if key in order] + [key for key in order if key not in declared and key != "kind"]
    words = [_quoted(str(order.get("kind")))]
    for key in keys:
        words.append(f"{_quoted(str(key))}={_written(order[key], kind.field(key) if kind else None)}")
    return " ".join(words)


def _written(value, spec: FieldSpec | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        if spec is not None and spec.type == "list" and value and all(
                isinstance(v, str) and BARE_ITEM(v) and "," not in v for v in value):
            return _quoted(",".join(value))
        return _toml_array(value)
    if spec is None and isinstance(value, str) and _toml_or_text(value) != value:
        return _toml_string(value)  # an undeclared field: keep "12" text, not the integer 12
    return _quoted(str(value))


def _quoted(value: str) -> str:
    return value if BARE(value) else _toml_string(value)


def _toml_string(value: str) -> str:
    """A TOML basic string on one line: quotes, backslashes and every control character escaped."""
    return '"' + re.sub(r'["\\\x00-\x1f\x7f]', _toml_escape, value) + '"'


def _toml_escape(found: re.Match) -> str:
    char = found.group()
    named = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return named.get(char, f"\\u{ord(char):04x}")


def _toml_array(values: list) -> str:
    items = []
    for value in values:
        if isinstance(value, bool):
            items.append("true" if value else "false")
        elif isinstance(value, int):
            items.append(str(value))
        else:
            items.append(_toml_string(str(value)))
    return "[" + ", ".join(items) + "]"


SUGGESTED_SHOWN = 40  # at most this many whole orders are listed in a template


def template(kinds: list[OrderKind], heading: str, suggested: list[dict] | None = None) -> str:
    """What `pbem move --edit` opens: valid TOML whose comments show each legal order as a table.
    Help lines start with ##, examples with #, so uncommenting a whole example gives TOML. The
    ruleset's suggestions, whole orders the position accepts now, come first."""
    lines = [f"## {heading}", "## Uncomment and fill one [[orders]] table per order, in the order they apply.",
             "## Lines starting with # are ignored; saving the file unchanged signs nothing.", ""]
    if suggested:
        lines.append(f"## Orders the position accepts now ({len(suggested)}; uncomment one as it is):")
        for order in suggested[:SUGGESTED_SHOWN]:
            lines.append("# [[orders]]")
            lines.extend(f"# {line}" for line in _as_toml(order))
            lines.append("")
        if len(suggested) > SUGGESTED_SHOWN:
            lines.append(f"## … and {len(suggested) - SUGGESTED_SHOWN} more of the kinds below")
        lines.append("")
    for kind in kinds:
        lines.append(f"## {kind.kind}: {kind.help} (rule {kind.rule})")
        for spec in kind.fields:
            lines.append(f"##   {spec.name}: {spec.type}{'' if spec.required else ', optional'}. {spec.help}")
        lines.append("# [[orders]]")
        lines.extend(f"# {line}" for line in _as_toml(parse(kind.example, {kind.kind: kind})))
        lines.append("")
    return "\n".join(lines)


def _as_toml(order: dict) -> list[str]:
    import tomli_w

    return tomli_w.dumps(order).splitlines()


# ------------------------------------------------------------------ sealed orders (protocol §5)

def sealed_text(orders: list[dict]) -> str:
    """The exact text a seal commits to and an unseal carries: the orders as TOML [[orders]] tables,
    written as an entry writes them (nothing at all for no orders)."""
    from .message import orders_text

    return orders_text(orders)


def from_sealed_text(text: str) -> list[dict]:
    """The orders an unseal carries; UnreadableInput if the text is not [[orders]] tables of the
    values a message may hold (the engine then voids them, protocol §5)."""
    from .errors import UnreadableInput
    from .message import check_order

    try:
        data = tomllib.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UnreadableInput(f"the unsealed orders are not TOML ({exc})", field="orders") from None
    found = data.get("orders", [])
    if set(data) - {"orders"} or not isinstance(found, list) or not all(isinstance(o, dict) for o in found):
        raise UnreadableInput("the unsealed text holds only [[orders]] tables", field="orders")
    for index, order in enumerate(found, 1):
        check_order(order, index, {})
    return found
