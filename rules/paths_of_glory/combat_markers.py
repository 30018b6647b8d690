"""Event markers that act in combats (R88): Great Retreat, Yanks and Tanks, Brusilov Offensive,
Sinai Pipeline, Lloyd George, Stavka Timidity, Haig. Their facts are `[markers]` in
data/combat_cards.toml, in the cards' vocabulary, plus:
  event      the event id in `state.events` that puts it in effect (default: its own id)
  lasts      "round", "turn" or "game": when the event's effect ends
  once       it helps one attack per action round only
  announced  its side names it like a card, in `attack cards=` or at a card step
             (`play_cards cards=great_retreat`)
  ended_by   combat cards whose use ends the event for good

A marker is judged once, when the combat is designated, like supply (R20): the markers that fit
are recorded in the combat, by the role they help.
"""

from __future__ import annotations

from pbem.errors import IllegalOrder

from .combat_cards import markers, refusal_of
from .state import PogState


def designate(state: PogState, combat: dict) -> None:
    """Record the markers acting in this combat; refuse an attack a marker forbids."""
    found: dict[str, list[str]] = {}
    for name, marker in markers().items():
        if marker.get("announced") or marker.get("event", name) not in state.events:
            continue
        for role in _roles(combat, marker):
            if refusal_of(state, combat, role, name) is None:
                found.setdefault(role, []).append(name)
    for names in found.values():
        for name in names:
            if any(e["kind"] == "attack_forbidden" for e in markers()[name]["effects"]):
                raise IllegalOrder(f"the {name.replace('_', ' ').title()} event forbids this attack",
                                   rule=markers()[name]["rule"], field="space")
    if found:
        combat["markers"] = found


def _roles(combat: dict, marker: dict) -> list[str]:
    """The roles of this combat held by the marker's side that the marker may help."""
    mine = "attacker" if combat["side"] == marker["side"] else "defender"
    return [mine] if marker["role"] in (mine, "either") else []


