"""Mandated offensives (base 7.1.1-7.1.3, SoE 7.1.4-7.1.11): the roll, the attacks that make an
MO, French Mutiny and the War Status Phase penalty.

`PogState.mo[side]` holds the box of the side's MO marker: a result of data/mandated.toml
("fr", "br", "it", "ru", "ah", "ah_it", "tu", "ge") or "none" ("None or Made"). Rulings R67-R69 in
RULINGS.md answer what the rules leave open.
"""

from __future__ import annotations

from functools import cache

from pbem import datafile
from pbem.dice import Dice

from . import supply
from .replacements import capitals
from .state import PogState, copy, enemy
from .war import add_vp

NONE = "none"


@cache
def _data() -> dict:
    return datafile.load(__package__, "mandated.toml")


def nation_of(result: str) -> str:
    """The nation an MO result asks to attack ("ah_it" is Austria-Hungary's)."""
    return _data()["results"][result]["nation"] if result != NONE else NONE


# ---------------------------------------------------------------------------------- the roll (7.1.1)

def roll_offensives(state: PogState, dice: Dice) -> list[dict]:
    """7.1.1: each side rolls for its MO at the start of the turn, the Allies first (R67)."""
    events = []
    for side in ("ap", "cp"):
        table = _data()[side]
        die = dice.roll(6, f"{side.upper()} mandated offensive", "7.1.1")
        modifier = sum(add for event, add in sorted(table["modifiers"].items()) if event in state.events)
        result, rules = _settle(state, side, min(die + modifier, len(table["results"])))
        state.mo[side] = result
        said = f"{modifier:+d} = {die + modifier}" if modifier else ""
        dice.draws[-1].purpose = f"{side.upper()} mandated offensive: {die}{said}: {result.upper().replace('_', '')}"
        events.append({"kind": "mandated_offensive", "side": side, "die": die, "modifier": modifier,
                       "result": result, "rules": rules, "rule": "7.1.1"})
    return events


def _settle(state: PogState, side: str, roll: int) -> tuple[str, list[str]]:
    """The box the marker ends in for a modified roll, and the rules that moved it."""
    table = _data()[side]
    rules: list[str] = []
    while roll <= len(table["results"]):
        result = table["results"][roll - 1]
        nation = nation_of(result)
        if result == NONE:
            return NONE, rules
        if table["ignored"].get(result) in state.events:
            return NONE, [*rules, "7.1.10" if result == "ge" else "7.1.11"]
        if nation not in state.at_war:
            return NONE, [*rules, "7.1.2"]
        if result == "ah_it" and not _italy_fights(state):
            result = "ah"
            rules.append("7.1.6")
        if not _capital_lost(state, side, nation):
            return result, rules
        rules.append("7.1.2")  # R67: one space right is the next roll's result, as often as need be
        roll += 1
    return NONE, rules


def _italy_fights(state: PogState) -> bool:
    """7.1.6: Italy at war and Rome not held by the Central Powers."""
    return "it" in state.at_war and all(state.control.get(space) != "cp" for space in capitals("it"))


def _capital_lost(state: PogState, side: str, nation: str) -> bool:
    """7.1.2: the enemy holds the nation's capital (both of them for Austria-Hungary); R67: a nation
    with no capital on the map never loses its MO so."""
    spaces = capitals(nation)
    return bool(spaces) and all(state.control.get(space) == enemy(side) for space in spaces)


# ---------------------------------------------------------------------------------- the attack (7.1.3-7.1.8)

def mutiny(state: PogState) -> bool:
    """7.1.8: the Allied MO is a French one while French Mutiny is in effect."""
    return state.mo.get("ap") == "fr" and _data()["mutiny"]["event"] in state.events


def satisfies(state: PogState, side: str, attackers: list[str], defenders: list[str], defending_space: str) -> bool:
    """Does this combat, as designated, make `side`'s MO (7.1.3-7.1.7, R68)?"""
    result = state.mo.get(side, NONE)
    if result == NONE or (side == "ap" and mutiny(state)):
        return False
    need = _data()["results"][result]
    if not _attackers_of(state, attackers, need["nation"], result):
        return False
    targets = [u for u in defenders if state.faction(u) != side]  # 7.1.3: enemy combat units, not forts
    if not targets:
        return False
    if need.get("western") and not _western(state, defending_space):
        return False
    if need["defenders"] != "any" and not any(state.nation(u) in need["defenders"] for u in targets):
        return False
    return not need.get("italy") or _italian_target(state, targets, defending_space)


