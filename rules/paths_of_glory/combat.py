"""Combat (base 12): designating a combat, its strengths, fire columns and dice.

A combat lives in the open action as a plain table, `action["combat"]`, from its designation to
its last advance, so that it survives between entries and anyone can read it (`pbem show combat`).
Its `step` says what happens next: "fire" (dice at the entry's roll point), "losses" (a side
assigns its losses: losses.py), "retreat" and "advance" (retreat.py). Finished combats are kept
in `state.combats` for the turn.

Sequential fire (flank attacks, base 12.3.3): the side firing first rolls at one roll point; the
other side takes its losses; only then is the second die drawn, at the roll point of the entry
that took those losses, so nobody assigns losses knowing his own die.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import combat_cards, combat_markers, forts, italy_ops, near_east, supply, trenches, war
from .movement import Activation, may_cross, space_named
from .state import PogState, enemy


@cache
def charts() -> dict:
    return datafile.load(__package__, "combat.toml")


# ---------------------------------------------------------------------------------- designation

def designate(state: PogState, side: str, order: Mapping, activation: Activation, action: dict,
              barred: tuple[tuple[str, str], ...] = (), italy_19_2: bool = False) -> dict:
    """base 12.1, 12.2.2: the attacking units and the one defending space; a new combat table.
    `barred` are connections no combat or advance may cross (19.1.1). Raises IllegalOrder
    (naming the rule and the field), changing nothing."""
    space = space_named(state, str(order.get("space", "")), "space", "base 12.2.2")
    units = _attackers(state, side, order.get("units") or [], activation, action)
    _check_target(state, side, units, space, action)
    if italy_19_2:  # 19.2, an option: the attackers into Italy count (R35)
        italy_ops.check_attack(state, side, units, space)
    for i, unit in enumerate(units):
        if crosses_barred(state.units[unit].space, space, barred):
            raise IllegalOrder(f"{unit} may not attack across the {state.map.name_of(state.units[unit].space)}–"
                               f"{state.map.name_of(space)} connection", rule="19.1.1", field=f"units[{i}]")
    spaces = sorted({state.units[u].space for u in units}, key=state.map.index.__getitem__)
    _check_nations(state, units, spaces)
    _check_london(state, spaces)
    barred_by_treaty = war.brest_litovsk_bars_attack(state, units, _defenders(state, side, space), space)
    if barred_by_treaty:
        raise IllegalOrder("after the Treaty of Brest-Litovsk Russian units do not attack, and only Turks on the "
                           "Near East map attack them", rule=barred_by_treaty, field="units")
    defenders = _defenders(state, side, space)
    combat = {"rule": "base 12.2", "side": side, "space": space, "attackers": units, "attack_spaces": spaces,
              "defenders": defenders, "fort_only": not defenders, "step": "fire", "log": []}
    if barred:
        combat["barred"] = [list(pair) for pair in barred]
    if italy_19_2:  # so that the advance is counted too (advance.py)
        combat["italy_19_2"] = True
    _supply(state, combat)  # 14.1.1.2 (R20): judged at the start of the combat, for cards and fire
    combat_markers.designate(state, combat)  # R88: events in effect, judged here like supply
    pinning = order.get("pinning")
    if pinning:
        combat["pinning"] = str(pinning)  # named with the cards; checked after them (12.3.1 note)
    if order.get("cards") or order.get("front"):  # base 12.2.4, 12.2.6: before any flank attempt
        combat_cards.commit(state, combat, "attacker", order.get("cards") or [], order.get("front") or [])
    if pinning:
        combat["pinning"] = _check_flank(state, combat, str(pinning))
    for unit in units:
        near_east.record_crossing(state, state.units[unit].space, space)
    action.setdefault("attacked_units", []).extend(units)
    action.setdefault("attacked_spaces", []).append(space)
    return combat


def crosses_barred(a: str, b: str, barred) -> bool:
    """Does the step a -> b use a connection barred to combat and advance (19.1.1)?"""
    return any({a, b} == set(pair) for pair in barred)


def _attackers(state: PogState, side: str, named: list, activation: Activation, action: Mapping) -> list[str]:
    """base 12.1.1, 12.1.6, 9.2.9: own units on the map, under Attack markers, attacking once."""
    if not named:
        raise IllegalOrder("name the attacking units: attack units=ge_1_army space=liege", rule="base 12.2.2",
                           field="units")
    units = []
    for i, unit in enumerate(named):
        where = f"units[{i}]"
        if unit not in state.units or state.units[unit].space not in state.map.index:
            raise IllegalOrder(f"{unit} is not a unit on the map", rule="base 12.2.2", field=where)
        if state.faction(unit) != side:
            raise IllegalOrder(f"{unit} belongs to the other side", rule="base 12.1.3", field=where)
        if state.units[unit].space not in activation.attack:
            raise IllegalOrder(f"{unit} is not in a space activated for attack", rule="base 12.1.1", field=where)
        if "event_attackers" in action and unit not in action["event_attackers"]:  # R113: an event named who attacks
            raise IllegalOrder(f"{unit} is not activated for combat by the event", rule="R113", field=where)
        if unit in action.get("attacked_units", ()) or unit in units:
            raise IllegalOrder(f"{unit} has already attacked in this action", rule="base 12.1.6", field=where)
        units.append(unit)
    return units


def _check_target(state: PogState, side: str, units: list[str], space: str, action: Mapping) -> None:
    """base 12.1.2, 12.1.4, 12.1.6, 12.1.9; 15.1.2-15.1.3, 15.1.11-15.1.12, 15.2.3, 15.2.5."""
    name = state.map.name_of(space)
    if space in action.get("attacked_spaces", ()):
        raise IllegalOrder(f"{name} has already been attacked in this action", rule="base 12.1.6", field="space")
    defenders = _defenders(state, side, space)
    fort = forts.enemy_fort(state, side, space)
    if not defenders and not fort:
        raise IllegalOrder(f"{name} holds neither enemy units nor an enemy fort", rule="base 12.1.4", field="space")
    if defenders and not fort and all(u in state.retreated for u in defenders):
        raise IllegalOrder(f"{name} holds only units that retreated this round", rule="base 12.1.2", field="space")
    if forts.desert_summer(state, space):
        raise IllegalOrder(f"{name} is a desert space: no combat into it in Summer", rule="15.2.5", field="space")
    besieged = state.forts.get(space) == "besieged" and fort
    for i, unit in enumerate(units):
        _check_attacker(state, unit, space, besieged, f"units[{i}]")
    _check_leaving_siege(state, units, space)


def _check_attacker(state: PogState, unit: str, space: str, besieged: bool, where: str) -> None:
    here = state.units[unit].space
    name = state.map.name_of(space)
    if besieged and here != space:
        raise IllegalOrder(f"the fort of {name} is besieged: only the units in its space may attack it",
                           rule="15.1.3", field=where)
    if here != space and state.map.index[space] not in state.map.neighbours[state.map.index[here]]:
        raise IllegalOrder(f"{unit} in {state.map.name_of(here)} is not adjacent to {name}", rule="base 12.1.4",
                           field=where)
    if here != space and not may_cross(state, unit, here, space):
        raise IllegalOrder(f"{unit} may not attack across the connection from {state.map.name_of(here)} to {name}",
                           rule="base 12.1.9", field=where)
    area = near_east.army_barred(state, unit, space)
    if area:
        raise IllegalOrder(f"{unit} may not attack into {area[0]}", rule=area[1], field=where)
    crossing = near_east.caucasus_refusal(state, unit, here, space)
    if crossing:
        raise IllegalOrder(crossing, rule="base 11.3.2", field=where)
    if forts.desert_summer(state, here):
        raise IllegalOrder(f"{unit} is in a desert space: no combat out of it in Summer", rule="15.2.5", field=where)
    barred = forts.fort_attack_barred(state, unit, space)
    if barred:
        raise IllegalOrder(f"{unit} may not attack the fort space {name} yet", rule=barred, field=where)


def _check_leaving_siege(state: PogState, units: list[str], space: str) -> None:
    """15.2.3: units besieging a fort attack another space only with those above the siege's needs."""
    for here in {state.units[u].space for u in units} - {space}:
        if forts.enemy_fort(state, state.faction(units[0]), here) and state.forts.get(here) == "besieged":
            leaving = [u for u in units if state.units[u].space == here]
            if not forts.may_leave_siege(state, here, leaving):
                raise IllegalOrder(f"the units besieging {state.map.name_of(here)} may attack out of it only with "
                                   "those above what the siege needs", rule="15.2.3", field="units")


