"""Cards played as events (seed 9.5; base 9.5.1; R96): the events whose effect is data
(data/events.toml: a marker put in effect for the game, a turn or a round, markers ended, a VP
change, turn windows and events required or forbidden).

Playing one adds the card's war status to its side's (9.5.1.3) and sends the card to the discard
pile, or out of the game when starred (9.5.1.2). The US entry and Russian capitulation events go
through war.record_event, which holds their track conditions and procedures. Every choice an event
needs is judged before anything changes, so nothing is half played; combat cards are played in a
combat (base 9.5.4.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import (
    card_plays,
    card_zones,
    cards,
    combat_cards,
    hands,
    neutral_entry,
    offensives,
    reinforcements,
    replacements,
    trenches,
    unit_events,
    war,
)
from .state import PogState

TWO_EVENT_CARD = "cp08"  # R09: with Vesting Holland, Race to the Sea leaves the card for Invasion Holland
INVASION_HOLLAND = "invasion_holland"

TRACK_EVENTS = frozenset({war.ZIMMERMANN, war.OVER_THERE, war.FOURTEEN_POINTS, war.TSAR_TAKES_COMMAND,
                          war.FALL_OF_THE_TSAR, war.BOLSHEVIK_REVOLUTION, war.BREST_LITOVSK})


@cache
def catalogue() -> Mapping[str, dict]:
    return datafile.load(__package__, "events.toml")["events"]


UNIT_EFFECTS = {"to_reserve", "place_with_army", "remove_eliminated", "reduce_units", "flip_reduced", "destroy_fort",
                "move_units"}  # unit_events.py


def play(state: PogState, side: str, name: str, place: list | None = None) -> list[dict]:
    """`event card=cp11`: the card's event, if it may be played now (9.5.1); a reinforcement card
    brings its units in where `place` says (reinforcements.py)."""
    card = _card(state, side, name)
    if "reinforcements" in cards.catalogue()[card]:
        events = reinforcements.play(state, side, card, list(place or []))
        if cards.catalogue()[card].get("war_status"):
            events += war.add_war_status(state, side, cards.catalogue()[card]["war_status"])
        _discard(state, side, card)
        return events
    entry = catalogue()[card]
    _check_window(state, card, entry)
    _check_standing(state, side, card, entry)
    _check_choices(state, side, entry, list(place or []))
    if entry.get("counts_as"):  # base 9.3.3: Salonika counts as an SR play
        card_plays.check_not_in_a_row(state, side, entry["counts_as"])
    if entry.get("trench"):
        trench_events = _place_trench(state, side, list(place or []))
    marker = entry.get("marker")
    if entry.get("enters"):  # base 9.5.2: a neutral nation's entry
        events = neutral_entry.enter(state, entry["enters"], list(place or []), entry["rule"])
    elif marker in TRACK_EVENTS:
        events = war.record_event(state, marker)
    elif any(card_zones.USED + used in state.events for used in entry.get("void_after_used", [])):
        events = []  # R88: the effect ended for good once one of those cards was used
    else:
        events = _put_in_effect(state, entry)
    for ended in entry.get("ends", []):
        state.events.discard(ended)
    event_id = cards.catalogue()[card].get("event")
    if event_id:  # R76 and 7.1.10-7.1.11: what playing this event does to RPs and MOs in effect
        events += replacements.event_played(state, event_id) + offensives.event_played(state, event_id)
    if entry.get("trench"):
        events += trench_events
    if entry.get("limited_entry"):
        events += war.place_neutral(state, entry["limited_entry"], entry["rule"])
    if entry.get("redeploy_to"):
        events += _redeploy(state, side, entry["redeploy_to"], list(place or []))
    if entry.keys() & UNIT_EFFECTS:
        events += unit_events.apply(state, side, entry, list(place or []))
    if entry.get("counts_as"):
        card_plays.record_play(state, side, entry["counts_as"])
    neutral = sum(vp for nation, vp in entry.get("vp_while_neutral", {}).items() if nation not in state.at_war)
    events += war.add_vp(state, entry.get("vp", 0) + neutral, entry["rule"], "event played")
    if cards.catalogue()[card].get("war_status"):
        events += war.add_war_status(state, side, cards.catalogue()[card]["war_status"])
    _discard(state, side, card)
    return events


def step_after(state: PogState, side: str, name: str) -> dict:
    """The step an event opens after its effect, or {} for none: the attacks of the units it
    activates for combat (R113, Guns of August); a roll (R115, The Sixtus Affair); the other
    side's choice (R114, War in Africa); the card's operations, the other side's hand shown first
    for Mata Hari and Cloak and Dagger (R106)."""
    card = cards.card_id(name) or name
    entry = catalogue().get(card, {})
    if entry.get("attack_with"):
        return unit_events.attack_step(state, side, entry["attack_with"])
    if "peace_terms_line" in entry:
        return {"kind": "event_roll", "card": card, "line_from": entry["peace_terms_line"]}
    if entry.get("enemy_choice"):
        return {"kind": "enemy_choice", "card": card, **entry["enemy_choice"]}
    if not entry.get("operations"):
        return {}
    ops = cards.catalogue()[card]["ops"]
    if entry.get("shows_hand"):
        return {"kind": "show_hand", "victim": entry["shows_hand"], "ops": ops, "card": card}
    return {"kind": "ops_event", "ops": ops, "card": card}


def _card(state: PogState, side: str, name: str) -> str:
    card = cards.card_id(name) or name
    facts = cards.catalogue().get(card, {"side": None})
    if facts["side"] != side:
        raise IllegalOrder(f"{name!r} is not a card of your deck", rule="9.1.3", field="card")
    if facts.get("combat_card") and not facts.get("ops_event"):  # R90: Kerensky Offensive is played for operations
        raise IllegalOrder(f"{cards.label(card)} is a combat card: it is played in a combat", rule="base 9.5.4.1",
                           field="card")
    hands.check_from_hand(state, side, card, "card")  # after the reasons that need no hand
    if war.PEACE_ACCEPTED in state.events:
        raise IllegalOrder("no event is played once peace terms are accepted", rule="8.1.4", field="card")
    return card


def _check_window(state: PogState, card: str, entry: Mapping) -> None:
    """9.5.1: the turns it may be played in and the events it needs in effect, or not."""
    label = cards.label(card)
    needed = entry.get("after", []) if state.turn <= entry.get("after_until", state.turn) else []
    missing = [event for event in needed if event not in state.events]
    used = entry.get("after_used", [])
    if used and not any(card_zones.USED + name in state.events for name in used):
        raise IllegalOrder(f"{label} is played only after {' or '.join(used)} has been used in a combat",
                           rule="base 9.5.1", field="card")
    present = [event for event in entry.get("before", []) if event in state.events]
    marker = entry.get("marker")
    if marker and marker not in TRACK_EVENTS and marker in state.events and not entry.get("lasts"):
        raise IllegalOrder(f"{label} is in effect already", rule="base 9.5.1.2", field="card")
    if missing:
        raise IllegalOrder(f"{label} needs {', '.join(missing)} in effect", rule="base 9.5.1", field="card")
    if present:
        raise IllegalOrder(f"{label} may not be played after {', '.join(present)}", rule="base 9.5.1", field="card")
    if not entry.get("first_turn", 1) <= state.turn <= entry.get("last_turn", state.turn):
        raise IllegalOrder(f"{label} may not be played in {state.turn_label}", rule="base 9.5.1", field="card")
    if state.round > entry.get("last_round", state.round):
        raise IllegalOrder(f"{label} may not be played after action round {entry['last_round']}",
                           rule="base 9.5.1", field="card")


def _check_choices(state: PogState, side: str, entry: Mapping, place: list) -> None:
    """The choices an order names (`place`) are judged on a copy before anything changes, so a
    refused play leaves the state as it was."""
    from .state import copy

    if entry.get("trench") or entry.get("redeploy_to") or entry.keys() & UNIT_EFFECTS:
        trial = copy(state)
        if entry.get("trench"):
            _place_trench(trial, side, place)
        if entry.get("redeploy_to"):
            _redeploy(trial, side, entry["redeploy_to"], place)
        if entry.keys() & UNIT_EFFECTS:
            unit_events.apply(trial, side, entry, place)


def _check_standing(state: PogState, side: str, card: str, entry: Mapping) -> None:
    """The conditions on the war's standing: a commitment level not yet reached, a combined war
    status reached."""
    below = entry.get("level_below")
    if below and cards.LEVELS.index(state.commitment[side]) >= cards.LEVELS.index(below):
        raise IllegalOrder(f"{cards.label(card)} is not played at {state.commitment[side]} war", rule="base 9.5.1",
                           field="card")
    for space, owner in entry.get("control_needed", {}).items():
        if state.control.get(space) != owner:
            raise IllegalOrder(f"{cards.label(card)} needs {state.map.name_of(space)} under {owner.upper()} control",
                               rule="base 9.5.1", field="card")
    if war.combined_war_status(state) < entry.get("combined_at_least", 0):
        raise IllegalOrder(f"{cards.label(card)} needs a combined war status of {entry['combined_at_least']}",
                           rule="base 9.5.1", field="card")


def _redeploy(state: PogState, side: str, move: Mapping, place: list) -> list[dict]:
    """Salonika (R111): up to `most` corps of the nations named, from the map (in supply) or the
    Reserve Box, straight to the space, within the stacking limit."""
    from . import supply
    from .movement import STACKING_LIMIT

    target, units = move["space"], [str(unit) for unit in place]
    if len(units) > move["most"] or len(set(units)) != len(units):
        raise IllegalOrder(f"name up to {move['most']} corps, each once", rule="R111", field="place")
    computed = supply.compute(state)
    for index, unit in enumerate(units):
        where = state.units.get(unit)
        if where is None or state.unit_facts[unit].type != "corps" or state.nation(unit) not in move["nations"] \
                or state.faction(unit) != side:
            raise IllegalOrder(f"{unit!r} is not a {' or '.join(move['nations']).upper()} corps of yours",
                               rule="R111", field=f"place[{index}]")
        if where.space != f"{side}_reserve" and (where.space not in state.map.index or computed.status(unit) == "out"):
            raise IllegalOrder(f"{unit} is neither in supply on the map nor in the Reserve Box", rule="R111",
                               field=f"place[{index}]")
    if len([u for u in state.units_in(target) if u not in units]) + len(units) > STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(target)} would hold more than {STACKING_LIMIT} units", rule="R111",
                           field="place")
    for unit in units:
        state.units[unit].space = target
    return [{"kind": "redeployed", "units": units, "to": target, "rule": "R111"}] if units else []


def _place_trench(state: PogState, side: str, place: list) -> list[dict]:
    """Entrench (R108): a level 1 trench in the space named, which holds a supplied army of the side."""
    from . import supply
    from .movement import space_named

    if len(place) != 1:
        raise IllegalOrder("name the one space that gets the level 1 trench: place=SPACE", rule="base 11.2.1",
                           field="place")
    space = space_named(state, str(place[0]), "place[0]", "base 11.2.1")
    computed = supply.compute(state)
    armies = [u for u in state.units_in(space) if state.faction(u) == side and state.unit_facts[u].type == "army"
              and computed.status(u) != "out"]
    if not armies:
        raise IllegalOrder(f"{state.map.name_of(space)} holds no supplied army of yours", rule="base 11.2.1",
                           field="place[0]")
    if state.trenches.get(space, 0) == 0:
        trenches.add_level(state, space, side)
    return [{"kind": "trench", "space": space, "level": state.trenches[space], "rule": "base 11.2.1"}]


def _put_in_effect(state: PogState, entry: Mapping) -> list[dict]:
    marker = entry.get("marker")
    if not marker:
        return []
    state.events.add(marker)
    return [{"kind": "event", "event": marker, "rule": entry["rule"]}]


def _discard(state: PogState, side: str, card: str) -> None:
    """base 9.5.1.2: a starred event leaves the game; any other goes to the discard pile."""
    starred = cards.catalogue()[card].get("removed_after_play")
    if card == TWO_EVENT_CARD and "vesting_holland" in state.variants and INVASION_HOLLAND not in state.events:
        starred = False
    hands.play_to_discard(state, side, card, "removed" if starred else "discard")


def lapse_after_action(state: PogState, side: str) -> list[dict]:
    """R110: at the end of an action of `side`, the other side's markers that last until then
    lapse, with their VP (High Seas Fleet)."""
    found = []
    for card, entry in catalogue().items():
        marker = entry.get("marker")
        if entry.get("lasts") == "enemy_action" and marker in state.events and cards.catalogue()[card]["side"] != side:
            state.events.discard(marker)
            found += war.add_vp(state, entry.get("vp_on_lapse", 0), entry["rule"], f"{marker} lapsed")
    return found


def expire(state: PogState, scope: str) -> None:
    """At the end of an action round ("round") or a turn ("turn": both), the events that last so
    long end: those played from the hand and the markers acting in combats alike."""
    ending = ("round",) if scope == "round" else ("round", "turn")
    lasting = [(entry.get("lasts"), entry.get("marker")) for entry in catalogue().values()]
    lasting += [(marker["lasts"], marker.get("event", name)) for name, marker in combat_cards.markers().items()]
    for lasts, event in lasting:
        if lasts in ending and event:
            state.events.discard(event)
