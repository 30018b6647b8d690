"""A charter's tables that replace the demonstration ones, checked when the charter is read, so
a hole in one is refused at `pbem new` and never met in the middle of a game (UsageError naming
the table and its rule)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import UsageError

from . import geography, powers


def check(tables: Mapping[str, Mapping]) -> None:
    _natural_alliance(tables.get("natural_alliance"))
    _whole_numbers(tables, "movement_cost", "7.3", sorted({a["terrain"] for a in geography.areas().values()}))
    _whole_numbers(tables, "rating_reduction", "10.6.1.2.1", ["per_corps"])
    _whole_numbers(tables, "combat_losses", "7.5", [str(die) for die in range(1, 9)])
    _combat_matrix(tables.get("combat_matrix"))


def _natural_alliance(table) -> None:
    """14.3.1.2: a whole number for every bidding power and every other power, rows the bidders (E1)."""
    if table is None:
        return
    for power in powers.order():
        row = table.get(power) if isinstance(table, dict) else None
        for ump in powers.order():
            if ump != power and not (isinstance(row, dict) and type(row.get(ump)) is int):
                raise UsageError(f"tables.natural_alliance needs a whole number for {power} bidding for {ump}",
                                 rule="14.3.1.2", field="tables.natural_alliance")


def _whole_numbers(tables: Mapping[str, Mapping], name: str, rule: str, keys: list[str]) -> None:
    table = tables.get(name)
    if table is None:
        return
    missing = [key for key in keys if not (isinstance(table, dict) and type(table.get(key)) is int)]
    if missing:
        raise UsageError(f"tables.{name} needs a whole number for {missing[0]}", rule=rule, field=f"tables.{name}")


def _combat_matrix(table) -> None:
    """E23: for every attacker option, every defender option but withdraw: [attacker, defender]."""
    from .combat import ATTACKER_OPTIONS, DEFENDER_OPTIONS

    if table is None:
        return
    for attack in ATTACKER_OPTIONS:
        for defend in DEFENDER_OPTIONS[:-1]:
            row = table.get(attack) if isinstance(table, dict) else None
            cell = row.get(defend) if isinstance(row, dict) else None
            if not (isinstance(cell, list) and len(cell) == 2 and all(type(v) is int for v in cell)):
                raise UsageError(f"tables.combat_matrix needs [attacker, defender] modifiers for {attack} against "
                                 f"{defend}", rule="7.5", field="tables.combat_matrix")
