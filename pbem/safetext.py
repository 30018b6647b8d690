"""Text from players shown safely: no character that drives a terminal or reorders what is shown."""

from __future__ import annotations

import re

# Control characters but the newline (ESC sequences, carriage returns) and the bidirectional controls.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escaped(char: str) -> str:
    """A character that must not reach a terminal, written as an escape such as \\x1b or \\u202e."""
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def plain(value) -> str:
    """A player's text as it may be shown: each unsafe character as an escape such as \\x1b."""
    return UNSAFE.sub(lambda found: escaped(found.group()), str(value))


def one_line(value) -> str:
    """Text for a one-line message: runs of white space become one space, the rest as `plain`."""
    return plain(" ".join(str(value).split()))
