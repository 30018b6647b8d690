"""Trench levels (base 11.2): one level comes off a trench when the enemy takes its space (base
11.2.5-11.2.7, RULINGS R03, R24) or when it is spent on a fort (15.4). Movement, attrition and
fort building all take it off here."""

from __future__ import annotations

from .state import PogState


def owner(state: PogState, space: str) -> str | None:
    """The side a trench belongs to (R03): it may differ from the space's control, as when
    besiegers take a level-2 trench in a fort space they do not control."""
    if not state.trenches.get(space):
        return None
    return state.trench_owner.get(space) or state.control.get(space)


def lose_level(state: PogState, space: str, taker: str | None = None) -> int:
    """Take one level off the trench in `space` (level 2 becomes level 1, level 1 goes); returns
    the level left, 0 when there is no trench any more. A `taker` (an enemy stopping there, or
    attrition's new controller) owns the level 1 left (base 11.2.6-11.2.7)."""
    left = state.trenches.get(space, 0) - 1
    if left > 0:
        state.trenches[space] = left
        if taker is not None:
            state.trench_owner[space] = taker
        return left
    state.trenches.pop(space, None)
    state.trench_owner.pop(space, None)
    return 0


def add_level(state: PogState, space: str, side: str) -> int:
    """base 11.2.2-11.2.3: a level 1 trench for `side`, or its level 1 raised to 2; the level now."""
    level = min(state.trenches.get(space, 0) + 1, 2)
    state.trenches[space] = level
    state.trench_owner[space] = side
    return level
