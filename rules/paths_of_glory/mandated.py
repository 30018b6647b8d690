"""The mandated actions at the end of a turn (R103; seed 8.1.6.1, 8.1.6.2, 17.1.2 name them).

The seeds name a Mandated Political and a Mandated Economic Action without placing them: they
stand where the base game's Attrition, Siege and Replacement Phases were (base 6 C, D, F). After
the last action round (and the extra action of 8.2.4) comes one Mandated Political Action, the
attrition segment (14.3.6), which judges both sides at once; then each side, the first side
first, takes a Mandated Economic Action if it has RPs to spend or forts to roll for:
replacements, whose unspent RPs are lost (17.1.2), then its sieges (15.3). No foreign aid in it
(16.5.1), no draw or recycle after it (8.1.6.1-8.1.6.2), no card discarded for an additional
action (R102). Where they fall is data: sequence.toml [end_of_turn].
"""

from __future__ import annotations

from functools import cache

from pbem import datafile

from . import forts, replacements, supply
from .state import PogState, enemy


@cache
def _facts() -> dict:
    return datafile.load(__package__, "sequence.toml")["end_of_turn"]


def front_discard() -> bool:
    """Are the combat cards kept in front discarded at the end of the turn (base 9.5.4.5)?"""
    return bool(_facts()["front_discard"])


def political(state: PogState) -> list[dict]:
    """The Mandated Political Action: attrition for both sides (14.3.6), if the sequence has it."""
    return supply.attrition(state) if "political" in _facts()["mandated"] else []


def economic_due(state: PogState, side: str) -> bool:
    """Has the side a Mandated Economic Action to take: RPs recorded, or a fort it besieges?"""
    if "economic" not in _facts()["mandated"]:
        return False
    besieged = any(state.forts.get(space) == "besieged" and forts.fort_owner(state, space) == enemy(side)
                   for space in state.forts)
    return besieged or replacements.rps_recorded(state, side)


def open_economic(state: PogState, side: str) -> None:
    """Its player names the replacements (a decision) when the side has RPs; else only its sieges
    are rolled."""
    marks = {"mandated": True, "draw": "mandated"}
    if replacements.rps_recorded(state, side):
        state.action = {"kind": "mandated_economic", **marks}
    else:
        state.action = {"kind": "economic", **marks}
