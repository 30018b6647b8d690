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
    costs = fact("terrain_chart", "movement")
    if terrain not in costs:
        raise datafile.DataFileError(f"tables.toml: terrain_chart gives no movement cost for {terrain!r}",
                                     field="terrain_chart")
    return int(costs[terrain])


def path_length(weather: str) -> int:
    """The hexes a supply path may count in this weather (8.2.2)."""
    lengths = fact("supply_path_length", "length")
    if weather not in lengths:
        raise datafile.DataFileError(f"tables.toml: supply_path_length (8.2.2) gives no length for {weather!r}",
                                     field="supply_path_length")
    return int(lengths[weather])
