"""Signed TOML messages (PROTOCOL.md §3): normalise, parse strictly, emit within 76 columns, find
in mail text.

A message is stored as its normalised bytes followed by its armor as '# ' comment lines; the id is
the SHA-256 of the normalised bytes, so a signature re-wrapped by a mail client changes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
from dataclasses import dataclass, field

from . import sshsig
from .errors import BadSignature, UnreadableInput

MAX_BYTES = 64 * 1024  # §8
MAX_COLUMNS = 76  # §3
NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
HEX64 = re.compile(r"[0-9a-f]{64}")
HEX = re.compile(r"(?:[0-9a-f]{2})*")
SIGNATURE_BEGIN = "# " + sshsig.BEGIN
SIGNATURE_END = "# " + sshsig.END
START = re.compile(r"^((?:> ?)*)pbem = 1[ \t]*$")
BOM = "\ufeff"  # Windows editors start UTF-8 files with it; it is not part of the message
TOML_ERROR_LINE = re.compile(r"at line (\d+)")
SURROGATE = re.compile("[\ud800-\udfff]")
LONG_DIGITS = re.compile(rb"\d{100,}")  # no emitted line (76 columns) has such a run; a huge integer does
INT64 = (-(2**63), 2**63 - 1)  # TOML integers: a reader that follows the spec refuses any other

# Field order and type of each kind (§3). Types: one, name, int, hex64, hex, time, text,
# hexlist, orders. Optional fields are marked with '?'.
HEADER = [("pbem", "one"), ("type", "name"), ("game", "name"), ("player", "name")]
KINDS: dict[str, list[tuple[str, str]]] = {
    "move": [
        ("seq", "int"), ("prev", "hex64"), ("time", "time"), ("salt", "hex64"), ("state", "hex64"),
        ("uses?", "hexlist"), ("private?", "hex"), ("orders?", "orders"),
    ],
    "join": [("charter", "hex64"), ("anchor", "hex64"), ("hcommit", "hex64"), ("chain_length", "int")],
    "reveal": [("for", "hex64"), ("seq", "int"), ("value", "hex64")],
    "seal": [("for", "hex64"), ("seq", "int"), ("sealed", "hex64")],
    "unseal": [("for", "hex64"), ("seq", "int"), ("key", "hex64"), ("orders", "text")],
    "disclose": [("upto", "int"), ("hidden", "hex64")],
    "resign": [("at", "hex64"), ("reason?", "text")],
}


def split_signature(text: str) -> tuple[str, str | None]:
    """The text before the signature line, and the armor from that line on (None if unsigned)."""
    lines = text.replace("\r\n", "\n").split("\n")
    for index, line in enumerate(lines):
        if line.rstrip(" \t") == SIGNATURE_BEGIN:
            return "\n".join(lines[:index]) + "\n", "\n".join(lines[index:])
    return text.replace("\r\n", "\n"), None


def normalise(text: str) -> bytes:
    """§3: the text before the signature line, CRLF as LF, no trailing spaces or tabs on a line."""
    return _strip_lines(split_signature(text)[0])


def _strip_lines(head: str) -> bytes:
    return "\n".join(line.rstrip(" \t") for line in head.split("\n")).encode()


@dataclass
class Message:
    body: bytes  # the normalised bytes: signed, hashed, parsed
    signature: bytes  # the SSHSIG blob
    fields: dict
    id: str = field(init=False)

    def __post_init__(self) -> None:
        self.id = hashlib.sha256(self.body).hexdigest()

    @property
    def type(self) -> str:
        return self.fields["type"]

    @property
    def player(self) -> str:
        return self.fields["player"]

    @property
    def game(self) -> str:
        return self.fields["game"]

    @property
    def seq(self) -> int | None:
        return self.fields.get("seq")

    @property
    def orders(self) -> list[dict]:
        """An entry's orders; an unseal's `orders` is sealed text, not orders anyone may apply yet."""
        return self.fields.get("orders", []) if self.type == "move" else []

    @property
    def uses(self) -> list[str]:
        return self.fields.get("uses", [])

    def stored(self) -> bytes:
        """The bytes kept on disk and mailed: the body and the armor as comment lines."""
        armor = sshsig.armor(self.signature)
        return self.body + "".join("# " + line + "\n" for line in armor.splitlines()).encode()

    def context(self) -> dict:
        """Error context naming this message."""
        return {"kind": self.type, "entry": self.id, "seq": self.seq, "player": self.player}

    def verify(self, raw_public: bytes) -> None:
        try:
            sshsig.verify(self.signature, self.body, "pbem-v1", raw_public)
        except BadSignature as exc:
            raise exc.locate(**self.context()) from None


def _check(name: str, kind: str, value, context: dict):
    def bad(why: str):
        return UnreadableInput(why, field=name, **context)

    if kind == "one":
        if value != 1 or isinstance(value, bool):
            raise bad("must be 1 (protocol version)")
    elif kind == "name":
        if not isinstance(value, str) or not NAME.fullmatch(value):
            raise bad(f"{value!r} is not a name matching [a-z][a-z0-9_-]{{0,31}}")
    elif kind == "int":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
            raise bad("must be a non-negative integer")
    elif kind == "hex64":
        if not isinstance(value, str) or not HEX64.fullmatch(value):
            raise bad("must be 64 lowercase hex digits")
    elif kind == "hex":
        if not isinstance(value, str) or not HEX.fullmatch(value):
            raise bad("must be lowercase hex")
    elif kind == "time":
        if not isinstance(value, dt.datetime) or value.utcoffset() != dt.timedelta(0):
            raise bad("must be an RFC 3339 UTC time such as 2026-11-22T10:31:00Z")
    elif kind == "text":
        if not isinstance(value, str):
            raise bad("must be a string")
    elif kind == "hexlist":
        if not isinstance(value, list) or not all(isinstance(v, str) and HEX64.fullmatch(v) for v in value):
            raise bad("must be a list of 64-hex ids")
        if len(set(value)) != len(value):
            raise bad("lists an id twice")
    elif kind == "orders":
        if not isinstance(value, list) or not all(isinstance(order, dict) for order in value):
            raise bad("must be an array of [[orders]] tables")
        for index, order in enumerate(value, 1):
            _check_order(order, index, context)



def check_order(order: dict, index: int, context: dict) -> None:
    """An order's keys and values are of the kinds a message may carry (§3)."""
    _check_order(order, index, context)


