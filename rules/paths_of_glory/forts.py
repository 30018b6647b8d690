"""Forts (SoE 15): who owns a fort, what besieges it, siege rolls, building and rebuilding.

State used: `state.forts[space]` is "intact", "besieged" or "destroyed" for every fort space;
`state.built_forts[space]` is the current strength of a fort built or rebuilt under 15.4 (absent
for a printed fort at its printed strength). A fort's CF and LF are the same number.

Ownership follows control: an intact fort keeps its space for its side (15.1.10), so the side
controlling a space with an intact or besieged fort owns that fort. A fort besieged by a side is an
enemy fort with that side's units in its space meeting 15.2.1; a fort whose siege lapsed (15.2.4,
RULINGS R26) is marked "intact" while the besiegers' units are still in the space.

Functions the other rules call:
  fort_lf, fort_owner, enemy_fort, meets_siege, besiegers, required_to_besiege, may_leave_siege
    15.2.1 / 15.2.3: what a siege needs, and which besiegers may attack out of the space
  siege_lapsed, update_siege   15.2.4: lapsed sieges (no siege roll; no supply path, R14)
  stops_movement               15.1.1: entering an unbesieged enemy fort space ends movement
  desert_summer                15.2.5 / R27: no combat into or out of desert spaces in Summer
  russian_barred               15.1.12: Russians may not enter, besiege or attack German forts
                               in August 1914 (RULINGS R38)
  fort_attack_barred           15.1.11 and 15.1.12, for combat: the rule barring one attacker
  destroy_fort                 15.3.2, 15.1.7.2, 15.1.10: mark destroyed, besiegers take control
  resolve_sieges               15.3: the Siege Phase of an Economic Action
  build_fort, rebuild_fort     15.4.1, 15.4.2 (RULINGS R31, R32)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NoReturn

from pbem.errors import IllegalOrder

from . import trenches
from .state import PogState, enemy

if TYPE_CHECKING:  # pragma: no cover
    from pbem.dice import Dice

    from .movement import Activation

SIEGE_DIE = 6  # 15.3.2: one die per besieged fort
SIEGE_DRM = {1: -2, 2: -2}  # 15.3.3: -2 in the August and September 1914 turns (turns 1 and 2)
AUGUST_1914 = 1  # 15.1.12: the August 1914 turn
OBER_OST = "oberost"  # 15.1.11: the "Ober Ost" event (cards.csv event id)
OBER_OST_WAR_STATUS = 4  # 15.1.11: or CP War Status 4 or more
BUILT_FORT_MAX = 1  # 15.4.1: forts may be built in any space, up to a CF of 1
STANDING = ("intact", "besieged")  # forts that are still forts (not destroyed)


# ---------------------------------------------------------------------------------- facts

def fort_lf(state: PogState, space: str) -> int:
    """The fort's LF (= CF) now: 0 for no fort or a destroyed one; built_forts first (15.4)."""
    if state.forts.get(space) not in STANDING:
        return 0
    if space in state.built_forts:
        return state.built_forts[space]
    index = state.map.index.get(space)
    return state.map.fort[index] if index is not None else 0


def printed_lf(state: PogState, space: str) -> int:
    """The strength a starting fort had at the beginning of the game (15.4.2); 0 elsewhere."""
    index = state.map.index.get(space)
    return state.map.fort[index] if index is not None else 0


def fort_owner(state: PogState, space: str) -> str | None:
    """The side owning a standing fort: the controller of its space (15.1.10); None if none."""
    if state.forts.get(space) not in STANDING:
        return None
    return state.control.get(space)


def enemy_fort(state: PogState, side: str, space: str) -> bool:
    """A standing fort of the other side (besieged or not)."""
    owner = fort_owner(state, space)
    return owner is not None and owner != side


def besiegers(state: PogState, space: str) -> list[str]:
    """Units in a standing fort's space that belong to the fort's enemy (a siege or a lapsed one)."""
    owner = fort_owner(state, space)
    if owner is None:
        return []
    return [u for u in state.units_in(space) if state.faction(u) != owner]