def _defenders(state: PogState, side: str, space: str) -> list[str]:
    return [u for u in state.units_in(space) if state.faction(u) == enemy(side)]


NATION_GROUPS = {"ana": "br", "aus": "br", "cnd": "br", "pt": "br", "sn": "tu", "mn": "sb"}  # base 12.1.11.2


def attack_nation(state: PogState, unit: str) -> str:
    """The nation a unit counts as in a multi-national attack (base 12.1.11.2)."""
    nation = state.nation(unit)
    return NATION_GROUPS.get(nation, nation)


def _check_nations(state: PogState, units: list[str], spaces: list[str]) -> None:
    """base 12.1.11-12.1.11.1: several nations attack together only if one space holds attacking
    units of every nation, and every other space's nations are among them."""
    nations = {attack_nation(state, u) for u in units}
    if len(nations) < 2:
        return
    for space in spaces:
        here = {attack_nation(state, u) for u in units if state.units[u].space == space}
        if here == nations:
            return
    raise IllegalOrder(f"units of {', '.join(sorted(nations))} attack together only if one attacking space holds "
                       "attacking units of every one of them", rule="base 12.1.11.1", field="units")


def _check_london(state: PogState, spaces: list[str]) -> None:
    """base 12.1.10: units in London attack only together with units in France or Belgium."""
    if "london" in spaces and not any(state.map.nation[state.map.index[s]] in ("fr", "be") for s in spaces):
        raise IllegalOrder("units in London attack only in a combat with friendly units in France or Belgium",
                           rule="base 12.1.10", field="units")