def _attackers_of(state: PogState, attackers: list[str], nation: str, result: str) -> list[str]:
    not_british = _data()["western"]["not_british"] if result == "br" else []
    return [u for u in attackers if state.nation(u) == nation and u not in not_british]


def _western(state: PogState, space: str) -> bool:
    pog = state.map
    return pog.nation[pog.index[space]] in _data()["western"]["nations"]


def _italian_target(state: PogState, targets: list[str], space: str) -> bool:
    """7.1.6: Italian units, a space in Italy, or Allied units tracing supply through Italy (R68)."""
    pog = state.map
    if pog.nation[pog.index[space]] == "it" or any(state.nation(u) == "it" for u in targets):
        return True
    return any(_traces_through_italy(state, unit) for unit in targets)


def _traces_through_italy(state: PogState, unit: str) -> bool:
    """R68: a unit in normal supply that would be cut off were Italy's spaces closed to the Allies."""
    if supply.compute(state).status(unit) != "supplied":
        return False
    without = copy(state)
    pog = state.map
    for i, space in enumerate(pog.ids):
        if pog.nation[i] == "it":
            without.control[space] = "cp"
    return supply.compute(without).status(unit) != "supplied"


def mutiny_vp(state: PogState, side: str, attackers: list[str], defending_space: str) -> int:
    """7.1.8: the VP a French attack costs on a FR Mutiny turn: a French attacker not stacked with a
    US unit, against a space in France, Belgium, Holland or Germany (R69). 0 otherwise."""
    if side != "ap" or not mutiny(state) or not _western(state, defending_space):
        return 0
    for unit in attackers:
        if state.nation(unit) == "fr" and not _with_americans(state, unit):
            return _data()["mutiny"]["vp"]
    return 0


def _with_americans(state: PogState, unit: str) -> bool:
    return any(state.nation(u) == "us" for u in state.units_in(state.units[unit].space))


def designate_combat(state: PogState, side: str, attackers: list[str], defenders: list[str],
                     defending_space: str) -> list[dict]:
    """A combat is designated: French Mutiny's VP (7.1.8) or the MO made (7.1.3); either way the
    marker goes to None or Made."""
    vp = mutiny_vp(state, side, attackers, defending_space)
    if vp:
        state.mo[side] = NONE
        return [*add_vp(state, vp, "7.1.8", "French attack on a FR Mutiny turn"),
                {"kind": "mandated_offensive", "side": side, "result": NONE, "why": "mutiny", "rule": "7.1.8"}]
    if not satisfies(state, side, attackers, defenders, defending_space):
        return []
    made = state.mo[side]
    state.mo[side] = NONE
    return [{"kind": "mandated_offensive", "side": side, "made": made, "result": NONE, "rule": "7.1.3"}]


# ---------------------------------------------------------------------------------- events and the penalty

def event_played(state: PogState, event: str) -> list[dict]:
    """7.1.10, 7.1.11: H-L Take Command or the Bolshevik Revolution voids an MO already rolled.
    (7.1.8: French Mutiny needs no change, 7.1.9: Hoffmann changes no MO in effect.)"""
    for side in ("ap", "cp"):
        result = state.mo.get(side, NONE)
        if result != NONE and _data()[side]["ignored"].get(result) == event:
            state.mo[side] = NONE
            return [{"kind": "mandated_offensive", "side": side, "result": NONE, "why": event,
                     "rule": "7.1.10" if result == "ge" else "7.1.11"}]
    return []


def offensive_penalty(state: PogState) -> list[dict]:
    """7.1.3, in the War Status Phase: 1 VP against each side whose MO was not made; none for a
    FR Mutiny turn (7.1.8)."""
    events = []
    for side in ("ap", "cp"):
        result = state.mo.get(side, NONE)
        if result == NONE or (side == "ap" and mutiny(state)):
            continue
        why = f"{side.upper()} mandated offensive ({result}) not made"
        events += add_vp(state, _data()[side]["penalty"], "7.1.3", why)
    return events
