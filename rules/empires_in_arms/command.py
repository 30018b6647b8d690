"""Who commands what: a player his own major powers (his charter `sides`) and the UMPs they
control while active or inactive (14.3.3.1: the controlling player makes its decisions); a neutral
or uncontrolled UMP nobody."""

from __future__ import annotations

from . import powers
from .state import ACTIVE, INACTIVE, EiaState


def own_powers(state: EiaState, player: str) -> list[str]:
    """The powers in a player's charter sides, in data order; none once he resigned (E9)."""
    if player in state.resigned:
        return []
    sides = next((seat.sides for seat in state.setup.roster if seat.id == player), ())
    return [power for power in powers.order() if power in sides]


def commanded(state: EiaState, player: str) -> list[str]:
    """His powers and the UMPs they control, in data order."""
    mine = own_powers(state, player)
    return [power for power in powers.order()
            if power in mine or (state.powers[power].status in (ACTIVE, INACTIVE)
                                 and state.powers[power].controller in mine)]


def commander(state: EiaState, power: str) -> str | None:
    return next((player for player in state.setup.players if power in commanded(state, player)), None)


def enemies(state: EiaState, power: str) -> set[str]:
    return {other for pair in state.wars if power in pair for other in pair if other != power}
