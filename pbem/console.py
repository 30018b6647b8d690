"""The two rich consoles: data and reports on stdout, errors on stderr."""

from __future__ import annotations

from functools import cache

THEME = {
    "ok": "green",
    "warn": "yellow",
    "bad": "bold red",
    "id": "cyan",
    "player": "bold magenta",
    "rule": "blue",
    "dim": "dim",
}


@cache
def stdout():
    from rich.console import Console
    from rich.theme import Theme

    # No emoji codes: pbem writes none, a player's ':smile:' stays as written, and rich's table of
    # emoji names would cost every command 2 ms to load.
    return Console(theme=Theme(THEME), highlight=False, emoji=False)


@cache
def stderr():
    from rich.console import Console
    from rich.theme import Theme

    return Console(theme=Theme(THEME), stderr=True, highlight=False, soft_wrap=True, emoji=False)
