"""The Withdrawal combat card (base 12.6, 12.3.4.2; R86): the defenders regain one step lost in
the combat and retreat one space, whatever the loss numbers.

The step regained is that of the last corps the defender's losses fell on (his answer lists its
steps in order, so he picks it); with no corps step, that of the last army only reduced, when the
loss number was its loss factor (12.6.8). An eliminated corps comes back reduced where it fell
(12.6.10); an eliminated army does not.
"""

from __future__ import annotations

from .losses import Outcome
from .state import PogState


def through_corps(state: PogState, answers: list[Outcome]) -> list[Outcome]:
    """base 12.6.9: where the loss number can be met with a corps step, it must be."""
    with_corps = [a for a in answers if any(_is_corps(state, u) for u in a.targets)]
    return with_corps or answers


def _is_corps(state: PogState, unit: str) -> bool:
    return state.unit_facts[unit].type == "corps"


def negate_step(state: PogState, combat: dict) -> list[dict]:
    """base 12.6.3, 12.6.6-12.6.8, 12.6.10: one step back, then a one-space retreat (12.6.4)."""
    combat["withdrawal"] = True
    combat["must_retreat"] = True  # base 12.6.4: even on a tie or when the attacker lost
    taken = combat.get("taken", {}).get("defender", {"targets": [], "eliminated": []})
    targets, eliminated = taken["targets"], set(taken["eliminated"])
    corps = [u for u in targets if _is_corps(state, u)]
    number = combat["attacker_fire"]["loss_number"]
    armies = [u for u in targets if not _is_corps(state, u) and u not in eliminated
              and state.unit_facts[u].lf == number]
    unit = (corps or armies or [None])[-1]
    if unit is None:
        combat["log"].append("Withdrawal: no step to regain (base 12.6.7, 12.6.8)")
        return []
    here = state.units[unit]
    if unit in eliminated:
        here.space, here.reduced = combat["space"], True
        state.removed.discard(unit)
        if unit not in combat["defenders"]:
            combat["defenders"].append(unit)
        combat["log"].append(f"Withdrawal: {unit} comes back reduced (base 12.6.10)")
    else:
        here.reduced = False
        combat["log"].append(f"Withdrawal: {unit} regains its step (base 12.6.3)")
    return [{"kind": "step_regained", "unit": unit, "rule": "base 12.6.3"}]
