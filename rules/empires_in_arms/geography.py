"""The map's facts (data/map.toml, a sample map of our own): areas, the territories (provinces and
minor countries) they make up, and the borders between them."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import UsageError


@cache
def _data() -> dict:
    return datafile.load(__package__, "map.toml")


def areas() -> Mapping[str, dict]:
    return _data()["areas"]


def territories() -> Mapping[str, dict]:
    return _data()["territories"]


def home_areas(power: str) -> list[str]:
    """The areas of the power's home nation."""
    return _index()["home"].get(power, [])


def areas_of(territory: str) -> list[str]:
    return _index()["territory"].get(territory, [])


def neighbours(area: str) -> list[tuple[str, str]]:
    """(area, crossing) across each border of `area`."""
    return _index()["borders"].get(area, [])


@cache
def _index() -> dict[str, dict[str, list]]:
    """The map's lookups, built once: home areas by power, areas by territory, borders by area."""
    found: dict[str, dict[str, list]] = {"home": {}, "territory": {}, "borders": {}}
    for area, facts in areas().items():
        found["territory"].setdefault(facts["territory"], []).append(area)
        home = territories()[facts["territory"]].get("home")
        if home:
            found["home"].setdefault(home, []).append(area)
    for a, b, kind in _data()["borders"]:
        found["borders"].setdefault(a, []).append((b, kind))
    for a, b, kind in _data()["borders"]:
        found["borders"].setdefault(b, []).append((a, kind))
    return found


def area_named(text: str) -> str:
    """An area by its id or name, in any case; UsageError naming the nearest otherwise."""
    wanted = text.strip().lower().replace(" ", "_")
    for area, facts in areas().items():
        if wanted in (area, facts["name"].lower().replace(" ", "_")):
            return area
    import difflib

    near = difflib.get_close_matches(wanted, list(areas()), n=1)
    raise UsageError(f"no area {text!r}" + (f"; did you mean {near[0]}?" if near else ""), field="area")


def area_in_order(text: str, rule: str, field: str) -> str:
    """An area an order names: as area_named, but an unknown one refuses the order (IllegalOrder
    naming its rule and field), so a sealed order is voided, never a fault."""
    from pbem.errors import IllegalOrder

    try:
        return area_named(text)
    except UsageError as exc:
        raise IllegalOrder(exc.message, rule=rule, field=field) from None
