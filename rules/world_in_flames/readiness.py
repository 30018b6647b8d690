"""Which units are in supply now (2.4.1: supply is checked when it matters, from the position as
it stands), counting option 13's emergency supply for this impulse (2.4.3)."""

from __future__ import annotations

from collections.abc import Mapping

from . import position, supply
from .state import WifState


def supplied(state: WifState, options: Mapping[str, bool]) -> dict[str, bool]:
    """Each unit: in supply, or operating as if it were (emergency supply this impulse)."""
    found = {name: status.supplied for name, status in supply.status(position.situation(state, dict(options))).items()}
    for units in state.emergency.values():
        found.update(dict.fromkeys(units, True))
    return found


def is_supplied(state: WifState, options: Mapping[str, bool], unit_id: str) -> bool:
    """One unit's supply: its own class's search alone."""
    if any(unit_id in units for units in state.emergency.values()):
        return True
    unit = position.unit(state, unit_id)
    return supply.status(position.situation(state, dict(options)), [unit])[unit_id].supplied