def meets_siege(state: PogState, space: str, units: Iterable[str]) -> bool:
    """15.2.1: at least one army, or as many corps as the fort's LF (RULINGS R25: any nations,
    full or reduced; R40: a corps counts as one whatever its own LF)."""
    units = list(units)
    facts = state.unit_facts
    if any(facts[u].type == "army" for u in units):
        return True
    corps = sum(1 for u in units if facts[u].type == "corps")
    return corps >= max(fort_lf(state, space), 1)


def required_to_besiege(state: PogState, space: str) -> int:
    """15.2.3: how many of the besieging units must stay to keep the siege: one if an army is
    among them, else as many corps as the fort's LF. The rest may attack adjacent spaces; use
    may_leave_siege to test a particular choice."""
    facts = state.unit_facts
    if any(facts[u].type == "army" for u in besiegers(state, space)):
        return 1
    return fort_lf(state, space)


def may_leave_siege(state: PogState, space: str, units: Iterable[str]) -> bool:
    """15.2.3: may these besiegers attack out of the fort space? Only if those left still besiege."""
    going = set(units)
    staying = [u for u in besiegers(state, space) if u not in going]
    return meets_siege(state, space, staying)


def siege_lapsed(state: PogState, space: str) -> bool:
    """15.2.4 / R26: enemy units stand in an intact fort's space without besieging it. No siege
    roll is made, and neither side may trace supply through or to the space (R14)."""
    return state.forts.get(space) == "intact" and bool(besiegers(state, space))


def update_siege(state: PogState, space: str) -> list[dict]:
    """Re-judge one fort after units left, arrived or were lost (15.2.1, 15.2.4, R05, R26):
    besieged when the enemy units there meet 15.2.1, intact otherwise (empty or lapsed)."""
    status = state.forts.get(space)
    if status not in STANDING:
        return []
    present = besiegers(state, space)
    now = "besieged" if present and meets_siege(state, space, present) else "intact"
    if now == status:
        return []
    state.forts[space] = now
    if now == "besieged":
        side = state.faction(present[0])
        return [{"kind": "besieged", "space": space, "side": side, "rule": "15.2.1"}]
    if present:
        return [{"kind": "siege_lapsed", "space": space, "rule": "15.2.4"}]
    return [{"kind": "siege_ended", "space": space, "rule": "15.2.4"}]


def stops_movement(state: PogState, side: str, space: str) -> bool:
    """15.1.1: an unbesieged enemy fort (lapsed sieges included) halts units entering its space,
    in movement and in advance; a friendly fort never does (R05)."""
    return enemy_fort(state, side, space) and state.forts.get(space) == "intact"


def desert_summer(state: PogState, space: str) -> bool:
    """15.2.5 / R27: a desert space in a Summer turn: no combat into or out of it, and it cannot
    be activated for attack; movement, sieges and siege rolls go on."""
    index = state.map.index.get(space)
    return index is not None and state.map.terrain[index] == "desert" and state.season == "summer"


def _fort_of(state: PogState, space: str, nation: str, owner: str) -> bool:
    index = state.map.index.get(space)
    return (index is not None and state.map.nation[index] == nation
            and fort_owner(state, space) == owner)


def russian_barred(state: PogState, unit: str, space: str) -> bool:
    """15.1.12 (R38): in August 1914 a Russian unit may not enter (even in passing), besiege or
    attack a space holding a standing German fort (a fort in Germany the CP still own)."""
    return (state.turn == AUGUST_1914 and state.nation(unit) == "ru"
            and _fort_of(state, space, "ge", "cp"))


def fort_attack_barred(state: PogState, unit: str, space: str) -> str | None:
    """The rule barring `unit` from attacking `space` because of a fort there, or None.

    15.1.11 (R38): German units may not attack a space with a standing Russian fort until the
    Ober Ost event is played or the CP War Status is 4 or more (besieging it stays allowed, and
    Austro-Hungarian units are not restricted). 15.1.12: Russians in August 1914."""
    if (state.nation(unit) == "ge" and _fort_of(state, space, "ru", "ap")
            and OBER_OST not in state.events
            and state.war_status.get("cp", 0) < OBER_OST_WAR_STATUS):
        return "15.1.11"
    if russian_barred(state, unit, space):
        return "15.1.12"
    return None


