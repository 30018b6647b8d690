"""Reinforcement events (base 9.5.3; 16.3.4; R97, R116, R117): a card played as its event brings its
units in.

Corps go to the Reserve Box (9.5.3.2); the identical corps a card brings are the nation's lowest-
numbered pieces not yet in play. Each army is placed where the player names (`place=unit:space`),
as 9.5.3.3 allows (replacements.army_placements: the nation's capital or friendly supply sources,
friendly, in supply, not a besieged fort, with room; US armies in French ports; French armies in
Orleans while Paris is full). One reinforcement card a turn per nation, none in August 1914, and
only if every unit can be placed (9.5.3.1); US cards as 16.3.4 says.

The cards whose units enter where the card says (cards.toml `where`, R116: the ANA, the SN, the MEF
with its beach head, the NE, Orient and CAU armies) place them there, under the card's conditions;
a space the card names alone needs no `place`. An Allied Near East army may instead enter at home,
free of those conditions (9.5.3.4, R117): the player names a home space, and the card's
`home_entry` record goes among the position's events.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pbem.errors import IllegalOrder

from . import cards, connections, replacements, supply, war
from .movement import STACKING_LIMIT, space_named, take_space
from .roles import ANA
from .state import PogState, UnitState, copy

FIRST_TURN = 1  # 9.5.3.1: no reinforcement card in August 1914
NEAR_EAST = "near_east"  # cards.toml `where`: any space of the card's nation on the Near East map
NEAR_EAST_MAP = "neareast"  # map.toml `map` of the Near East spaces
CARD, HOME, USUAL = "card", "home", "usual"  # how a unit enters: as its card says, at home (9.5.3.4), as usual


def play(state: PogState, side: str, card: str, place: list) -> list[dict]:
    """Bring in the card's units; IllegalOrder (changing nothing) if they cannot all be placed."""
    facts = cards.catalogue()[card]["reinforcements"]
    nation = facts["nation"]
    _check_nation(state, nation)
    units = [*facts.get("units", []), *_new_corps(state, nation, facts.get("corps", 0))]
    wanted = _placements(state, side, card, units, place)
    events = war.record_us_reinforcement(state) if nation == "us" else []  # last: it records the turn's card
    for unit in units:
        space, how = wanted.get(unit, (f"{side}_reserve", USUAL))
        state.units[unit] = UnitState(space)
        events.append({"kind": "reinforcement", "unit": unit, "to": space, "rule": "base 9.5.3"})
        events += _entered(state, side, facts, unit, space, how)
    state.tracks[f"reinforced_{nation}"] = state.turn
    return events


def army_spaces(state: PogState, side: str, card: str, unit: str) -> Iterator[str]:
    """Where the card's army may enter now, one at a time: the spaces the card names (while its
    conditions hold), then for a Near East army its home spaces (9.5.3.4); else 9.5.3.3's."""
    facts = cards.catalogue()[card]["reinforcements"]
    if "where" in facts and not _unmet(state, facts):
        yield from (s for s in _card_spaces(state, facts) if _refusal(state, side, unit, s, facts) is None)
    yield from (_home_spaces(state, facts, unit) if "where" in facts else replacements.army_placements(state, unit))


def _check_nation(state: PogState, nation: str) -> None:
    """9.5.3.1 and 16.3.4: not in August 1914, one card a turn per nation, the nation at war."""
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


def _new_corps(state: PogState, nation: str, count: int) -> list[str]:
    """The nation's identical corps pieces not yet in play, lowest numbers first."""
    pieces = [u for u in state.unit_facts if u.startswith(f"{nation}_corps_") and u not in state.units]
    pieces.sort(key=lambda u: int(u.rsplit("_", 1)[1]))
    if len(pieces) < count:
        raise IllegalOrder(f"only {len(pieces)} {nation.upper()} corps are left to bring in, not {count}",
                           rule="base 9.5.3.1", field="card")
    return pieces[:count]


# ---------------------------------------------------------------------------------- where each unit enters

def _placements(state: PogState, side: str, card: str, units: list[str], place: list) -> dict[str, tuple[str, str]]:
    """Each unit placed on the map: its space and how it enters, as named in `place` (checked one
    after another, so two armies do not overfill a space)."""
    facts = cards.catalogue()[card]["reinforcements"]
    pairs = [_parse(state, item, i) for i, item in enumerate(place)]
    named = dict(pairs)
    if len(named) != len(pairs):
        raise IllegalOrder("name each unit once in place", rule="base 9.5.3.3", field="place")
    on_map = [u for u in units if "where" in facts or state.unit_facts[u].type == "army"]
    for unit in set(named) - set(on_map):
        raise IllegalOrder(f"{unit} is no unit this card places on the map", rule="base 9.5.3.3", field="place")
    trial, chosen = copy(state), {}
    for unit in on_map:
        space = named.get(unit) or _only_space(facts)
        if "where" in facts:  # a refusal of a space the player did not name is the card's
            chosen[unit] = _judge(trial, side, card, unit, space, "place" if unit in named else "card")
        else:
            chosen[unit] = (_judge_army(trial, unit, space), USUAL)
        trial.units[unit] = UnitState(chosen[unit][0])
    return chosen


def _only_space(facts: Mapping) -> str | None:
    """The space a card names alone needs no `place` (Arabia, Libya, Alexandria, Salonika)."""
    where = facts.get("where")
    return where[0] if isinstance(where, list) and len(where) == 1 else None


