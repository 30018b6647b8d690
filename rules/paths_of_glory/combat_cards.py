"""Combat cards (base 12.2.4-12.2.7, 12.2.11, 9.5.4.1.1; 14.3.4; R84): one vocabulary of effects and
conditions, read from data/combat_cards.toml, for every combat card.

A side names the cards it uses in a combat (the attacker in its `attack` order; part III adds
hands, the defender's choice and the discards). This module checks that each may be used here,
and tells fire, flank and the end of the combat what the cards do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import supply, trenches
from .state import PogState, enemy


@cache
def catalogue() -> Mapping[str, dict]:
    return datafile.load(__package__, "combat_cards.toml")["cards"]


def check(state: PogState, combat: Mapping, role: str, names: Iterable) -> list[str]:
    """The cards `role` uses in this combat, if every one may be; else IllegalOrder naming it."""
    side = combat["side"] if role == "attacker" else enemy(combat["side"])
    chosen: list[str] = []
    for i, name in enumerate(str(n) for n in names):
        card = catalogue().get(name)
        where = f"cards[{i}]"
        if card is None or card["side"] != side or card["role"] not in (role, "either"):
            raise IllegalOrder(f"{name!r} is not a combat card the {role} may use", rule="base 12.2.6", field=where)
        if name in chosen:
            raise IllegalOrder(f"{name} is named twice", rule="base 12.2.6", field=where)
        refusal = _refusal(state, combat, role, name, card)
        if refusal:
            raise IllegalOrder(f"{name}: {refusal[1]}", rule=refusal[0], field=where)
        chosen.append(name)
    return chosen


def _refusal(state: PogState, combat: Mapping, role: str, name: str, card: dict) -> tuple[str, str] | None:
    own, other = _units(state, combat, role), _units(state, combat, "defender" if role == "attacker" else "attacker")
    nations, others = {state.nation(u) for u in own}, {state.nation(u) for u in other}
    tests = (
        ("base 9.5.4.1.1", "none of its nations takes part", bool(nations & set(card.get("nations", nations)))),
        ("base 12.2.6", "not every unit is of its nations", nations <= set(card.get("only_nations", nations))),
        ("base 12.2.6", "the other side has none of its nations", bool(others & set(card.get("against", others)))),
        ("base 12.2.6", "the other side is not only of its nations", others <= set(card.get("against_only", others))),
        ("base 12.2.6", "its terrain, place, season or trench does not match", _place_holds(state, combat, card)),
        ("base 12.2.6", "its events are not in effect", _events_hold(state, card)),
        ("base 12.2.6", "it is used once a turn", state.tracks.get(f"card_used_{name}") != state.turn
         or not card.get("once_per_turn")),
        ("14.3.4", "the side is out of supply and uses no combat cards", _supplied_enough(combat, role)),
        ("base 12.2.6", "its units do not trace supply there", _supply_to(state, own, card)),
        ("base 12.2.6", "no unit of its nations has the combat factor it needs", _strong_enough(state, own, card)),
    )
    return next(((rule, why) for rule, why, holds in tests if not holds), None)


def _units(state: PogState, combat: Mapping, role: str) -> list[str]:
    units = combat["attackers"] if role == "attacker" else combat["defenders"]
    return [u for u in units if state.units[u].space in state.map.index]


def _place_holds(state: PogState, combat: Mapping, card: dict) -> bool:
    space = combat["space"]
    pog = state.map
    terrain = pog.terrain[pog.index[space]]
    spaces = [space, *combat["attack_spaces"]]
    seasons = card.get("seasons")
    fort = card.get("fort_nation")
    return all((
        terrain in card.get("terrain", [terrain]),
        any(pog.terrain[pog.index[s]] in card.get("from_or_to_terrain", [terrain]) for s in spaces),
        pog.nation[pog.index[space]] in card.get("space_nations", [pog.nation[pog.index[space]]]),
        not card.get("entrenched") or trenches.owner(state, space) == enemy(combat["side"]),
        seasons is None or state.season in seasons.get(terrain, []),
        fort is None or (pog.nation[pog.index[space]] == fort and state.forts.get(space) in ("intact", "besieged")),
    ))


def _events_hold(state: PogState, card: dict) -> bool:
    return (all(event in state.events for event in card.get("after", []))
            and not any(event in state.events for event in card.get("before", []))
            and state.turn <= card.get("last_turn", state.turn))


def _supplied_enough(combat: Mapping, role: str) -> bool:
    """14.3.4, 14.3.4.1-2 (R20): a side of which no unit is supplied uses no combat cards."""
    return combat.get("supply", {}).get(f"{role}_cards", True)


def _supply_to(state: PogState, own: list[str], card: dict) -> bool:
    if "supply_to" not in card:
        return True
    computed = supply.compute(state)
    return any(set(computed.sources(u)) & set(card["supply_to"]) for u in own)


def _strong_enough(state: PogState, own: list[str], card: dict) -> bool:
    if "min_cf" not in card:
        return True
    facts = state.unit_facts
    return any((facts[u].rcf if state.units[u].reduced else facts[u].cf) >= card["min_cf"]
               and state.nation(u) in card.get("nations", [state.nation(u)]) for u in own)


# ---------------------------------------------------------------------------------- what they do

def effects(combat: Mapping, role: str | None = None) -> list[dict]:
    """The effects of the cards used in this combat, by the role given (or both)."""
    found = []
    for who, names in combat.get("cards", {}).items():
        if role is None or who == role:
            found += [{**effect, "card": name, "role": who} for name in names
                      for effect in catalogue()[name]["effects"]]
    return found


def drm(combat: Mapping, role: str) -> tuple[int, list[str]]:
    """base 12.2.7: the cards' DRM for `role`'s die, and what gave it."""
    found = [e for e in effects(combat, role) if e["kind"] == "drm"]
    return sum(e["value"] for e in found), [f"{e['card']} {e['value']:+d}" for e in found]


def has(combat: Mapping, kind: str, role: str | None = None) -> bool:
    return any(e["kind"] == kind for e in effects(combat, role))


def mark_used(state: PogState, combat: Mapping) -> None:
    """Cards usable once a turn are spent for the turn when a combat uses them."""
    for names in combat.get("cards", {}).values():
        for name in names:
            if catalogue()[name].get("once_per_turn"):
                state.tracks[f"card_used_{name}"] = state.turn


def settle(combat: dict) -> None:
    """base 12.2.11: the winner keeps his cards in front of him, the loser discards; a tie, both."""
    winner = combat.get("winner")
    for role, names in combat.get("cards", {}).items():
        for name in names:
            kept = winner == role or (winner == "none" and catalogue()[name].get("kept_unless_lost"))
            combat.setdefault("cards_kept" if kept else "cards_discarded", []).append(name)
