"""Entrenching (base 11.2.1-11.2.3; 14.3.3): an army in a space activated for movement may try
to dig in instead of moving, once an Entrench event is in effect; the die is rolled after all
movement, at the roll point of the entry that ends it (R83)."""

from __future__ import annotations

from pbem.errors import IllegalOrder

from . import supply, trenches
from .movement import Activation
from .state import PogState

ENTRENCH_EVENTS = ("ap_entrench", "cp_entrench")  # cards.csv: either side's Entrench lets both dig


def attempt(state: PogState, side: str, unit: str, activation: Activation, action: dict) -> None:
    """Mark `unit` to entrench; it may not move after (base 11.2.1). Raises IllegalOrder."""
    refusal = _refusal(state, side, unit, activation, action)
    if refusal:
        raise IllegalOrder(refusal[1], rule=refusal[0], field="unit")
    activation.moved.add(unit)  # an army that tries to entrench does not move in this action
    action.setdefault("entrench", []).append(unit)


def _refusal(state: PogState, side: str, unit: str, activation: Activation, action: dict) -> tuple[str, str] | None:
    facts = state.unit_facts.get(unit)
    if not any(event in state.events for event in ENTRENCH_EVENTS):
        return "base 11.2.1", "no Entrench event is in effect yet"
    if facts is None or unit not in state.units or facts.faction != side or facts.type != "army":
        return "base 11.2.1", f"{unit!r} is not an army of this side"
    space = state.units[unit].space
    if space not in activation.move or unit not in activation.units or unit in activation.moved:
        return "base 11.2.1", f"{unit} is not an army in a space activated for movement that has not moved"
    if any(state.units[other].space == space for other in action.get("entrench", [])):
        return "base 11.2.1", f"one army per space tries to entrench, and {state.map.name_of(space)} has one"
    if state.trenches.get(space, 0) >= 2 or trenches.owner(state, space) not in (None, side):
        return "base 11.2.3", f"{state.map.name_of(space)} holds a level 2 trench or the enemy's"
    if supply.compute(state).status(unit) == "out":
        return "14.3.3", f"{unit} is out of supply and may not entrench"
    return None


REMINDER_NATIONS = ("ge", "br", "fr", "it")  # base 11.2.10 (optional): whose failures are remembered


def roll(state: PogState, dice, action: dict, reminder: bool = False) -> list[dict]:
    """base 11.2.2: a die for each army trying; at or under its LF, the space's trench rises a level.
    With the optional 11.2.10 (`reminder`), a German, British, French or Italian army that failed
    in the round before has -1 on its die; a failure is remembered for the next round only."""
    events = []
    now = state.turn * 100 + state.round
    for unit in action.pop("entrench", []):
        space = state.units[unit].space
        lf = state.unit_facts[unit].rlf if state.units[unit].reduced else state.unit_facts[unit].lf
        drm = -1 if reminder and _failed_last_round(state, unit) else 0
        die = dice.roll(6, f"{unit} entrenches in {state.map.name_of(space)}", "base 11.2.2")
        dug = die + drm <= lf
        state.tracks.pop(f"entrench_miss_{unit}", None)
        if reminder and not dug and state.nation(unit) in REMINDER_NATIONS:
            state.tracks[f"entrench_miss_{unit}"] = now
        said = f"{die}{drm:+d}" if drm else f"{die}"
        dice.draws[-1].purpose += f": {said} {'≤' if dug else '>'} LF {lf}, " + \
            (f"trench level {trenches.add_level(state, space, state.faction(unit))}" if dug else "no trench")
        events.append({"kind": "entrench", "unit": unit, "space": space, "die": die, "drm": drm, "dug": dug,
                       "rule": "base 11.2.10" if drm else "base 11.2.2"})
    return events


def _failed_last_round(state: PogState, unit: str) -> bool:
    """base 11.2.10: the marker counts in the round after the failure (or the next turn's first)."""
    failed = state.tracks.get(f"entrench_miss_{unit}")
    if failed is None:
        return False
    turn, round_ = divmod(failed, 100)
    return (state.turn, state.round - 1) == (turn, round_) or (state.turn == turn + 1 and state.round == 1)
