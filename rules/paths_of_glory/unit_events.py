"""Events that add, place, reduce or remove units as data says (events.toml; R112): Polish
Restoration, Czech Legion, Russian Cavalry, Russian Desertions; Guns of August's placement (R113).

  to_reserve             units that enter the card side's Reserve Box
  place_with_army        { units, nation }: the units enter one space of the nation holding a
                         supplied army of the card's side, named in the order's `place`, within
                         the stacking limit
  remove_eliminated      a nation: one corps of it in the enemy's eliminated box, named in
                         `place`, leaves the game (none to name if the box holds none)
  reduce_units           { nation, count }: up to that many full-strength units of the nation on
                         the map, named in `place`, are reduced (the card says "may")
  flip_reduced           { rp, nations?, types?, near? }: the RPs the card gives flip reduced
                         units of the side on the map, in supply, named in `place`, at their step
                         cost (R73): of those nations and unit types, in or next to `near`
  move_units             { unit = space }: the units go there at once (R113)
  destroy_fort           a space whose fort is destroyed, after `move_units` (so units of the
                         card's side there take control, 15.1.10)
  attack_with            units activated for combat after the event: their spaces are marked for
                         attack and only they may attack from them (`attack_step`)
  enemy_choice           { nation, vp }: the other side removes one corps of the nation from the
                         game or gives the VP (`answer_choice`; R114)
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from .movement import STACKING_LIMIT, space_named
from .roles import BRITISH_ALLIED_CORPS
from .state import PogState, UnitState, enemy

RULE = "R112"


def apply(state: PogState, side: str, entry: Mapping, place: list) -> list[dict]:
    """Every unit effect the entry names; IllegalOrder (nothing changed yet) for a bad `place`."""
    events: list[dict] = []
    if "place_with_army" in entry:
        events += _place_with_army(state, side, entry["place_with_army"], place)
    if "remove_eliminated" in entry:
        events += _remove_eliminated(state, side, entry["remove_eliminated"], place)
    if "reduce_units" in entry:
        events += _reduce(state, side, entry["reduce_units"], place)
    if "flip_reduced" in entry:
        events += _flip(state, side, entry["flip_reduced"], place)
    for unit, space in entry.get("move_units", {}).items():
        events += _move_unit(state, side, unit, space)
    if "destroy_fort" in entry:
        from .forts import destroy_fort

        events += destroy_fort(state, entry["destroy_fort"], entry["rule"])
    for unit in entry.get("to_reserve", []):
        state.units[unit] = UnitState(f"{side}_reserve")
        events.append({"kind": "to_reserve", "unit": unit, "rule": entry["rule"]})
    return events


def _move_unit(state: PogState, side: str, unit: str, space: str) -> list[dict]:
    where = state.units.get(unit)
    if where is None or where.space not in state.map.index or state.faction(unit) != side:
        raise IllegalOrder(f"{unit} is not on the map to be placed in {state.map.name_of(space)}", rule="R113",
                           field="card")
    enemies = [u for u in state.units_in(space) if state.faction(u) != side]
    if enemies:
        raise IllegalOrder(f"{state.map.name_of(space)} holds enemy units ({', '.join(enemies)}): {unit} cannot be "
                           "placed there", rule="R113", field="card")
    if len([u for u in state.units_in(space) if u != unit]) >= STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(space)} would hold more than {STACKING_LIMIT} units", rule="R113",
                           field="card")
    where.space = space
    return [{"kind": "placed", "unit": unit, "to": space, "rule": "R113"}]


def attack_step(state: PogState, side: str, units: list[str]) -> dict:
    """The operations step of an event that activates units for combat (R113): their spaces carry
    Attack markers, but only these units may attack from them; nothing moves."""
    from .movement import Activation

    here = [u for u in units if u in state.units and state.units[u].space in state.map.index]
    activation = Activation(side, attack={state.units[u].space for u in here})
    return {"kind": "movement", "activation": activation.dump(), "event_attackers": here}


def answer_choice(state: PogState, step: Mapping, remove: str | None) -> list[dict]:
    """R114 (War in Africa): the other side removes one of its corps of the nation still in the
    game (on the map, in the Reserve Box or in the eliminated box) for good (a siege it leaves
    short ends, 15.2.4), or gives the VP."""
    from .forts import update_siege
    from .losses import eliminate
    from .war import add_vp

    chooser = enemy(state.active)
    if remove is None:
        return add_vp(state, step["vp"] if chooser == "ap" else -step["vp"], "R114", "the event's choice")
    eligible = corps_to_remove(state, chooser, step["nation"])
    if remove not in eligible:
        why = "is not in play" if remove in state.unit_facts and state.faction(remove) == chooser else \
            f"is no {step['nation'].upper()} corps of yours"
        raise IllegalOrder(f"{remove!r} {why}: name one of {', '.join(eligible) or 'none'}, or none to give the VP",
                           rule="R114", field="remove")
    space = state.units[remove].space
    events = [eliminate(state, remove, permanent=True, rule="R114")]
    return events + (update_siege(state, space) if space in state.map.index else [])


def corps_to_remove(state: PogState, side: str, nation: str) -> list[str]:
    """The corps of `nation` still in the game: on the map or in a box, not removed for good."""
    return sorted(u for u in state.units
                  if state.faction(u) == side and state.nation(u) == nation and u not in state.removed
                  and state.unit_facts[u].type == "corps" and u not in BRITISH_ALLIED_CORPS)


def _place_with_army(state: PogState, side: str, spec: Mapping, place: list) -> list[dict]:
    from . import supply

    if len(place) != 1:
        raise IllegalOrder("name the one space the units enter: place=SPACE", rule=RULE, field="place")
    space = space_named(state, str(place[0]), "place[0]", RULE)
    computed = supply.compute(state)
    pog = state.map
    armies = [u for u in state.units_in(space) if state.faction(u) == side and state.unit_facts[u].type == "army"
              and state.nation(u) == spec["nation"] and computed.status(u) != "out"]
    if pog.nation[pog.index[space]] != spec["nation"] or not armies:
        raise IllegalOrder(f"{pog.name_of(space)} is no space of {spec['nation'].upper()} holding a supplied "
                           f"{spec['nation'].upper()} army", rule=RULE, field="place[0]")
    if len(state.units_in(space)) + len(spec["units"]) > STACKING_LIMIT:
        raise IllegalOrder(f"{pog.name_of(space)} would hold more than {STACKING_LIMIT} units", rule=RULE,
                           field="place[0]")
    for unit in spec["units"]:
        state.units[unit] = UnitState(space)
    return [{"kind": "placed", "units": list(spec["units"]), "space": space, "rule": RULE}]


def _remove_eliminated(state: PogState, side: str, nation: str, place: list) -> list[dict]:
    box = f"{enemy(side)}_eliminated"
    there = [u for u, where in sorted(state.units.items()) if where.space == box and u not in state.removed
             and state.nation(u) == nation and state.unit_facts[u].type == "corps"]
    named = [str(unit) for unit in place]
    if not there:
        if named:
            raise IllegalOrder(f"no {nation.upper()} corps is in the eliminated box", rule=RULE, field="place")
        return []
    if len(named) != 1 or named[0] not in there:
        raise IllegalOrder(f"name one {nation.upper()} corps of the eliminated box: {', '.join(there)}", rule=RULE,
                           field="place")
    state.removed.add(named[0])
    return [{"kind": "removed", "unit": named[0], "rule": RULE}]


def _flip(state: PogState, side: str, spec: Mapping, place: list) -> list[dict]:
    """Landwehr, Paris Taxis: the card's own RPs flip reduced units, nothing else (R112)."""
    from . import replacements, supply

    computed, pog = supply.compute(state), state.map
    near = {spec["near"], *(pog.ids[i] for i in pog.neighbours[pog.index[spec["near"]]])} if "near" in spec else None
    named, halves = [str(unit) for unit in place], 0
    for index, unit in enumerate(named):
        where, facts = state.units.get(unit), state.unit_facts.get(unit)
        allowed = where is not None and facts is not None and state.faction(unit) == side and where.reduced \
            and where.space in pog.index and computed.status(unit) != "out" \
            and facts.nation in spec.get("nations", [facts.nation]) and facts.type in spec.get("types", [facts.type]) \
            and (near is None or where.space in near)
        if not allowed or facts is None:
            raise IllegalOrder(f"{unit!r} is not a reduced unit in supply this card may flip", rule=RULE,
                               field=f"place[{index}]")
        halves += replacements.step_cost(facts.type)
    if len(set(named)) != len(named) or halves > 2 * spec["rp"]:
        raise IllegalOrder(f"the card's {spec['rp']} RP flip at most that many army steps (a corps step is half an "
                           "RP), each unit once", rule=RULE, field="place")
    for unit in named:
        state.units[unit].reduced = False
    return [{"kind": "flipped", "units": named, "rule": RULE}] if named else []


def _reduce(state: PogState, side: str, spec: Mapping, place: list) -> list[dict]:
    full = [u for u, where in state.units.items() if where.space in state.map.index and not where.reduced
            and state.nation(u) == spec["nation"]]
    named = [str(unit) for unit in place]
    most = min(spec["count"], len(full))  # "may reduce": up to that many
    if len(set(named)) != len(named) or len(named) > most or any(unit not in full for unit in named):
        raise IllegalOrder(f"name up to {most} full-strength {spec['nation'].upper()} units on the map, each once",
                           rule=RULE, field="place")
    for unit in named:
        state.units[unit].reduced = True
    return [{"kind": "reduced", "units": named, "rule": RULE}]
