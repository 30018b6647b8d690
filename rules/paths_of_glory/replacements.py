"""Replacements (SoE 17, base 9.4.1, 9.5.3.3): recording RPs, spending them in the Replacement
Phase of an Economic Action, and where rebuilt units go.

RPs are kept in `PogState.tracks` as `rp_<type>` (the types of data/replacements.toml). A spending
is a list of tables, one per unit, in the order the player gives them:

  {unit = "fr_1_army"}                                    a reduced unit flipped to full strength
  {unit = "ge_corps_3", strength = "reduced"}             an eliminated corps back at reduced strength
  {unit = "ru_5_army", space = "moscow", strength = "full"}   an eliminated army recreated (17.1.5)

`strength` defaults to "full". Rulings R73-R77 in RULINGS.md give the cost table and what the
variant leaves open.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import supply
from .state import PogState, UnitState, copy, enemy

STACKING_LIMIT = 3  # base 10.1.1 (as movement.py): a recreated army needs room


@cache
def _data() -> dict:
    return datafile.load(__package__, "replacements.toml")


def capitals(nation: str) -> list[str]:
    """The nation's capital spaces (7.1.2, 17.1.3, 9.5.3.3); none for a nation with none on the map."""
    return list(_data()["capitals"].get(nation, []))


def rp_type(state: PogState, unit: str) -> str | None:
    """The RP type that replaces a unit (17.1.1.1): its unit data's, else its nation's (R12)."""
    facts = state.unit_facts[unit]
    return facts.rp or _data()["rp_of_nation"].get(facts.nation)


def _track(state: PogState, key: str) -> int:
    return state.tracks.get(key, 0)


def _nations_of(rp: str) -> list[str]:
    return list(_data()["members"].get(rp, [rp]))


# ---------------------------------------------------------------------------------- recording (9.4.1, 17.1.8)

def may_record(state: PogState, rp: str) -> bool:
    """9.4.1: Bulgaria, Italy and Turkey record no RPs while neutral; R77: the US only after Over There."""
    if rp == "us":
        return "over_there" in state.events
    return rp not in _data()["cannot_record_while_neutral"] or rp in state.at_war


def record_rps(state: PogState, side: str, rps: Mapping[str, int], *, rp_card: bool = True) -> list[dict]:
    """Mark RPs on the General Records Track (9.4.1). An Allied RP card played after Over There
    adds one US RP (17.1.8)."""
    for rp in rps:
        if rp not in _data()["rp_types"][side]:
            raise IllegalOrder(f"{side.upper()} records no {rp} RPs", rule="9.4.1", field="rp")
    events = []
    for rp, points in sorted(rps.items()):
        if not may_record(state, rp):
            events.append({"kind": "rp_lost", "type": rp, "rp": points, "why": "neutral", "rule": "9.4.1"})
            continue
        state.tracks[f"rp_{rp}"] = _track(state, f"rp_{rp}") + points
        events.append({"kind": "rp", "type": rp, "add": points, "to": state.tracks[f"rp_{rp}"], "rule": "9.4.1"})
    if side == "ap" and rp_card and "over_there" in state.events:
        state.tracks["rp_us"] = _track(state, "rp_us") + 1
        events.append({"kind": "rp", "type": "us", "add": 1, "to": state.tracks["rp_us"], "rule": "17.1.8"})
    return events


def change_rps(state: PogState, rp: str, points: int, rule: str) -> list[dict]:
    """Add or take RPs of one type, never below 0 (events acting on RPs, R76)."""
    before = _track(state, f"rp_{rp}")
    after = max(before + points, 0)
    if after == before:
        return []
    state.tracks[f"rp_{rp}"] = after
    return [{"kind": "rp", "type": rp, "add": after - before, "to": after, "rule": rule}]


def event_played(state: PogState, event: str) -> list[dict]:
    """R76: an event that takes RPs once does so when played (Zeppelin Raids)."""
    effect = _data().get("when_played", {}).get(event)
    return change_rps(state, effect["type"], effect["add"], "R76") if effect else []


def turn_end(state: PogState) -> list[dict]:
    """R76: at the turn's replacement step (after the War Status Phase), the events in effect that
    add or take RPs every turn (Walter Rathenau, U-Boats Unleashed), unless cancelled."""
    events = []
    for event, effect in sorted(_data()["turn_end"].items()):
        if event in state.events and effect.get("cancelled_by") not in state.events:
            events += change_rps(state, effect["type"], effect["add"], "R76")
    return events


# ---------------------------------------------------------------------------------- spending (17.1)

def spend_rps(state: PogState, side: str, spends: list[Mapping], *, mandated: bool) -> list[dict]:
    """The Replacement Phase of an Economic Action (17.1.1): carry out the spends in order and pay
    for them (R73). After a mandated action the RPs left are lost (17.1.2). On IllegalOrder
    nothing changes."""
    trial = copy(state)
    halves: dict[str, int] = {}
    events: list[dict] = []
    for number, spend in enumerate(spends):
        rp, cost, done = _replace(trial, side, spend, f"spends[{number}]")
        halves[rp] = halves.get(rp, 0) + cost
        events += done
    events += _pay(trial, halves)
    if mandated:
        events += _lose_the_rest(trial, side)
    state.units, state.tracks = trial.units, trial.tracks
    return events


