"""Combat cards (base 12.2.4-12.2.7, 12.2.11, 9.5.4.1.1; 14.3.4; R84): one vocabulary of effects and
conditions, read from data/combat_cards.toml, for every combat card.

A side names the cards it uses in a combat: the attacker in its `attack` order and after a flank
die, the defender at his card step (`play_cards`, R87); the hands will narrow the choice to the
cards held. This module checks that each may be used here, says which could still be (so that a
side is asked only then), and tells fire, flank and the end of the combat what the cards, and the
event markers acting in the combat (combat_markers.py), do. Where cards go afterwards:
card_zones.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import card_zones, cards, hands, supply, trenches
from .state import PogState, enemy


@cache
def catalogue() -> Mapping[str, dict]:
    return datafile.load(__package__, "combat_cards.toml")["cards"]


@cache
def markers() -> Mapping[str, dict]:
    """Event markers acting in combats (combat_markers.py), in the cards' vocabulary."""
    return datafile.load(__package__, "combat_cards.toml")["markers"]


def entry(name: str) -> dict:
    """A card's facts, or an event marker's."""
    return catalogue().get(name) or markers()[name]


def _choosable(name: str) -> dict | None:
    """A card, or a marker whose effect its side announces at a card step (Great Retreat)."""
    return catalogue().get(name) or (markers()[name] if markers().get(name, {}).get("announced") else None)


def check(state: PogState, combat: Mapping, role: str, names: Iterable, front: Iterable = ()) -> list[str]:
    """The cards `role` uses in this combat, played from the hand (`names`) or selected from those
    kept in front (`front`, base 12.2.6), by event id or card id, if every one may be; else
    IllegalOrder naming it. Returns their event ids."""
    side = combat["side"] if role == "attacker" else enemy(combat["side"])
    chosen: list[str] = []
    for field, group in (("cards", names), ("front", front)):
        for i, name in enumerate(_event_name(str(n)) for n in group):
            where = f"{field}[{i}]"
            _check_one(state, combat, role, name, chosen, where)
            if field == "front" and not card_zones.in_front(state, side, name):
                raise IllegalOrder(f"{name} is not in front of you", rule="base 9.5.4.2", field=where)
            if field == "cards" and name in catalogue() and hands.dealt(state):
                hands.check_from_hand(state, side, card_zones.key(name), where)
            chosen.append(name)
    from_hand = [n for n in chosen[:len(list(names))] if n in catalogue()]
    if hands.dealt(state) and len(from_hand) > state.hands[side]["hand"]:
        raise IllegalOrder(f"the {side.upper()} hand holds {state.hands[side]['hand']} cards", rule="R92",
                           field="cards")
    return chosen


def commit(state: PogState, combat: dict, role: str, names: Iterable, front: Iterable = ()) -> list[str]:
    """Check and record the cards `role` uses now: used for the round, and those from the hand
    leave it (R92). Returns their event ids."""
    names, front = list(names), list(front)
    chosen = check(state, combat, role, names, front)
    if chosen:
        combat.setdefault("cards", {}).setdefault(role, []).extend(chosen)
        from_hand = [name for name in chosen[:len(names)] if name in catalogue()]
        if from_hand:
            combat.setdefault("from_hand", {}).setdefault(role, []).extend(from_hand)
            hands.leave_hand(state, combat["side"] if role == "attacker" else enemy(combat["side"]), len(from_hand))
        use(state, chosen)
    return chosen


def _event_name(name: str) -> str:
    """A combat card named by its card id (`cp56`) is known here by its event id."""
    card = cards.card_id(name)
    return cards.event_of(card) or name if card else name


def _check_one(state: PogState, combat: Mapping, role: str, name: str, chosen: list[str], where: str) -> None:
    side = combat["side"] if role == "attacker" else enemy(combat["side"])
    card = _choosable(name)
    if card is None or card["side"] != side or card["role"] not in (role, "either"):
        raise IllegalOrder(f"{name!r} is not a combat card the {role} may use", rule="base 12.2.6", field=where)
    if name in chosen or name in _named(combat):
        raise IllegalOrder(f"{name} is already used in this combat", rule="base 12.2.6", field=where)
    refusal = refusal_of(state, combat, role, name)
    if refusal:
        raise IllegalOrder(f"{name}: {refusal[1]}", rule=refusal[0], field=where)


