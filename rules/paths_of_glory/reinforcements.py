"""Reinforcement events (base 9.5.3; 16.3.4; R97): a card played as its event brings its units in.

Corps go to the Reserve Box (9.5.3.2); the identical corps a card brings are the nation's lowest-
numbered pieces not yet in play. Each army is placed where the player names (`place=unit:space`),
as 9.5.3.3 allows (replacements.army_placements: the nation's capital or friendly supply sources,
friendly, in supply, not a besieged fort, with room; US armies in French ports; French armies in
Orleans while Paris is full). One reinforcement card a turn per nation, none in August 1914, and
only if every unit can be placed (9.5.3.1); US cards as 16.3.4 says. The cards whose units are
placed as the card itself directs (the MEF and its beach head, the ANA, the SN, the Near East armies)
are not adjudicated yet.
"""

from __future__ import annotations

from pbem.errors import IllegalOrder

from . import cards, replacements, war
from .movement import space_named
from .state import PogState, UnitState, copy

AS_THE_CARD_DIRECTS = frozenset({"ap29", "ap31", "ap41", "ap50", "ap53", "cp24"})  # 9.5.3.2-9.5.3.5
FIRST_TURN = 1  # 9.5.3.1: no reinforcement card in August 1914


def play(state: PogState, side: str, card: str, place: list) -> list[dict]:
    """Bring in the card's units; IllegalOrder (changing nothing) if they cannot all be placed."""
    facts = cards.catalogue()[card]["reinforcements"]
    nation = facts["nation"]
    if card in AS_THE_CARD_DIRECTS:
        raise IllegalOrder(f"{cards.label(card)}: units placed as the card directs are not adjudicated yet; play the "
                           "card as OPS, SR or RP", rule="R97", field="card")
    if state.turn == FIRST_TURN:
        raise IllegalOrder("no reinforcement card is played in August 1914", rule="base 9.5.3.1", field="card")
    if state.tracks.get(f"reinforced_{nation}") == state.turn:
        raise IllegalOrder(f"a {nation.upper()} reinforcement card has been played this turn", rule="base 9.5.3.1",
                           field="card")
    if nation == "us":
        war.check_us_reinforcement(state)
    if nation not in state.at_war:
        raise IllegalOrder(f"{nation.upper()} is not at war: its reinforcements wait for its entry",
                           rule="base 9.5.3.1", field="card")
    units = [*facts.get("units", []), *_new_corps(state, nation, facts.get("corps", 0))]
    wanted = _placements(state, units, place)
    events = war.record_us_reinforcement(state) if nation == "us" else []  # last: it records the turn's card
    for unit in units:
        state.units[unit] = UnitState(wanted.get(unit, f"{side}_reserve"))
        events.append({"kind": "reinforcement", "unit": unit, "to": state.units[unit].space, "rule": "base 9.5.3"})
    state.tracks[f"reinforced_{nation}"] = state.turn
    return events


def _new_corps(state: PogState, nation: str, count: int) -> list[str]:
    """The nation's identical corps pieces not yet in play, lowest numbers first."""
    pieces = [u for u in state.unit_facts if u.startswith(f"{nation}_corps_") and u not in state.units]
    pieces.sort(key=lambda u: int(u.rsplit("_", 1)[1]))
    if len(pieces) < count:
        raise IllegalOrder(f"only {len(pieces)} {nation.upper()} corps are left to bring in, not {count}",
                           rule="base 9.5.3.1", field="card")
    return pieces[:count]


def _placements(state: PogState, units: list[str], place: list) -> dict[str, str]:
    """Each army's space, as named in `place` and allowed by 9.5.3.3 (checked one after another,
    so two armies do not overfill a space)."""
    named = dict(_parse(state, item, i) for i, item in enumerate(place))
    armies = [u for u in units if state.unit_facts[u].type == "army"]
    for unit in set(named) - set(armies):
        raise IllegalOrder(f"{unit} is no army this card brings in", rule="base 9.5.3.3", field="place")
    trial, chosen = copy(state), {}
    for unit in armies:
        allowed = replacements.army_placements(trial, unit)
        space = named.get(unit)
        if space is None or space not in allowed:
            where = ", ".join(trial.map.name_of(s) for s in allowed) or "nowhere now"
            raise IllegalOrder(f"place {unit} where 9.5.3.3 allows: {where} (place={unit}:SPACE)",
                               rule="base 9.5.3.3", field="place")
        trial.units[unit] = UnitState(space)
        chosen[unit] = space
    return chosen


def _parse(state: PogState, item, i: int) -> tuple[str, str]:
    unit, _, space = str(item).partition(":")
    if not space:
        raise IllegalOrder(f"write each placement as unit:space, not {item!r}", rule="base 9.5.3.3",
                           field=f"place[{i}]")
    return unit, space_named(state, space, f"place[{i}]", "base 9.5.3.3")