def _pay(state: PogState, halves: Mapping[str, int]) -> list[dict]:
    events = []
    for rp, cost in sorted(halves.items()):
        points = -(-cost // 2)  # R73: half RPs round up within one spending
        if points > _track(state, f"rp_{rp}"):
            raise IllegalOrder(f"these replacements cost {points} {rp} RP; {_track(state, f'rp_{rp}')} recorded",
                               rule="17.1.4", field="spends")
        _check_limit(state, rp, points)
        state.tracks[f"rp_{rp}"] = _track(state, f"rp_{rp}") - points
        events.append({"kind": "rp_spent", "type": rp, "rp": points, "left": state.tracks[f"rp_{rp}"],
                       "rule": "17.1.4"})
    return events


def _check_limit(state: PogState, rp: str, points: int) -> None:
    """R76: after the Bolshevik Revolution at most 1 RU RP is spent a turn (base 16.4.7)."""
    for event, limit in sorted(_data()["spend_limit"].items()):
        if event not in state.events or limit["type"] != rp:
            continue
        spent = _track(state, f"rp_{rp}_spent") if _track(state, f"rp_{rp}_spent_turn") == state.turn else 0
        if spent + points > limit["rp"]:
            raise IllegalOrder(f"no more than {limit['rp']} {rp} RP a turn after {event}", rule="R76", field="spends")
        state.tracks[f"rp_{rp}_spent"] = spent + points
        state.tracks[f"rp_{rp}_spent_turn"] = state.turn


def step_cost(unit_type: str) -> int:
    """R73: one step's cost in half RPs."""
    return _data()["cost"]["army_step" if unit_type == "army" else "corps_step"]


def rps_recorded(state: PogState, side: str) -> bool:
    """Has any RP type of the side RPs on the General Records Track?"""
    return any(_track(state, f"rp_{rp}") for rp in _data()["rp_types"][side])


def _lose_the_rest(state: PogState, side: str) -> list[dict]:
    events = []
    for rp in _data()["rp_types"][side]:
        left = _track(state, f"rp_{rp}")
        if left:
            state.tracks[f"rp_{rp}"] = 0
            events.append({"kind": "rp_lost", "type": rp, "rp": left, "why": "mandated", "rule": "17.1.2"})
    return events


def _replace(state: PogState, side: str, spend: Mapping, field: str) -> tuple[str, int, list[dict]]:
    """One unit's replacement: its RP type, its cost in half RPs, its events."""
    unit = str(spend.get("unit", ""))
    rp = _replaceable(state, side, unit, field)
    here = state.units[unit]
    cost = _data()["cost"][f"{state.unit_facts[unit].type}_step"]
    if here.space == f"{side}_eliminated":
        full = spend.get("strength", "full") == "full"
        to = _rebuilt_at(state, side, unit, spend.get("space"), field)
        state.units[unit] = UnitState(to, reduced=not full)
        steps = 2 if full else 1
    elif here.reduced:
        _check_flip(state, unit, field)
        to, steps = here.space, 1
        here.reduced = False
    else:
        raise IllegalOrder(f"{unit} is at full strength", rule="17.1.4", field=field)
    event = {"kind": "replaced", "unit": unit, "from": here.space, "to": to, "reduced": state.units[unit].reduced,
             "type": rp, "rule": "17.1.1"}
    return rp, cost * steps, [event]


def _replaceable(state: PogState, side: str, unit: str, field: str) -> str:
    """The unit's RP type, once 17.1.1, 17.1.3 and 17.1.7 allow it to take replacements."""
    facts = state.unit_facts.get(unit)
    if facts is None or unit not in state.units or facts.faction != side:
        raise IllegalOrder(f"{unit!r} is not a unit of {side.upper()} in play", rule="17.1.1", field=field)
    rp = rp_type(state, unit)
    if not facts.replaceable or rp is None or unit in state.removed:
        raise IllegalOrder(f"{unit} may never take replacements", rule="17.1.7", field=field)
    if _capital_barred(state, side, unit):
        raise IllegalOrder(f"the enemy holds or besieges {facts.nation.upper()}'s capital", rule="17.1.3", field=field)
    barred = _data()["barred_while_enemy_holds"]
    if unit in barred["units"] and state.control.get(barred["space"]) == enemy(side):
        where = state.map.name_of(barred["space"])
        raise IllegalOrder(f"{unit} takes no replacements while the enemy controls {where}", rule="R118", field=field)
    return rp


def _capital_barred(state: PogState, side: str, unit: str) -> bool:
    """17.1.3: no RPs for a nation whose capital (either, for Austria-Hungary) the enemy controls
    or besieges; Belgian and Serbian units and the Dutch corps are exempt."""
    exempt = _data()["capital_exempt"]
    nation = state.nation(unit)
    if nation in exempt["nations"] or unit in exempt["units"]:
        return False
    return any(state.control.get(space) == enemy(side) or state.forts.get(space) == "besieged"
               for space in capitals(nation))


def _check_flip(state: PogState, unit: str, field: str) -> None:
    """A reduced unit flipped where it stands: in the Reserve Box freely; on the map only in supply
    (R74, 14.1.8) and not caught by 17.1.4.1 (R19)."""
    space = state.units[unit].space
    if space not in state.map.index:
        return
    status = supply.compute(state)
    if not status.in_supply(unit) or status.medina_only(unit):
        raise IllegalOrder(f"{unit} is out of supply", rule="R74", field=field)
    homes = _data()["home_sources"].get(state.nation(unit))
    sources = status.sources(unit)
    if homes and sources and not set(sources) & set(homes):
        raise IllegalOrder(f"{unit} traces supply to {', '.join(sources)} only", rule="17.1.4.1", field=field)


def _rebuilt_at(state: PogState, side: str, unit: str, space: object, field: str) -> str:
    """Where an eliminated unit comes back: an army where army_placements allows (17.1.5); a corps
    to the Reserve Box, the ANA to Arabia (17.1.6), the Dutch corps to Amsterdam if it may (R12)."""
    place = _data()["placement"]
    if state.unit_facts[unit].type == "army":
        allowed = army_placements(state, unit)
        if space not in allowed:
            where = ", ".join(allowed) or "nowhere now"
            raise IllegalOrder(f"{unit} may be recreated in {where}, not {space}", rule="17.1.5", field=field)
        return str(space)
    if unit == "br_ana_corps":
        return place["ana"]
    if space is None or space == f"{side}_reserve":
        return f"{side}_reserve"
    if state.nation(unit) == "ho" and space == place["dutch_corps"] and _may_place(state, side, unit, str(space)):
        return str(space)
    raise IllegalOrder(f"{unit} is rebuilt in the Reserve Box, not {space}", rule="17.1.1", field=field)


# ---------------------------------------------------------------------------------- recreated armies (9.5.3.3, 17.1.5)

def army_placements(state: PogState, unit: str) -> list[str]:
    """The spaces where an eliminated army may be recreated now, as a reinforcement would be
    placed (9.5.3.3, 17.1.5, R75): friendly, in supply there, not a besieged fort, with room."""
    side, nation = state.faction(unit), state.nation(unit)
    place = _data()["placement"]
    if nation == "be":
        chosen = [s for s in place["belgian"] if _may_place(state, side, unit, s)]
        fallback = place["belgian_fallback"]
        return chosen or ([fallback] if _may_place(state, side, unit, fallback) else [])
    return [s for s in _army_candidates(state, side, unit) if _may_place(state, side, unit, s)]


def _army_candidates(state: PogState, side: str, unit: str) -> list[str]:
    nation, place, pog = state.nation(unit), _data()["placement"], state.map
    if nation == "ho":
        return list(place["dutch_army"])
    if nation == "us":
        return [pog.ids[i] for i in range(len(pog)) if pog.nation[i] == place["us_ports_of"] and pog.port[i]]
    homes = capitals(nation) + [pog.ids[i] for i in range(len(pog)) if pog.nation[i] == nation and pog.source[i]]
    spaces = list(dict.fromkeys(homes))
    if nation == "sb":
        if state.control.get(place["serb_belgrade_barred_by"]) == enemy(side):
            spaces = [s for s in spaces if s not in capitals("sb")]
        salonika = place["serb_salonika"]
        if any(event in state.events for event in salonika["events"]):
            spaces.append(salonika["space"])
    if nation == "fr" and _paris_full(state, side):
        spaces.append(place["orleans"]["space"])
    return spaces


def _paris_full(state: PogState, side: str) -> bool:
    """9.5.3.3: Orleans serves while Paris is fully stacked, friendly and not besieged."""
    paris = _data()["placement"]["orleans"]["when_full"]
    return (len(state.units_in(paris)) >= STACKING_LIMIT and state.control.get(paris) == side
            and state.forts.get(paris) != "besieged")


def _may_place(state: PogState, side: str, unit: str, space: str) -> bool:
    if state.control.get(space) != side or state.forts.get(space) == "besieged":
        return False
    if len([u for u in state.units_in(space) if u != unit]) >= STACKING_LIMIT:
        return False
    return _supplied_at(state, unit, space)


def _supplied_at(state: PogState, unit: str, space: str) -> bool:
    """Would the unit be in supply standing in `space`? (9.5.3.3: placed armies must be.)"""
    trial = copy(state)
    trial.units[unit] = UnitState(space)
    return supply.compute(trial).in_supply(unit)


# ---------------------------------------------------------------------------------- foreign aid's RP facts (16.5.1)

def rp_types(side: str) -> list[str]:
    return list(_data()["rp_types"][side])


def active(state: PogState, rp: str) -> bool:
    """An RP type of a nation at war (for the A RPs: of one of its nations, R70)."""
    return any(nation in state.at_war for nation in _nations_of(rp))