# ---------------------------------------------------------------------------------- flank attacks

def flank_possible(state: PogState, combat: Mapping) -> str | None:
    """base 12.3.1, 15.1.6: None if a flank attack may be tried, else the reason."""
    space = combat["space"]
    terrain = state.map.terrain[state.map.index[space]]
    if len(combat["attack_spaces"]) < 2:
        return "the attack comes from one space"
    if not any(state.unit_facts[u].type == "army" for u in combat["attackers"]):
        return "no army attacks"
    if terrain in ("swamp", "mountain"):
        return f"the defending space is {terrain}"
    if state.trenches.get(space, 0) and not combat_cards.has(combat, "cancel_trench"):
        return "the defending space has a trench"  # 12.3.1 note: cards cancelling trenches allow it
    if not combat["defenders"]:
        return "the defending space holds only a fort"
    return None


def _check_flank(state: PogState, combat: Mapping, pinning_text: str) -> str:
    """base 12.3.1-12.3.2, 14.3.1: the flank attempt's conditions and its pinning space."""
    reason = flank_possible(state, combat)
    if reason:
        raise IllegalOrder(f"no flank attack: {reason}", rule="base 12.3.1", field="pinning")
    pinning = space_named(state, pinning_text, "pinning", "base 12.3.2")
    if pinning not in combat["attack_spaces"]:
        raise IllegalOrder(f"the pinning space {state.map.name_of(pinning)} is not one of the attacking spaces",
                           rule="base 12.3.2", field="pinning")
    computed = supply.compute(state)
    if not any(computed.in_supply(u) for u in combat["attackers"] if state.units[u].space == pinning):
        raise IllegalOrder("the pinning space needs an attacker in supply", rule="14.3.1", field="pinning")
    return pinning


