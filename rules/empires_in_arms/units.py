"""The facts of corps kinds and leaders (data/units.toml): movement, who counts as cavalry, who
commands an area, and a leader's rating once reduced by the corps present (12.3.7.4.6)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile

from . import game_tables


@cache
def _data() -> dict:
    return datafile.load(__package__, "units.toml")


def kinds() -> Mapping[str, dict]:
    return _data()["kinds"]


def kind(name: str) -> Mapping:
    return _data()["kinds"][name]


def leaders() -> Mapping[str, dict]:
    return _data()["leaders"]


def leader(name: str) -> Mapping:
    return _data()["leaders"][name]


def movement_cost(tables: Mapping[str, Mapping], terrain: str) -> int:
    """Movement points to enter an area of this terrain (E13; a charter's table replaces ours)."""
    return int(game_tables.table("movement_cost", tables)[terrain])


def reduced(tables: Mapping[str, Mapping], rating: int, capacity: int, corps_present: int) -> int:
    """10.6.1.2.1 as 12.3.7.4.6 applies it to strategic ratings: less for each corps beyond the
    leader's capacity."""
    per_corps = int(game_tables.table("rating_reduction", tables)["per_corps"])
    return rating - per_corps * max(0, corps_present - capacity)


RANKS = "ABC"


def seniority(name: str) -> tuple[int, int, int]:
    """10.6.1 (E14): who commands where several leaders stand: the higher rank, then the higher
    strategic rating, then data order."""
    facts = leader(name)
    return (RANKS.index(facts["rank"]), -int(facts["strategic"]), list(leaders()).index(name))


def cavalry_cost(raised_in: str) -> int:
    """12.3.3.3: a cavalry factor raised in the Islamic states of the Levant and North Africa costs
    $6, elsewhere $15."""
    costs = _data()["cavalry_cost"]
    return int(costs["cheap"] if raised_in in costs["cheap_in"] else costs["default"])


def check_factors(name: str, kind_name: str, factors: Mapping[str, int]) -> str | None:
    """What is wrong with a corps' factors, with its rule (12.3.3.4: the Turkish Imperial Cavalry
    up to 16 cavalry factors); None if nothing."""
    most = kind(kind_name).get("most_cavalry")
    if most is not None and factors.get("cavalry", 0) > most:
        return f"12.3.3.4: {name} may hold up to {most} cavalry factors, not {factors['cavalry']}"
    return None


def militia_morale(kind_name: str, landwehr: bool) -> int:
    """12.11.3: militia factors in a regular corps of a power whose landwehr is active have morale
    2.5 (in tenths: 25); in garrisons and the Insurrection corps, and without it, their own."""
    morale = _data()["morale"]
    regular = not kind(kind_name).get("garrison") and not kind(kind_name).get("militia")
    return int(morale["landwehr_militia"] if landwehr and regular else morale["militia"])
