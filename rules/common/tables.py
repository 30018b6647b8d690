"""Result tables keyed by die ranges: "2-6", "7", "10+" (or more), "3-" (or less)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise

RANGE = re.compile(r"^(\d+)(?:-(\d+)|(\+)|(-))?$")


class TableError(ValueError):
    pass


def ranges(table: Mapping) -> list[tuple[int, int, str]]:
    """The rows of a table as (low, high, result); keys that are not ranges are metadata."""
    rows = []
    for key, value in table.items():
        match = RANGE.match(str(key))
        if not match:
            continue
        low = int(match.group(1))
        if match.group(2):
            high = int(match.group(2))
        elif match.group(3):
            high = 2**63
        elif match.group(4):
            low, high = -(2**63), low
        else:
            high = low
        if low > high:
            raise TableError(f"row {key!r} runs backwards")
        if not isinstance(value, str):
            raise TableError(f"row {key!r} must give its result as text")
        rows.append((low, high, value))
    rows.sort()
    for (_, high, _), (low, _, _) in pairwise(rows):
        if low <= high:
            raise TableError("rows overlap")
    if not rows:
        raise TableError("no rows such as \"2-6\" = \"…\"")
    return rows


def look_up(table: Mapping, total: int) -> str | None:
    for low, high, result in ranges(table):
        if low <= total <= high:
            return result
    return None
