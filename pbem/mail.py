"""Reading messages out of mail: a saved .eml, an mbox export, or a pasted body on stdin."""

from __future__ import annotations

import email
import email.policy
import re

HEADER = re.compile(rb"^(?:From |[A-Za-z][A-Za-z0-9-]*: )")


def looks_like_mail(raw: bytes) -> bool:
    head = raw.lstrip()[:2000]
    return bool(HEADER.match(head)) and b"\n\n" in raw.replace(b"\r\n", b"\n") and (
        b"Content-Type:" in head or b"MIME-Version:" in head or b"Subject:" in head)


def unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space continues on the next line of the
    same quote depth. Quote marks are kept, as '> ' per level, so quoted messages are still found."""
    lines: list[list] = []  # [depth, content]
    flowed = False
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffed, or the space after the quote marks
            content = content[1:]
        if flowed and lines and lines[-1][0] == depth:
            lines[-1][1] += content
        else:
            lines.append([depth, content])
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            lines[-1][1] = lines[-1][1][:-1]
    return "\n".join(("> " * depth) + content if depth else content for depth, content in lines)


def texts(raw: bytes) -> list[str]:
    """Every text part and attachment of a mail, transfer encoding undone, flowed text unwrapped."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    parts = [part for part in message.walk() if not part.is_multipart()]
    has_plain = any(part.get_content_type() == "text/plain" for part in parts)
    found = []
    for part in parts:
        kind = part.get_content_type()
        if kind == "text/html" and has_plain:  # the plain alternative carries the same text
            continue
        filename = part.get_filename() or ""
        if not (kind.startswith("text/") or filename.endswith(".toml") or kind == "application/toml"):
            continue
        payload = part.get_payload(decode=True) or b""
        charset = part.get_content_charset() or "utf-8"
        try:
            text = payload.decode(charset, errors="replace")
        except LookupError:
            text = payload.decode("utf-8", errors="replace")
        text = text.replace("\r\n", "\n")
        params = dict(part.get_params() or [])
        if params.get("format", "").lower() == "flowed":
            text = unflow(text, params.get("delsp", "").lower() == "yes")
        found.append(text)
    return found
