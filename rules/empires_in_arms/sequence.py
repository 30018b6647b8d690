"""The turn's steps in the order data/sequence.toml gives them, and the calendar: each step ends
by opening the next, running at once those that ask nobody anything, and skipping the Economic
Phase's steps in a month that has none (E19). The last step closes a turn; the next turn opens with
the peace step and the reinforcements the scenario schedules (14.7.6)."""

from __future__ import annotations

from functools import cache

from pbem import datafile

from . import land, peace, powers, schedule
from .state import EiaState


@cache
def _data() -> dict:
    return datafile.load(__package__, "sequence.toml")


def steps() -> list[dict]:
    return _data()["steps"]


def month(state: EiaState) -> tuple[int, int]:
    """(year, month) of the turn: the scenario's start is turn 1, each turn a month later."""
    year, first = state.start
    index = first - 1 + max(state.turn, 1) - 1
    return year + index // 12, index % 12 + 1


def economic(state: EiaState) -> bool:
    """Whether this turn ends with an Economic Phase (before the game, the control step runs)."""
    return state.turn == 0 or month(state)[1] in _data()["calendar"]["economic_months"]


def after(state: EiaState, step: str) -> None:
    """`step` is over: open the next one this turn runs (a new turn after the last)."""
    ids = [s["id"] for s in steps()]
    for following in steps()[ids.index(step) + 1:] if state.turn else []:  # before the game, one step (14.3.1)
        if economic(state) or not following.get("economic"):
            open_step(state, following["id"])
            return
    state.turn += 1
    schedule.arrive(state, month(state))
    open_step(state, ids[0])


def open_step(state: EiaState, step: str) -> None:
    state.step = step
    if step == "peace":
        peace.open_step(state)
        if not peace.deciding(state):
            after(state, step)
    elif step == "land":
        next_land_phase(state, None)


def next_land_phase(state: EiaState, ended: str | None) -> None:
    """The next power's land phase, in data order (E13), or the step after the land phase."""
    rank = powers.order().index
    following = [p for p in land.phase_order(state) if ended is None or rank(p) > rank(ended)]
    if following:
        land.start(state, following[0])
        return
    land.start(state, "")
    after(state, "land")