def _check_order(order: dict, index: int, context: dict) -> None:
    where = f"orders[{index}]"
    kind = order.get("kind")
    if not isinstance(kind, str) or not NAME.fullmatch(kind):
        raise UnreadableInput(f"order kind {kind!r} is not a name", field=f"{where}.kind", **context)
    for key, value in order.items():
        if not NAME.fullmatch(key):
            raise UnreadableInput("order keys must be names", field=f"{where}.{key}", **context)
        items = value if isinstance(value, list) else [value]
        for item in items:
            # bool is an int; floats, dates, tables and nested lists are not allowed
            if not isinstance(item, (str, int)):
                raise UnreadableInput(
                    "order values are strings, integers, booleans or lists of them",
                    field=f"{where}.{key}",
                    **context,
                )
            if isinstance(item, int) and not INT64[0] <= item <= INT64[1]:
                raise UnreadableInput(f"{item} is outside the signed 64-bit range TOML allows",
                                      field=f"{where}.{key}", **context)


def parse_fields(body: bytes, context: dict | None = None) -> dict:
    """Parse and strictly check normalised bytes (§3); raises UnreadableInput naming the field."""
    context = dict(context or {})
    if len(body) > MAX_BYTES:
        raise UnreadableInput(f"message is {len(body)} bytes, over the 64 KiB limit", **context)
    try:
        data = tomllib.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise UnreadableInput("message is not UTF-8", **context) from None
    except tomllib.TOMLDecodeError as exc:
        raise UnreadableInput(f"malformed TOML: {exc}", **context) from None
    except RecursionError:
        raise UnreadableInput("malformed TOML: nested too deeply", **context) from None
    except ValueError:  # the reader's limit on digits: an integer far outside TOML's 64 bits
        raise UnreadableInput(f"line {_long_integer_line(body)} holds an integer outside the signed 64-bit range "
                              "TOML allows", **context) from None
    kind = data.get("type")
    if isinstance(data.get("seq"), int) and not isinstance(data["seq"], bool):
        context.setdefault("seq", data["seq"])
    if isinstance(data.get("player"), str):
        context.setdefault("player", data["player"])
    if isinstance(kind, str):
        context.setdefault("kind", kind)
    if "ruleset" in data and "type" not in data:
        raise UnreadableInput("this is a charter (game.toml), not a message: use 'pbem join'", **context)
    if kind not in KINDS:
        raise UnreadableInput(f"unknown message type {kind!r}", field="type", **context)
    spec = HEADER + KINDS[kind]
    known = {name.rstrip("?") for name, _ in spec}
    for key in data:
        if key not in known:
            raise UnreadableInput("unknown key", field=key, **context)
    for name, check in spec:
        optional = name.endswith("?")
        name = name.rstrip("?")
        if name not in data:
            if optional:
                continue
            raise UnreadableInput("missing", field=name, **context)
        _check(name, check, data[name], context)
    return data