def flank_drm(state: PogState, combat: Mapping) -> tuple[int, list[str]]:
    """base 12.3.2, 14.3.1: +1 for each attacking space beyond the pinning one that no solid line
    joins to another space holding enemy units (a fort alone does not count); a space whose
    attackers are all out of supply adds nothing."""
    computed = supply.compute(state)
    side, target = combat["side"], combat["space"]
    pog, bonus, reasons = state.map, 0, []
    for space in combat["attack_spaces"]:
        if space == combat["pinning"]:
            continue
        here = [u for u in combat["attackers"] if state.units[u].space == space]
        if not any(computed.in_supply(u) for u in here):
            reasons.append(f"{pog.name_of(space)}: its attackers are out of supply (14.3.1)")
            continue
        i = pog.index[space]
        engaged = [pog.ids[j] for j in pog.neighbours[i] if pog.ids[j] != target
                   and pog.allowed(i, j) is None and _defenders(state, side, pog.ids[j])]
        if engaged:
            reasons.append(f"{pog.name_of(space)}: next to enemy units in {pog.name_of(engaged[0])}")
        else:
            bonus += 1
            reasons.append(f"{pog.name_of(space)}: +1")
    return bonus, reasons


# ---------------------------------------------------------------------------------- fire

def strength(state: PogState, units: list[str]) -> int:
    """base 12.2.3: the combat factors of the units, reduced ones at their reduced CF."""
    facts = state.unit_facts
    return sum(facts[u].rcf if state.units[u].reduced else facts[u].cf for u in units)


def firing(state: PogState, combat: Mapping, who: str) -> list[str]:
    """The units of `who` ("attacker" or "defender") firing now: survivors on the map; defenders
    that retreated earlier this round add nothing (base 12.5.6)."""
    if who == "attacker":
        return [u for u in combat["attackers"] if state.units[u].space in state.map.index]
    return [u for u in combat["defenders"] if state.units[u].space == combat["space"] and u not in state.retreated]


def fire_column(state: PogState, combat: Mapping, who: str, modifiers: supply.CombatSupply) -> dict:
    """base 12.2.7-12.2.8, 15.1.4, 11.2.8-11.2.9: table, strength, shifts and DRM of one side."""
    units = firing(state, combat, who)
    value = strength(state, units)
    reasons = []
    if who == "defender" and forts.enemy_fort(state, combat["side"], combat["space"]):
        fort = state.fort_strength(combat["space"])
        value += fort
        reasons.append(f"fort +{fort} (15.1.4)")
    table = "army" if any(state.unit_facts[u].type == "army" for u in units) else "corps"
    if combat_cards.has(combat, "army_table", who):
        table = "army"
        reasons.append("a card fires it on the Army table")
    shift, drm = (modifiers.attacker_shift, modifiers.attacker_drm) if who == "attacker" else \
        (modifiers.defender_shift, modifiers.defender_drm)
    shift += _terrain_shift(state, combat, who, reasons)
    if who == "attacker" and all(state.units[u].space == charts()["rules"]["sinai"] for u in combat["attackers"]) \
            and not combat_cards.has(combat, "cancel_sinai", "attacker"):
        drm += charts()["rules"]["sinai_drm"]
        reasons.append(f"all attackers in Sinai: {charts()['rules']['sinai_drm']} (base 12.2.7)")
    card_drm, named = combat_cards.drm(combat, who)
    drm += card_drm
    reasons += named
    column = _column(table, value, shift)
    return {"table": table, "strength": value, "shift": shift, "drm": drm, "column": column,
            "label": charts()["fire"][table]["labels"][column], "reasons": reasons}


