"""Who may use a limited connection, and the MEF beach head (base 11.1.4, 11.1.10, 18.1.2).

One answer for movement and for supply: a supply line crosses only the connections the tracing
unit could move across (14.1.2, RULINGS R15).

  beach_head(state), beach_index(state)    the MEF Beach Head marker's space, if placed (9.5.3.5)
  lift_beach_head(state)                   the marker goes once a Central Powers unit is there
  opened_index(state)                      the MEF space in play: the marker's, or a lifted one
  mef_space_open(pog, i, beach)            a MEF space is in play only with the marker in it
  mef_link_open(pog, x, y, beach)          and so is a connection to it (base 11.1.10)
  unit_tokens(unit, tokens)                the connection tokens that admit the unit (11.1.4, R06)
  link_open(tokens, admitted, mef_open)    may a unit those tokens admit use the connection
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from .data import PogMap, Unit
from .roles import ANA, BEF_UNITS
from .state import PogState

MEF = "mef"  # base 11.1.10: the token of the MEF beach head connections
MEF_NATION = "none"  # map.toml: the MEF beach head spaces belong to no nation
BEACH_HEAD_EVENT = "beach_head:"  # R36: until PogState has a field, "beach_head:<space>" in events
LIFTED_EVENT = "beach_head_lifted:"  # 9.5.3.5: the MEF space whose marker a Central Powers unit removed
DASHED_LINE_NATION = {"sn": "tu"}  # base 11.1.4: the SN unit is Turkish for dashed lines
# base 11.1.4, R06: `br` admits British units but not the ANA (it has its own token); `br_corps`
#   (18.1.2) admits British corps, AUS, CND and PT included, but not the ANA or the BEF corps.
TOKEN_EXCLUDES = {"br": frozenset({ANA}), "br_corps": frozenset({ANA}) | BEF_UNITS}
CORPS_SUFFIX = "_corps"  # `<nation>_corps` admits only that nation's corps


def beach_head(state: PogState) -> str | None:
    """The MEF Beach Head marker's space, if placed: `state.beach_head` when PogState has it, else
    an entry "beach_head:<space>" in state.events (R36)."""
    where = getattr(state, "beach_head", None)
    if where:
        return where
    for entry in state.events:
        if entry.startswith(BEACH_HEAD_EVENT):
            return entry[len(BEACH_HEAD_EVENT):]
    return None


def lift_beach_head(state: PogState) -> None:
    """base 9.5.3.5: once a Central Powers unit enters the marker's space, the marker goes: the
    space is no Allied port any more, but stays a normal space for movement and combat."""
    where = beach_head(state)
    if where and any(state.faction(unit) == "cp" for unit in state.units_in(where)):
        state.events.discard(BEACH_HEAD_EVENT + where)
        state.events.add(LIFTED_EVENT + where)


def beach_index(state: PogState) -> int | None:
    """The marker's space as a map index (None when not placed): an Allied port (9.5.3.5)."""
    where = beach_head(state)
    return state.map.index.get(where) if where else None


def opened_index(state: PogState) -> int | None:
    """The MEF space in play (base 11.1.10): the marker's, or the one whose marker was lifted."""
    lifted = next((entry[len(LIFTED_EVENT):] for entry in state.events if entry.startswith(LIFTED_EVENT)), None)
    return beach_index(state) if lifted is None else state.map.index.get(lifted)


def mef_space_open(pog: PogMap, i: int, beach: int | None) -> bool:
    """base 11.1.10, R36: a MEF space is out of play unless the beach head marker is in it."""
    return pog.nation[i] != MEF_NATION or i == beach


def mef_link_open(pog: PogMap, x: int, y: int, beach: int | None) -> bool:
    """A `mef` connection may be used while both its ends are in play (base 11.1.10)."""
    return mef_space_open(pog, x, beach) and mef_space_open(pog, y, beach)


def _admits(unit: Unit, token: str) -> bool:
    if unit.id in TOKEN_EXCLUDES.get(token, ()):
        return False
    if token == "ana":
        return unit.id == ANA
    if token == MEF:
        return False  # it depends on where the marker is, not on the unit
    nation = DASHED_LINE_NATION.get(unit.nation, unit.nation)
    if token.endswith(CORPS_SUFFIX):
        return unit.type == "corps" and nation == token[: -len(CORPS_SUFFIX)]
    return nation == token


@cache
def unit_tokens(unit: Unit, tokens: frozenset[str]) -> frozenset[str]:
    """The tokens among `tokens` that admit this unit (never `mef`, which admits by position)."""
    return frozenset(token for token in tokens if _admits(unit, token))


def link_open(tokens: Collection[str], admitted: frozenset[str], mef_open: bool) -> bool:
    """May a unit admitted by `admitted` use a link limited to `tokens` (base 11.1.4)? A `mef`
    link is open to all while its MEF space holds the marker (`mef_open`, base 11.1.10)."""
    return not admitted.isdisjoint(tokens) or (mef_open and MEF in tokens)