def _long_integer_line(body: bytes) -> int | None:
    lines = body.split(b"\n")
    return next((number for number, line in enumerate(lines, 1) if LONG_DIGITS.search(line)), None)


def parse(text: str | bytes) -> Message:
    """A whole message file: TOML then '# ' armor lines."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableInput("message is not UTF-8") from None
    if SURROGATE.search(text):  # text a codec such as utf-7 made: it has no UTF-8 bytes to check
        raise UnreadableInput("message is not valid Unicode text (a lone surrogate)")
    head, armor = split_signature(text)
    body = _strip_lines(head)
    if len(text.encode()) > MAX_BYTES + 1024:  # the body is checked exactly below; this bounds the armor
        raise UnreadableInput(f"message is {len(text.encode())} bytes, over the 64 KiB limit",
                              entry=hashlib.sha256(body).hexdigest())
    try:
        fields = parse_fields(body, {"entry": hashlib.sha256(body).hexdigest()})
    except UnreadableInput:
        broken = _rewrapped_line(head)
        if broken is None:
            raise
        width = max(len(line) for line in text.split("\n"))
        raise UnreadableInput(
            f"the message was re-wrapped at column {width} (line {broken} was broken in two), so it is no longer "
            "the text that was signed: ask for it as an attachment, or turn off line wrapping in the mail client",
            entry=hashlib.sha256(body).hexdigest()) from None
    context = {"kind": fields["type"], "entry": hashlib.sha256(body).hexdigest(), "seq": fields.get("seq"),
               "player": fields["player"]}
    if armor is None:
        raise BadSignature("message is not signed (no SSH SIGNATURE block)", field="signature", **context)
    if sshsig.END not in armor:
        raise UnreadableInput("truncated: the signature block has no END line", field="signature", **context)
    try:
        blob = sshsig.dearmor(armor)
    except BadSignature as exc:
        raise exc.locate(**context) from None
    return Message(body, blob, fields)


def _rewrapped_line(head: str) -> int | None:
    """The first line a mail client broke in two, if this text is TOML again once such lines are
    joined: hard wrapping (not format=flowed) at a width under the 76 columns emitters use."""
    lines = head.split("\n")
    first = None
    while True:
        try:
            tomllib.loads("\n".join(lines))
            return first
        except tomllib.TOMLDecodeError as exc:
            at = TOML_ERROR_LINE.search(str(exc))
            if at is None or int(at.group(1)) >= len(lines):
                return None
            index = int(at.group(1)) - 1
            joined = lines[index] + " " + lines[index + 1]  # clients break at a space, and drop it
            if len(joined) > MAX_COLUMNS + 1:  # no emitted line was that long: something else broke it
                return None
            lines[index:index + 2] = [joined]
            first = first or index + 1
        except (RecursionError, ValueError):  # nested too deeply, or an integer of thousands of digits
            return None


def find(text: str) -> list[Message]:
    """Every message in a text (a file, a mail body), quoted with '> ' or not; one per id."""
    text = text.replace("\r\n", "\n").removeprefix(BOM)
    lines = text.split("\n")
    found: dict[str, Message] = {}
    i = 0
    while i < len(lines):
        start = START.match(lines[i])
        if not start:
            i += 1
            continue
        prefix = start.group(1)
        bare_prefix = prefix.rstrip()
        block: list[str] = []
        j = i
        while j < len(lines):
            line = lines[j]
            if j > i and (again := START.match(line)) and again.group(1) == prefix:
                break
            if line.startswith(prefix):
                line = line[len(prefix):]
            elif line.rstrip() == bare_prefix:
                line = ""
            else:
                if block and block[-1].lstrip("#").strip() == sshsig.END:
                    break
                raise UnreadableInput(
                    f"line {j + 1} breaks the quoting of the message that starts on line {i + 1}"
                )
            block.append(line)
            j += 1
            if line.strip() == SIGNATURE_END:
                break
        text_block = "\n".join(block)
        if block and block[-1].strip() == SIGNATURE_END:
            text_block += "\n"  # else it ran to the end of the text, which keeps its own last LF
        message = parse(text_block)
        found.setdefault(message.id, message)
        i = j
    return list(found.values())


# ----------------------------------------------------------------------------------- emitting

def _escape(text: str) -> list[str]:
    """A TOML basic string's contents as tokens (one per source character)."""
    tokens = []
    for char in text:
        if char == "\\":
            tokens.append("\\\\")
        elif char == '"':
            tokens.append('\\"')
        elif char == "\n":
            tokens.append("\\n")
        elif char == "\t":
            tokens.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            tokens.append(f"\\u{ord(char):04x}")
        else:
            tokens.append(char)
    return tokens


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, str):
        return '"' + "".join(_escape(value)) + '"'
    raise TypeError(f"cannot emit {type(value).__name__}")


