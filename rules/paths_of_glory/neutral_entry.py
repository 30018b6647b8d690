"""Neutral entry event cards (base 9.5.2-9.5.2.2; R107): Romania, Italy, Greece and Bulgaria.

Played as an event, the card brings its nation into the war on the card's side: its units set up
as the set-up chart lists them (war.enter_war), and the corps the chart lets the entering side
place itself ("any other 4 spaces ... 1 Corps each space", setup_1914.toml [[on_entry_free]]) go
where the order's `place=unit:space` says: each in a space of the nation, one a space, none in the
spaces the chart names. Only one neutral entry card is played a turn, by either side (9.5.2.2);
the turn is recorded in the track `neutral_entry_turn`.
"""

from __future__ import annotations

from pbem.errors import IllegalOrder

from . import war
from .data import FreeEntry, load_setup
from .movement import space_named
from .state import PogState, UnitState

TRACK = "neutral_entry_turn"


def enter(state: PogState, nation: str, place: list, rule: str) -> list[dict]:
    """The nation enters with its set-up and the free placements named in `place`."""
    if war.track(state, TRACK) == state.turn:
        raise IllegalOrder("a neutral nation has entered the war this turn already", rule="base 9.5.2.2",
                           field="card")
    free = next((f for f in load_setup(state.variants).on_entry_free if f.nation == nation), None)
    wanted = _placements(state, nation, free, place)
    events = war.enter_war(state, nation, rule)
    for unit, space in wanted.items():
        state.units[unit] = UnitState(space)
    state.tracks[TRACK] = state.turn
    return events


def _placements(state: PogState, nation: str, free: FreeEntry | None, place: list) -> dict[str, str]:
    units, not_in = (free.units, free.not_in) if free else ((), ())
    named = dict(_parse(state, item, index) for index, item in enumerate(place))
    if set(named) != set(units):
        listed = ", ".join(units) or "none"
        raise IllegalOrder(f"place each corps the set-up chart lets you place, one a space: {listed} "
                           "(place=unit:space)", rule="base 9.5.2.1", field="place")
    pog = state.map
    for unit, space in named.items():
        if pog.nation[pog.index[space]] != nation or space in not_in:
            raise IllegalOrder(f"{unit} goes to another space of its nation than {', '.join(not_in)}",
                               rule="base 9.5.2.1", field="place")
    if len(set(named.values())) != len(named):
        raise IllegalOrder("one corps a space", rule="base 9.5.2.1", field="place")
    return named


def _parse(state: PogState, item, index: int) -> tuple[str, str]:
    unit, _, space = str(item).partition(":")
    return unit, space_named(state, space, f"place[{index}]", "base 9.5.2.1")
