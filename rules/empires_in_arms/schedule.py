"""Leaders who arrive or leave on a date (14.7.6 as a set-up patch): each turn, as it opens, the
scenario's schedule brings the new ones to their power's capital (off the map while it is a
neutral UMP, 14.3.6: it still gains its reinforcements) and takes away those who leave."""

from __future__ import annotations

from . import powers, units
from .state import NEUTRAL, EiaState, Leader


def when(text: str) -> tuple[int, int]:
    year, month = text.split("-")
    return int(year), int(month)


def arrive(state: EiaState, today: tuple[int, int]) -> None:
    """Every entry dated this month or earlier, in the schedule's order."""
    due = [entry for entry in state.schedule if when(entry["on"]) <= today]
    for entry in due:
        name = entry["leader"]
        if entry["event"] == "removed":
            state.leaders.pop(name, None)
        else:
            power = units.leader(name)["power"]
            neutral = state.powers[power].status == NEUTRAL
            state.leaders[name] = Leader(power, None if neutral else powers.capital(power))
    state.schedule = [entry for entry in state.schedule if entry not in due]


def merged(base: list[dict], patch: list[dict]) -> list[dict]:
    """A patch's entry replaces the base's for the same leader and event."""
    replaced = {(entry["leader"], entry["event"]) for entry in patch}
    kept = [entry for entry in base if (entry["leader"], entry["event"]) not in replaced]
    return sorted(kept + patch, key=lambda entry: (when(entry["on"]), entry["leader"]))
