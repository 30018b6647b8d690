"""Trench levels (base 11.2): one level comes off a trench when the enemy takes its space (base
11.2.5-11.2.7, RULINGS R03, R24) or when it is spent on a fort (15.4). Movement, attrition and
fort building all take it off here."""

from __future__ import annotations

from .state import PogState


def lose_level(state: PogState, space: str) -> int:
    """Take one level off the trench in `space` (level 2 becomes level 1, level 1 goes); returns
    the level left, 0 when there is no trench any more."""
    left = state.trenches.get(space, 0) - 1
    if left > 0:
        state.trenches[space] = left
        return left
    state.trenches.pop(space, None)
    return 0
