"""Whose turn it is (W15): Axis and Allied impulses alternate, the Axis first; in its side's
impulse each player acts in roster order until he passes. A retreat waits for the retreating
units' owner, an overstack for the hex's owner, an attack for its die."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.ruleset import Chance, Decision, Over

from . import combat, emergency
from .state import SIDES, WifState


def players_of(state: WifState, side: str) -> list[str]:
    return [seat.id for seat in state.setup.roster if seat.role == "player" and seat.sides[:1] == (side,)
            and seat.id not in state.resigned]


def acting(state: WifState) -> str:
    """The player of the side in its impulse who acts now, "" if all have passed."""
    return next((p for p in players_of(state, state.side) if p not in state.passed), "")


def pending(state: WifState, options: Mapping[str, bool]):
    if state.attack:
        return Chance()
    if state.overstack:
        return Decision((state.overstack["player"],), f"{state.overstack['hex']} is overstacked: destroy unit=... "
                        "until it is within its limits, face-up units first (2.3.1)")
    if state.retreat:
        player, units = combat.retreating(state)
        return Decision((player,), f"retreat unit=... hex=... for each of {', '.join(units)} (from "
                        f"{state.retreat['hex']})")
    if state.impulse > state.impulses:
        return Over(f"the scenario's {state.impulses} impulses are played")
    if not any(players_of(state, side) for side in SIDES):
        return Over("abandoned: every player resigned")
    player = acting(state)
    emergency = "emergency_supply, " if options.get("option_13_emergency") else ""
    return Decision((player,), f"impulse {state.impulse} ({state.side}): move, overrun, attack, {emergency}or pass")


def pass_turn(state: WifState, player: str) -> None:
    state.passed.append(player)
    advance(state)


def advance(state: WifState) -> None:
    """Once every player of the side has passed, the other side's impulse begins (skipping a side
    with no player left)."""
    while not acting(state) and state.impulse <= state.impulses:
        emergency.end_of_impulse(state)
        state.impulse += 1
        state.side = SIDES[1 - SIDES.index(state.side)]
        state.passed, state.moved, state.attacked = [], [], []
        if not any(players_of(state, side) for side in SIDES):
            return