def _long_string(prefix: str, value: str, suffix: str = "") -> list[str]:
    """A string too long for one line, split with TOML's line-ending backslash."""
    tokens = _escape(value)
    lines = [f'{prefix}"""\\']
    current = ""
    for token in tokens:
        if len(current) + len(token) > MAX_COLUMNS - 8 and current:
            lines.append(current + "\\")
            current = ""
        if not current and token == " ":
            # A continuation line must not start with white space: the backslash would eat it.
            token = "\\u0020"
        current += token
    lines.append(current + '"""' + suffix)
    return lines


def _key_value(key: str, value) -> list[str]:
    if isinstance(value, list):
        inline = f"{key} = [" + ", ".join(_scalar(v) for v in value) + "]"
        if len(inline) <= MAX_COLUMNS:
            return [inline]
        lines = [f"{key} = ["]
        for item in value:
            line = f"  {_scalar(item)},"
            if len(line) <= MAX_COLUMNS or not isinstance(item, str):
                lines.append(line)
            else:
                lines.extend(_long_string("  ", item, ","))
        return [*lines, "]"]
    line = f"{key} = {_scalar(value)}"
    if len(line) <= MAX_COLUMNS or not isinstance(value, str):
        return [line]
    return _long_string(f"{key} = ", value)


def orders_text(orders: list[dict]) -> str:
    """Orders as [[orders]] tables, a blank line between two, as an entry carries them and as a seal
    commits to them (§5): nothing at all for no orders."""
    blocks = ["\n".join(["[[orders]]", *(line for key, value in order.items() for line in _key_value(key, value))])
              for order in orders]
    return "\n\n".join(blocks) + "\n" if blocks else ""


def emit_body(fields: dict) -> bytes:
    """The normalised bytes of a message, keys in the order of §3."""
    kind = fields["type"]
    order = [name.rstrip("?") for name, _ in HEADER + KINDS[kind]]
    unknown = set(fields) - set(order)
    if unknown:
        raise ValueError(f"unknown fields for {kind}: {sorted(unknown)}")
    lines: list[str] = []
    for key in order:
        if key not in fields or (key == "orders" and kind == "move"):
            continue
        lines.extend(_key_value(key, fields[key]))
    if kind == "move" and fields.get("orders"):
        lines.append("")
        lines.extend(orders_text(fields["orders"])[:-1].split("\n"))  # not splitlines: U+2028 is text here
    text = "\n".join(lines) + "\n"
    body = text.encode()
    if normalise(text) != body:
        raise ValueError("refusing to sign text that normalisation would change")
    too_long = [line for line in lines if len(line) > MAX_COLUMNS]
    if too_long:
        raise ValueError(f"line over {MAX_COLUMNS} columns: {too_long[0][:40]}…")
    return body


def sign(fields: dict, signer) -> Message:
    """Emit, check by parsing back, and sign a message."""
    body = emit_body(fields)
    parsed = parse_fields(body)
    return Message(body, signer.sign(body, "pbem-v1"), parsed)
