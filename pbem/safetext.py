"""Text from players shown safely: no character that drives a terminal or reorders what is shown."""

from __future__ import annotations


def escaped(char: str) -> str:
    """A character that must not reach a terminal, written as an escape such as \\x1b or \\u202e."""
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


# Control characters but the newline (ESC sequences, carriage returns) and the bidirectional
# controls, each with its escape: a translation table (a regex of these costs 0.4 ms to compile).
_UNSAFE_CODES = [*range(0x00, 0x0A), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F,
                 *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
UNSAFE = {code: escaped(chr(code)) for code in _UNSAFE_CODES}


def plain(value) -> str:
    """A player's text as it may be shown: each unsafe character as an escape such as \\x1b."""
    return str(value).translate(UNSAFE)


def one_line(value) -> str:
    """Text for a one-line message: runs of white space become one space, the rest as `plain`."""
    return plain(" ".join(str(value).split()))
