"""The facts seed 004 cites but does not contain, as data (data/tables.toml, demonstration
values): supply path lengths by weather (8.2.2), the weathers that freeze lakes (8.2), movement
costs (the terrain chart), the overrun ratio (11.12) and the invasion stacking limit
(11.14-11.15); a missing one is an error naming its rule."""

from __future__ import annotations

from functools import cache

from pbem import datafile


@cache
def tables() -> dict:
    return datafile.load(__package__, "tables.toml")


def fact(table: str, key: str):
    """One fact of a table; DataFileError naming the table and its rule where it is missing."""
    found = tables().get(table, {})
    if key not in found:
        raise datafile.DataFileError(f"tables.toml: {table} ({found.get('rule', 'its rule')}) gives no {key!r}",
                                     field=table)
    return found[key]


def movement_cost(terrain: str) -> int:
    """The movement points a land unit spends to enter a hex of this terrain (the terrain chart)."""
    return _entry("terrain_chart", "movement", terrain)


def path_length(weather: str) -> int:
    """The hexes a supply path may count in this weather (8.2.2)."""
    return _entry("supply_path_length", "length", weather)


def _entry(table: str, field: str, key: str) -> int:
    values = fact(table, field)
    if type(values.get(key)) is not int:
        raise datafile.DataFileError(f"tables.toml: {table} ({tables()[table].get('rule', 'its rule')}) gives no "
                                     f"{field} for {key!r}", field=table)
    return values[key]
