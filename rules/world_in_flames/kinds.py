"""The kinds of unit the rules of 1-2.4 tell apart, one vocabulary for every module (1.2)."""

from __future__ import annotations

from pbem.errors import UsageError

LAND = ("corps", "army", "hq", "partisan", "division", "engineer", "artillery", "supply")
AIR = ("aircraft", "flying_boat")
# carrier: CV; surface: the surface combat ships (SCS); transport: TRS; amphibious: AMPH; convoy:
# convoy points (2.3.1, 2.4.2)
NAVAL = ("carrier", "surface", "submarine", "transport", "amphibious", "convoy")
SHIPS = tuple(kind for kind in NAVAL if kind != "convoy")
MARKERS = ("fort",)
ALL = (*LAND, *AIR, *NAVAL, *MARKERS)


def check(kind: str) -> str:
    """The kind, if it is one; UsageError naming them otherwise."""
    if kind not in ALL:
        raise UsageError(f"no kind of unit {kind!r} (kinds: {', '.join(ALL)})", field="kind")
    return kind