def _terrain_shift(state: PogState, combat: Mapping, who: str, reasons: list[str]) -> int:
    space = combat["space"]
    terrain = state.map.terrain[state.map.index[space]]
    shift = 0
    if who == "attacker" and terrain in charts()["terrain_shift"]:
        shift += charts()["terrain_shift"][terrain]
        reasons.append(f"{terrain} {charts()['terrain_shift'][terrain]:+d} (TEC)")
    level = state.trenches.get(space, 0)
    if combat_cards.has(combat, "cancel_trench") or combat_cards.has(combat, "cancel_trench_shifts"):
        if level:
            reasons.append("trench shifts cancelled by a card")
        return shift
    if not level and combat_cards.has(combat, "trench_level", "defender"):
        level = next(e["value"] for e in combat_cards.effects(combat, "defender") if e["kind"] == "trench_level")
        reasons.append(f"a card counts the defender in a level {level} trench")
    elif level and trenches.owner(state, space) != enemy(combat["side"]):
        level = 0
    if level and combat["defenders"]:
        # 15.1.6: no trench benefit for a fort alone; R03: only the trench's own side benefits
        attacker, defender = charts()["trench_shift"][str(min(level, 2))]
        shift += attacker if who == "attacker" else defender
        reasons.append(f"trench level {level} {attacker if who == 'attacker' else defender:+d} (base 11.2.8)")
    return shift


def _column(table: str, value: int, shift: int) -> int:
    """The column for a strength on a table, shifted and held at the table's edges (base 12.2.8)."""
    lows = charts()["fire"][table]["low"]
    base = max([i for i, low in enumerate(lows) if value >= low], default=0)  # R46: below the first, the first
    return min(max(base + shift, 0), len(lows) - 1)


def loss_number(table: str, column: int, die: int) -> int:
    """base 12.2.9: the die, already modified, held to 1-6, read in its column."""
    return charts()["fire"][table]["results"][column][min(max(die, 1), 6) - 1]


def roll_fire(state: PogState, combat: dict, who: str, dice) -> int:
    """One side fires (base 12.2.7-12.2.9): supply is judged afresh (14.1.1.2); returns the loss
    number it inflicts, recording table, column, die and reasons in the combat's log."""
    modifiers = _supply(state, combat)
    column = fire_column(state, combat, who, modifiers)
    name = state.map.name_of(combat["space"])
    die = dice.roll(6, f"{who} fire, combat at {name}", "base 12.2.9")
    number = loss_number(column["table"], column["column"], die + column["drm"])
    combat[f"{who}_fire"] = {**column, "die": die, "loss_number": number}
    combat["log"].append(f"{who} fires {column['strength']} on the {column['table']} table, column "
                         f"{column['label']}, die {die}{column['drm']:+d}: loss number {number}")
    return number


def _supply(state: PogState, combat: dict) -> supply.CombatSupply:
    """14.1.1.2 (R20): supply is judged once, at the start of the combat, and kept for both fires."""
    if "supply" not in combat:
        found = supply.check_before_combat(state, firing(state, combat, "attacker"), firing(state, combat, "defender"))
        combat["supply"] = {key: getattr(found, key) for key in SUPPLY_KEPT}
        combat["losses_first"] = {"attacker": list(found.attacker_losses_first),
                                  "defender": list(found.defender_losses_first)}
        combat["oos_attackers"] = list(found.oos_attackers)  # 14.3.4: they advance one space at most
        combat["supply_reasons"] = list(found.reasons)
    return supply.CombatSupply(**combat["supply"])


SUPPLY_KEPT = ("attacker_shift", "attacker_drm", "defender_shift", "defender_drm", "attacker_cards", "defender_cards")


def enemy_role(who: str) -> str:
    return "defender" if who == "attacker" else "attacker"


def roll_flank(state: PogState, combat: dict, dice) -> bool:
    """base 12.3.3: the flank attempt's die; success on a modified 4 or more."""
    if combat_cards.has(combat, "auto_flank", "attacker"):
        combat["flank"] = {"die": None, "drm": 0, "success": True, "reasons": ["a card makes the attempt succeed"]}
        combat["log"].append("flank attempt: succeeds without a die (card)")
        return True
    bonus, reasons = flank_drm(state, combat)
    die = dice.roll(6, f"flank attack at {state.map.name_of(combat['space'])}", "base 12.3.3")
    success = die + bonus >= charts()["rules"]["flank_success"]
    combat["flank"] = {"die": die, "drm": bonus, "success": success, "reasons": reasons}
    combat["log"].append(f"flank attempt: die {die}{bonus:+d}, {'succeeds' if success else 'fails'}")
    return success
