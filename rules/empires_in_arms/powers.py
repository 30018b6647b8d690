"""The major powers' facts (data/powers.toml: their order, when an UMP turns active, economies and
capitals) and their tables (data/tables.toml: the Natural Alliance Table, or the charter's, or the
Bourbon table of 14.3.8; the Political Status Display; objective charts; victory levels)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile

from . import game_tables


@cache
def _data() -> dict:
    return datafile.load(__package__, "powers.toml")


def order() -> list[str]:
    return list(_data()["powers"])


def active_at(ump: str) -> int:
    """14.3.2, 14.3.7: the winning total that makes the UMP active."""
    thresholds = _data()["active_at"]
    return int(thresholds.get(ump, thresholds["default"]))


def natural_alliance(tables: Mapping[str, Mapping], bourbon: bool, power: str, ump: str) -> int:
    """14.3.1.1.2, 14.3.8: the table's modifier for `power` bidding for `ump` (the charter's
    `natural_alliance` table replaces the demonstration one)."""
    table = game_tables.table("bourbon") if bourbon else game_tables.table("natural_alliance", tables)
    return int(table.get(power, {}).get(ump, 0))


def status_modifier(pp: int) -> int:
    """14.3.1.1.8: the Political Status Display's modifier for a power with `pp` political points."""
    return int(_band("status_modifier", "modifier", pp))


def economy(power: str) -> Mapping[str, int]:
    """What the power's economy yields an Economic Phase: money and manpower (14.3.6.1b)."""
    return _data()["economy"][power]


def victory_level(power: str, parenthesised: bool) -> int:
    """8.1.3.2, 14.3.9: the power's victory level; an UMP's is the parenthesised one."""
    facts = game_tables.table("victory_level")[power]
    return int(facts["parenthesised" if parenthesised else "level"])


def objectives(ump: str) -> Mapping[str, Mapping[str, int]]:
    """The UMP's National Objective Chart as overtures read it: `crucial` and `cession` (14.3.1.1.4-5)."""
    return game_tables.table("objectives")[ump]


def capital(power: str) -> str:
    return str(_data()["capital"][power])


def zone(pp: int) -> str:
    """10.5.2: the Political Status Display's zone for a power with `pp` political points (E20)."""
    return str(_band("status_zone", "zone", pp, ""))


def economic_loss(zone_name: str, die: int) -> int | None:
    """10.5.2: the money lost in that zone on that modified die; None where the zone rolls none."""
    table = game_tables.table("economic_loss").get(zone_name)
    return None if table is None else int(table.get(str(die), 0))


def status_vp(pp: int) -> int:
    """14.3.3.8: the victory point number of the Political Status Display at `pp` political points
    (E25)."""
    return int(_band("status_vp", "vp", pp))


def _band(table: str, key: str, pp: int, below: object = 0):
    """The `key` of the highest of the table's bands whose `from` the political points reach;
    `below` under the lowest."""
    found = [band[key] for band in game_tables.table(table) if pp >= band["from"]]
    return found[-1] if found else below
