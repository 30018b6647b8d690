"""The Near East map's limits on armies and on the Caucasus crossing (base 11.3.1-11.3.2, 12.1.9),
shared by movement, attack, retreat and advance."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from .state import PogState

CAUCASUS_LINKS = (frozenset({"caucasus", "poti"}), frozenset({"caucasus", "grozny"}))  # base 11.3.2
CROSSED_TURN = "ru_caucasus_crossed_turn"  # track: the turn a Russian corps last crossed
FALL_OF_THE_TSAR = "fall_of_the_tsar"


HOME_ENTRY_BARS = {"fr_orient_army": frozenset({"salonika"})}  # 9.5.3.4: and Salonika, for the Orient Army


def army_barred(state: PogState, unit: str, space: str) -> tuple[str, str] | None:
    """Where an army may not enter or attack, with the rule, or None: base 11.3.1, only the armies
    of the Near East list go onto the Near East map; 9.5.3.4 (R117), not one that entered at home
    instead, nor the Orient Army so entered into Salonika."""
    facts = state.unit_facts[unit]
    if facts.type != "army":
        return None
    at_home = home_records().get(unit) in state.events
    if at_home and space in HOME_ENTRY_BARS.get(unit, ()):
        return f"{state.map.name_of(space)}, having entered at home", "base 9.5.3.4"
    if state.map.map[state.map.index[space]] == "neareast" and not (facts.near_east and not at_home):
        return "the Near East map", "base 11.3.1"
    return None


@cache
def home_records() -> Mapping[str, str]:
    """Each Allied Near East army's record of an entry at home (cards.toml `home_entry`)."""
    from . import cards

    return {unit: facts["reinforcements"]["home_entry"] for facts in cards.catalogue().values()
            if "home_entry" in facts.get("reinforcements", {}) for unit in facts["reinforcements"]["units"]}


def caucasus_refusal(state: PogState, unit: str, a: str, b: str) -> str | None:
    """base 11.3.2, 12.1.9: why a Russian unit may not move, retreat, attack or advance between the
    Caucasus and the Near East (Poti, Grozny), or None: never an army, never after the Fall of the
    Tsar, and one corps a turn."""
    if frozenset({a, b}) not in CAUCASUS_LINKS or state.nation(unit) != "ru":
        return None
    if state.unit_facts[unit].type == "army":
        return "a Russian army never crosses between the Caucasus and the Near East"
    if FALL_OF_THE_TSAR in state.events:
        return "after the Fall of the Tsar no Russian unit crosses between the Caucasus and the Near East"
    if state.tracks.get(CROSSED_TURN) == state.turn:
        return "a Russian corps has already crossed between the Caucasus and the Near East this turn"
    return None


def record_crossing(state: PogState, a: str, b: str) -> None:
    if frozenset({a, b}) in CAUCASUS_LINKS:
        state.tracks[CROSSED_TURN] = state.turn