def usable(state: PogState, combat: Mapping, role: str) -> list[str]:
    """The cards of `role`'s side that it could still use in this combat: asking a side only when
    this list is not empty lets every card step reveal nothing of a hand."""
    side = combat["side"] if role == "attacker" else enemy(combat["side"])
    named = _named(combat)
    choices = {**catalogue(), **{name: m for name, m in markers().items() if m.get("announced")}}
    held = _might_hold(state, side)
    return [name for name, card in choices.items()
            if card["side"] == side and card["role"] in (role, "either") and name not in named
            and (name in markers() or held is None or card_zones.key(name) in held)
            and refusal_of(state, combat, role, name) is None]


def _might_hold(state: PogState, side: str) -> set[str] | None:
    """R92: the cards the side keeps in front or may hold in its hand, as everyone can tell (None:
    no hands dealt, any card of its deck)."""
    if not hands.dealt(state):
        return None
    front = set(card_zones.zone(state, f"{side}_front"))
    return front | (hands.unseen(state, side) if state.hands[side]["hand"] > 0 else set())


def refusal_of(state: PogState, combat: Mapping, role: str, name: str) -> tuple[str, str] | None:
    """(rule, reason) if `role` may not use card (or marker) `name` in this combat now, else None."""
    card = entry(name)
    held = card_zones.unavailable(state, name)
    if held:
        return ("base 9.5.4.4" if "round" in held else "base 9.5.4.2", held)
    timing = _timing(combat, {e["kind"] for e in card["effects"]})
    if timing:
        return timing
    tests = (*_unit_tests(state, combat, role, name, card), *_place_and_time_tests(state, combat, role, name, card))
    return next(((rule, why) for rule, why, holds in tests if not holds), None)


def _timing(combat: Mapping, kinds: set[str]) -> tuple[str, str] | None:
    """base 12.2.1 steps 3-5, 12.2.4: trench-negating cards and those acting on the flank attempt
    come before its die; a card making the attempt succeed needs an attempt; Great Retreat is
    announced before any die (R88)."""
    if combat.get("flank") and kinds & {"cancel_trench", "cancel_trench_shifts", "auto_flank"}:
        return "base 12.2.4", "cards acting on trenches or the flank attempt come before the flank die"
    if "auto_flank" in kinds and "pinning" not in combat:
        return "base 12.3.3", "no flank attack is attempted"
    if combat.get("announce_only") and "retreat_before_combat" not in kinds:
        return "base 12.2.6", "only an announcement before the flank die is made now"
    return None


def _unit_tests(state: PogState, combat: Mapping, role: str, name: str, card: dict) -> tuple:
    """The card's conditions on the units of both sides (base 3.0, 9.5.4.1.1, 12.2.6, 12.6.3); for
    a card, a side's OOS units do not count (14.3.4.1-14.3.4.2), for an event they do."""
    supplied = name in catalogue()
    other_role = "defender" if role == "attacker" else "attacker"
    own, other = _units(state, combat, role, supplied), _units(state, combat, other_role, False)
    kinds = card.get("types", ("army", "corps"))
    nations = {card_nation(state, u) for u in own if state.unit_facts[u].type in kinds}
    others = {card_nation(state, u) for u in other}

    def meets(key: str, found: set[str]) -> bool:
        return key not in card or bool(found & set(card[key]))

    def within(key: str, found: set[str], empty_ok: bool) -> bool:
        return key not in card or ((empty_ok or bool(found)) and found <= set(card[key]))

    return (
        ("base 9.5.4.1.1", "none of its nations takes part", meets("nations", nations)),
        ("base 12.6.3", "it needs units in the combat, not a fort alone", bool(own) or not card.get("units_needed")),
        # base 3.0 note: a fort is no unit, so no card (an event may) supports a fort left alone
        ("base 3.0", "a fort alone has no units for a card to support",
         not supplied or bool(_units(state, combat, role, False))),
        ("base 12.2.6", "not every unit is of its nations", within("only_nations", nations, True)),
        ("base 12.2.6", "the other side has none of its nations", meets("against", others)),
        ("base 12.2.6", "the other side is not only of its nations", within("against_only", others, False)),
        ("base 12.2.6", "its units do not trace supply there", _supply_port(state, own, card)),
        ("base 12.2.6", "no unit of its nations has the combat factor it needs", _strong_enough(state, own, card)),
    )