def destroy_fort(state: PogState, space: str, rule: str = "15.3.2") -> list[dict]:
    """Mark a fort destroyed (15.3.2, 15.1.7.2). A fort built under 15.4 simply goes (it can be
    built again); a printed fort keeps its Destroyed marker. If enemy units hold the space, their
    side takes control at once with its VP (15.1.10, RULINGS R29, R30)."""
    owner = fort_owner(state, space)
    events: list[dict] = [{"kind": "fort_destroyed", "space": space, "rule": rule}]
    state.built_forts.pop(space, None)
    if printed_lf(state, space):
        state.forts[space] = "destroyed"
    else:
        state.forts.pop(space, None)
    here = state.units_in(space)
    if owner is not None and here and state.faction(here[0]) != owner:
        taker = state.faction(here[0])
        state.control[space] = taker
        events.append({"kind": "control", "space": space, "side": taker, "rule": "15.1.10"})
    return events


# ---------------------------------------------------------------------------------- siege phase

def resolve_sieges(state: PogState, side: str, dice: Dice, supplied: Callable[[str], bool]) -> list[dict]:
    """The Siege Phase of an Economic Action (15.3, RULINGS R28, R29) for the active `side`.

    Forts are taken in map order. A lapsed siege gets no roll (15.2.4). If the besiegers now in
    supply (`supplied(unit)`, normal or special supply) would not besiege the fort on their own,
    no roll is made but the siege goes on (15.3.1, the Trieste example). Otherwise one die,
    -2 in Aug and Sep 1914 (15.3.3); a result above the fort's LF destroys it (15.3.2).
    """
    events: list[dict] = []
    for space in state.map.ids:
        if state.forts.get(space) != "besieged" or fort_owner(state, space) != enemy(side):
            continue
        present = besiegers(state, space)
        if not present or state.faction(present[0]) != side:
            continue
        if not meets_siege(state, space, present):  # a marker the losses left behind: lapsed
            events += update_siege(state, space)
            continue
        in_supply = [u for u in present if supplied(u)]
        if not meets_siege(state, space, in_supply):
            events.append({"kind": "no_siege_roll", "space": space, "supplied": in_supply,
                           "rule": "15.3.1"})
            continue
        lf = fort_lf(state, space)
        name = state.map.name_of(space)
        die = dice.roll(SIEGE_DIE, f"siege of {name}", "15.3.2")
        drm = SIEGE_DRM.get(state.turn, 0)
        total = die + drm
        result = "destroyed" if total > lf else "holds"
        # The purpose is what the log, apply and `verify --roll` print beside the die, so the
        # players read there how the roll was scored; the outcome exists only after the roll.
        dice.draws[-1].purpose = f"siege of {name}: {_siege_verdict(name, die, drm, lf)}"
        events.append({"kind": "siege_roll", "space": space, "die": die, "drm": drm,
                       "total": total, "lf": lf, "result": result, "rule": "15.3.2"})
        if result == "destroyed":
            events += destroy_fort(state, space)
    return events


def _siege_verdict(name: str, die: int, drm: int, lf: int) -> str:
    """A siege roll scored as players check it: "5 − 2 = 3, not above 3: Verdun holds" (15.3.2).
    15.3.3's DRM is the only one, and it is negative."""
    total = die + drm
    shown = f"−{-total}" if total < 0 else str(total)  # the same minus sign as the DRM's
    score = f"{die} − {-drm} = {shown}" if drm else str(die)
    verdict = f"above {lf}: {name} falls" if total > lf else f"not above {lf}: {name} holds"
    return f"{score}, {verdict}"


# ---------------------------------------------------------------------------------- building