def _judge_army(state: PogState, unit: str, space: str | None) -> str:
    """9.5.3.3: an army of an ordinary card, where replacements.army_placements allows; its space."""
    allowed = replacements.army_placements(state, unit)
    if space is None or space not in allowed:
        where = ", ".join(state.map.name_of(s) for s in allowed) or "nowhere now"
        raise IllegalOrder(f"place {unit} where 9.5.3.3 allows: {where} (place={unit}:SPACE)",
                           rule="base 9.5.3.3", field="place")
    return space


def _judge(state: PogState, side: str, card: str, unit: str, space: str | None, field: str) -> tuple[str, str]:
    """A unit of a card that places it (R116): at home if the player names a home space and the
    card allows it (9.5.3.4, R117), else where the card says, its conditions met."""
    facts = cards.catalogue()[card]["reinforcements"]
    home = _home_spaces(state, facts, unit)
    if space is not None and space in home:
        return space, HOME
    hint = f"; or enter it at home (base 9.5.3.4): {', '.join(state.map.name_of(s) for s in home)}" if home else ""
    unmet = _unmet(state, facts)
    if unmet:
        raise IllegalOrder(f"{cards.label(card)} places {unit} as it directs only {unmet}{hint}", rule="R116",
                           field="card")
    spaces = _card_spaces(state, facts)
    if space is None or space not in spaces:
        where = ", ".join(state.map.name_of(s) for s in spaces)
        raise IllegalOrder(f"{cards.label(card)} places {unit} in {where} (place={unit}:SPACE){hint}", rule="R116",
                           field="place")
    why = _refusal(state, side, unit, space, facts)
    if why:
        rule = "base 9.5.3.3" if state.unit_facts[unit].type == "army" else "base 9.5.3.2"
        raise IllegalOrder(f"{unit} may not enter {state.map.name_of(space)}, which {why}{hint}", rule=rule,
                           field=field)
    return space, CARD


def _unmet(state: PogState, facts: Mapping) -> str:
    """The card's conditions for placing its units as it directs that do not hold ('' if all do)."""
    for nation in facts.get("at_war", []):
        if nation not in state.at_war:
            return f"while {nation.upper()} is at war"
    for event in facts.get("after", []):
        if event not in state.events:
            return f"after {_event_label(event)}"
    for event in facts.get("before", []):
        if event in state.events:
            return f"before {_event_label(event)}"
    return ""


def _event_label(event: str) -> str:
    card = cards.card_id(event)
    return cards.label(card) if card else event


def _card_spaces(state: PogState, facts: Mapping) -> list[str]:
    where = facts["where"]
    if where == NEAR_EAST:
        pog = state.map
        return [pog.ids[i] for i in range(len(pog)) if pog.map[i] == NEAR_EAST_MAP and pog.nation[i] == facts["nation"]]
    return list(where)


def _home_spaces(state: PogState, facts: Mapping, unit: str) -> list[str]:
    """9.5.3.4: a Near East army's card may bring it in at home instead, as 9.5.3.3 places armies."""
    return replacements.army_placements(state, unit) if facts.get("home_entry") else []


def _refusal(state: PogState, side: str, unit: str, space: str, facts: Mapping) -> str | None:
    """Why the unit may not enter a space its card names, or None (9.5.3.1, 9.5.3.3, 10.1). The ANA
    and the SN need neither control nor a supply line (14.1.5); an army needs both, the MEF's
    counting the beach head it brings (9.5.3.5)."""
    if state.neutral(space):
        return "is neutral"
    if state.occupant(space) not in (None, side):
        return "holds enemy units"
    if len(state.units_in(space)) >= STACKING_LIMIT:
        return f"holds {STACKING_LIMIT} units already"
    if state.unit_facts[unit].type != "army":
        return None
    if state.control.get(space) != side:
        return "is not under your control"
    if state.forts.get(space) == "besieged":
        return "holds a besieged fort"
    trial = copy(state)
    trial.units[unit] = UnitState(space)
    if facts.get("beach_head"):
        trial.events.add(connections.BEACH_HEAD_EVENT + space)
    return None if supply.compute(trial).in_supply(unit) else "would leave it out of supply"


def _entered(state: PogState, side: str, facts: Mapping, unit: str, space: str, how: str) -> list[dict]:
    """What a placement brings besides the unit: the beach head (9.5.3.5), the record of an entry
    at home (9.5.3.4, R117), the control of the space the SN enters (11.1.16)."""
    if how == HOME:
        state.events.add(facts["home_entry"])
        return [{"kind": "home_entry", "unit": unit, "record": facts["home_entry"], "rule": "base 9.5.3.4"}]
    if how != CARD:
        return []
    events: list[dict] = []
    if facts.get("beach_head"):
        state.events.add(connections.BEACH_HEAD_EVENT + space)
        events.append({"kind": "beach_head", "space": space, "rule": "base 9.5.3.5"})
    if state.control.get(space) != side and unit != ANA:  # only a corps gets here: the SN converts (11.1.16),
        take_space(state, side, unit, space, True, events)  # the ANA does not (11.1.15)
    return events


def _parse(state: PogState, item, i: int) -> tuple[str, str]:
    unit, _, space = str(item).partition(":")
    if not space:
        raise IllegalOrder(f"write each placement as unit:space, not {item!r}", rule="base 9.5.3.3",
                           field=f"place[{i}]")
    return unit, space_named(state, space, f"place[{i}]", "base 9.5.3.3")