def _place_and_time_tests(state: PogState, combat: Mapping, role: str, name: str, card: dict) -> tuple:
    """The card's conditions on the space, the turn, the events, the other cards and supply."""
    return (
        ("base 12.2.6", "its terrain, place, season or trench does not match", _place_holds(state, combat, card)),
        ("base 12.2.6", "its events are not in effect", _events_hold(state, card)
         and (name not in markers() or card.get("event", name) in state.events)),
        ("base 12.2.6", "a card played against it forbids it", not set(card.get("not_with", ())) & _named(combat)),
        ("14.3.4", "the side is out of supply and uses no combat cards",
         name in markers() or _supplied_enough(combat, role)),
    )


def card_nation(state: PogState, unit: str) -> str:
    """base 9.5.4.1.1: the nation a unit counts as for combat cards."""
    facts = state.unit_facts[unit]
    return facts.card_nation or facts.nation


def _named(combat: Mapping) -> set[str]:
    return {n for names in combat.get("cards", {}).values() for n in names}


def _units(state: PogState, combat: Mapping, role: str, supplied: bool = True) -> list[str]:
    """The side's units on the map; 14.3.4.1-14.3.4.2: a card's eligibility counts only its
    supplied ones."""
    units = combat["attackers"] if role == "attacker" else combat["defenders"]
    oos = set(combat.get("losses_first", {}).get(role, ())) if supplied else set()
    return [u for u in units if state.units[u].space in state.map.index and u not in oos]


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
        not card.get("no_trench") or not state.trenches.get(space, 0),
        state.trenches.get(space, 0) >= card.get("min_trench", 0),
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


def _supply_port(state: PogState, own: list[str], card: dict) -> bool:
    """AP card Maude (R85): some unit of the card's nations traces supply through that port."""
    if "supply_port" not in card:
        return True
    computed = supply.compute(state)
    return any(card_nation(state, u) in card.get("nations", [card_nation(state, u)])
               and computed.traces_to_port(u, card["supply_port"]) for u in own)


def _strong_enough(state: PogState, own: list[str], card: dict) -> bool:
    if "min_cf" not in card:
        return True
    facts = state.unit_facts
    return any((facts[u].rcf if state.units[u].reduced else facts[u].cf) >= card["min_cf"]
               and card_nation(state, u) in card.get("nations", [card_nation(state, u)]) for u in own)


# ---------------------------------------------------------------------------------- what they do

def effects(combat: Mapping, role: str | None = None) -> list[dict]:
    """The effects of the cards used and the markers acting in this combat, by the role given (or
    both)."""
    found = []
    for part in ("cards", "markers"):
        for who, names in combat.get(part, {}).items():
            if role is None or who == role:
                found += [{**effect, "card": name, "role": who} for name in names
                          for effect in entry(name)["effects"]]
    return found


def drm(combat: Mapping, role: str) -> tuple[int, list[str]]:
    """base 12.2.7: the cards' DRM for `role`'s die, and what gave it."""
    found = [e for e in effects(combat, role) if e["kind"] == "drm"]
    return sum(e["value"] for e in found), [f"{e['card']} {e['value']:+d}" for e in found]


def has(combat: Mapping, kind: str, role: str | None = None) -> bool:
    return any(e["kind"] == kind for e in effects(combat, role))


def use(state: PogState, names: Iterable[str]) -> None:
    """base 9.5.4.4: each card is used for the action round (the turn, if so marked); a marker
    that some cards end (Lloyd George, Haig) ends when one of them is used."""
    for name in names:
        if name in catalogue():
            card_zones.use(state, name, bool(catalogue()[name].get("once_per_turn")))
            state.events.add(card_zones.USED + name)  # for the events played only after it (R110)
        elif markers()[name].get("once"):
            card_zones.use(state, name, False)
        for marker_id, marker in markers().items():
            if name in marker.get("ended_by", ()):
                state.events.discard(marker.get("event", marker_id))


def settle(state: PogState, combat: dict) -> None:
    """base 12.2.11, 9.5.4.2-9.5.4.3: where each card of the combat goes (card_zones.py)."""
    card_zones.settle(state, combat, catalogue())