def _fort_step_checks(state: PogState, side: str, space: str, corps: str, activation: Activation,
                      space_supplied: Callable[[str], bool], rule: str) -> None:
    """R31's conditions, shared by building (15.4.1) and rebuilding (15.4.2)."""
    def refuse(message: str, field: str | None = None) -> NoReturn:
        raise IllegalOrder(message, rule=rule, field=field)

    if space not in state.map.index:
        refuse(f"{space!r} is not a map space", "space")
    name = state.map.name_of(space)
    if activation.side != side:
        refuse("the activation belongs to the other side")
    if activation.moved:
        refuse("forts are built after activation and before any unit moves (9.2.8)")
    if space not in activation.move:
        refuse(f"{name} is not activated for movement", "space")
    if space in activation.fort_steps:
        refuse(f"{name} has already had a fort step this action", "space")
    if state.control.get(space) != side:
        refuse(f"{name} is not a friendly space", "space")
    if not space_supplied(space):
        refuse(f"{name} cannot trace supply (14.2.5)", "space")
    if state.trenches.get(space, 0) < 1:
        refuse(f"{name} has no trench to spend", "space")
    unit = state.units.get(corps)
    if unit is None or corps not in state.unit_facts:
        refuse(f"unknown or absent unit {corps!r}", "corps")
    facts = state.unit_facts[corps]
    if facts.faction != side or facts.type != "corps":
        refuse(f"{corps} is not a corps of this side", "corps")
    if unit.reduced:
        refuse(f"{corps} is not at full strength", "corps")
    if unit.space != space or corps not in activation.units:
        refuse(f"{corps} did not begin the action in {name}", "corps")


def _pay(state: PogState, side: str, space: str, corps: str, activation: Activation, rule: str) -> list[dict]:
    """15.4.1, 15.4.2: a fort step costs one trench level and the corps."""
    level = trenches.lose_level(state, space)
    where = f"{side}_eliminated"  # 15.4.1: the eliminated/replaceable box
    state.units[corps].space = where
    state.units[corps].oos = 0
    activation.units = activation.units - {corps}
    activation.fort_steps = activation.fort_steps | {space}
    return [{"kind": "trench", "space": space, "level": level, "rule": rule},
            {"kind": "eliminated", "unit": corps, "to": where, "rule": rule}]


def build_fort(state: PogState, side: str, space: str, corps: str, activation: Activation,
               space_supplied: Callable[[str], bool]) -> list[dict]:
    """15.4.1 (R31): a CF 1 fort in a supplied friendly space activated for movement, after
    activation and before movement, for one trench level and one full-strength corps of the side
    that began the action there (to the eliminated box). Not where a fort stands."""
    _fort_step_checks(state, side, space, corps, activation, space_supplied, "15.4.1")
    if state.forts.get(space) in STANDING:
        raise IllegalOrder(f"{state.map.name_of(space)} already has a fort", rule="15.4.1", field="space")
    events = _pay(state, side, space, corps, activation, "15.4.1")
    state.forts[space] = "intact"
    state.built_forts[space] = BUILT_FORT_MAX
    events.append({"kind": "fort_built", "space": space, "lf": BUILT_FORT_MAX, "rule": "15.4.1"})
    return events


def rebuild_fort(state: PogState, side: str, space: str, corps: str, activation: Activation,
                 space_supplied: Callable[[str], bool]) -> list[dict]:
    """15.4.2 (R32): the original owner raises a starting fort by 1 CF, up to its printed
    strength, once per space per action, under R31's conditions, for one trench level and one
    full-strength corps of the nation owning the space at the start (FR for Verdun...)."""
    _fort_step_checks(state, side, space, corps, activation, space_supplied, "15.4.2")
    index = state.map.index[space]
    name = state.map.name_of(space)
    printed = state.map.fort[index]
    if not printed:
        raise IllegalOrder(f"{name} had no fort at the start; build one under 15.4.1",
                           rule="15.4.2", field="space")
    if state.map.control[index] != side:
        raise IllegalOrder(f"only the original owner may rebuild the fort of {name}",
                           rule="15.4.2", field="space")
    nation = state.map.nation[index]
    if state.nation(corps) != nation:
        raise IllegalOrder(f"rebuilding {name} takes a full-strength {nation.upper()} corps",
                           rule="15.4.2", field="corps")
    current = fort_lf(state, space)
    if current >= printed:
        raise IllegalOrder(f"the fort of {name} is already at its initial strength {printed}",
                           rule="15.4.2", field="space")
    events = _pay(state, side, space, corps, activation, "15.4.2")
    state.forts[space] = "intact"
    if current + 1 >= printed:
        state.built_forts.pop(space, None)  # back to the printed fort
    else:
        state.built_forts[space] = current + 1
    events.append({"kind": "fort_rebuilt", "space": space, "lf": current + 1, "rule": "15.4.2"})
    return events
