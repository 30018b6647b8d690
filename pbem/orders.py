"""Orders as values: the one text form of an order, parsed and written back.

An order is a table (docs/protocol.md §3.3): a `kind` and fields whose values are text, integers,
booleans or lists of text. On the command line it is written `KIND key=value …`, each value read
by the type its ruleset declares for that field (`OrderKind`):

    roll dice=2d6+1 purpose="attack on Verdun" table=morale
    activate spaces=aachen,koblenz          a list: comma-separated, or a TOML array ["a", "b"]
    set counter=vp add=-1                   an integer
    build_fort space=metz corps=ge_corps_4 rebuild=true

`text(order, kinds)` writes an order in exactly this form, so `parse(text(order)) == order` for
every order a ruleset accepts: what the log shows can be typed back.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from typing import Any

from .errors import UsageError
from .ruleset import FieldSpec, OrderKind

BARE = re.compile(r"[A-Za-z0-9_.,:+\-/@#%^~*]+").fullmatch  # a value written without quotes
SPLIT = " \t\r\n"  # the white space shlex splits at
BARE_ITEM = re.compile(r"[\w.:+\-/@#%^~*']([\w.:+\-/@#%^~*' ]*[\w.:+\-/@#%^~*'])?").fullmatch  # no edge spaces


def parse(text: str, kinds: Mapping[str, OrderKind]) -> dict:
    """One order from its text form; values typed by the declared fields (others read as TOML)."""
    words = _words(text)
    if not words:
        raise UsageError("empty order", field="ORDER")
    order: dict[str, Any] = {"kind": _unquoted(words[0], text)}
    kind = kinds.get(order["kind"])
    for word in words[1:]:
        key, sep, raw = word.partition("=")
        if not sep or not key:
            example = f"; for example: {kind.example}" if kind else ""
            raise UsageError(f"expected key=value in order {text!r}, got {word!r}{example}", field="ORDER")
        value = raw if raw.startswith("[") else _unquoted(raw, text)
        order[key] = _value(value, kind.field(key) if kind else None, key)
    return order


def _words(text: str) -> list[str]:
    """The words of an order: split at white space outside quotes and outside a value's [ … ] array,
    quotes and escapes kept (so `spaces=["aachen", "koblenz"]` is one word), as shlex would split."""
    words, current, quote, depth, escaped = [], "", "", 0, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
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
    if quote or depth:
        raise UsageError(f"cannot read the order {text!r}: an unclosed {quote or '['}; quote a value with an "
                         "apostrophe in double quotes: text=\"don't\"", field="ORDER")
    return [word for word in [*words, current] if word]


def _unquoted(word: str, text: str) -> str:
    try:
        return "".join(shlex.split(word)) if word else ""
    except ValueError as exc:  # a stray backslash at the end
        raise UsageError(f"cannot read the order {text!r}: {exc}", field="ORDER") from None


def _value(value: str, spec: FieldSpec | None, key: str):
    if spec is None:
        return _toml_or_text(value)
    if spec.type == "list":
        if value.startswith("["):
            found = _toml_or_text(value)
            if not isinstance(found, list):
                raise UsageError(f"{key}: {value!r} is not a list such as a,b or [\"a\", \"b\"]", field="ORDER")
            return found
        return [item.strip() for item in value.split(",") if item.strip()]
    if spec.type == "int":
        return _integer(value, key)
    if spec.type == "bool":
        if value.lower() not in ("true", "false", "yes", "no", "on", "off"):
            raise UsageError(f"{key} is true or false, not {value!r}", field="ORDER")
        return value.lower() in ("true", "yes", "on")
    return value


def _integer(value: str, key: str) -> int | str:
    found = _toml_or_text(value)
    if isinstance(found, int) and not isinstance(found, bool):
        return found
    return value  # the ruleset refuses it by its rule, naming the field


def _toml_or_text(value: str):
    try:
        return tomllib.loads(f"v = {value}")["v"]
    except ValueError:  # not TOML, or an integer of thousands of digits: kept as the text typed
        return value


def text(order: Mapping, kinds: Mapping[str, OrderKind]) -> str:
    """The order in its text form: declared fields in declared order, then any others."""
    kind = kinds.get(str(order.get("kind")))
    declared = [spec.name for spec in kind.fields] if kind else []
    keys = [key for key in declared if key in order] + [key for key in order if key not in declared and key != "kind"]
    words = [str(order.get("kind"))]
    for key in keys:
        words.append(f"{key}={_written(order[key], kind.field(key) if kind else None)}")
    return " ".join(words)


def _written(value, spec: FieldSpec | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        if spec is not None and spec.type == "list" and all(isinstance(v, str) and BARE_ITEM(v) for v in value) \
                and value and not any("," in v for v in value):
            return _quoted(",".join(value))
        return _quoted(_toml_array(value))
    if spec is None and isinstance(value, str) and _toml_or_text(value) != value:
        return _quoted(_toml_string(value))  # an undeclared field: keep "12" text, not the integer 12
    return _quoted(str(value))


def _quoted(value: str) -> str:
    if BARE(value):
        return value
    return '"' + re.sub(r'(["\\])', r"\\\1", value) + '"'  # inside double quotes shlex unescapes only these


def _toml_string(value: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, and every control character TOML forbids raw."""
    return '"' + re.sub(r'["\\\x00-\x08\x0a-\x1f\x7f]', _toml_escape, value) + '"'


def _toml_escape(found: re.Match) -> str:
    char = found.group()
    return "\\" + char if char in '"\\' else f"\\u{ord(char):04x}"


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


def template(kinds: list[OrderKind], heading: str) -> str:
    """What `pbem move --edit` opens: valid TOML whose comments show each legal order as a table."""
    lines = [f"# {heading}", "# Uncomment and fill one [[orders]] table per order, in the order they are to apply.",
             "# Lines starting with # are ignored; saving the file unchanged signs nothing.", ""]
    for kind in kinds:
        lines.append(f"# {kind.kind}: {kind.help} (rule {kind.rule})")
        for spec in kind.fields:
            lines.append(f"#   {spec.name}: {spec.type}{'' if spec.required else ', optional'}. {spec.help}")
        lines.append("# [[orders]]")
        lines.extend(f"# {line}" for line in _as_toml(parse(kind.example, {kind.kind: kind})))
        lines.append("")
    return "\n".join(lines)


def _as_toml(order: dict) -> list[str]:
    import tomli_w

    return tomli_w.dumps(order).splitlines()
