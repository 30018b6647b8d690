"""The game's tables (data/tables.toml), loaded once; where a charter may replace one, its own
`[tables.NAME]` is read first (checked when the charter is read: charter_tables.py)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem import datafile


@cache
def all_tables() -> dict:
    return datafile.load(__package__, "tables.toml")


def table(name: str, charter: Mapping[str, Mapping] | None = None) -> Any:
    """The table `name`: the charter's, if it gives one, else ours."""
    return (charter or {}).get(name, all_tables()[name])
