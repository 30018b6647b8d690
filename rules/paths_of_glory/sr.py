"""Strategic redeployment (seed 9.3; base 13.1; R95): a card played as SR, or the automatic SR 1,
gives SR points; each `redeploy` moves one unit, a corps for 1 point and an army for 4 (13.1.2).

Overland (13.1.5): a unit in supply goes to another friendly space in supply along connections it
may use, through friendly-controlled spaces holding no enemy unit (a besieged enemy fort may be
crossed and entered, and no SR leaves one so that it is no longer besieged). Russian units start
and stay in Russia (13.1.6); the MN corps never goes overland (13.1.11); the SN corps is Turkish
(13.0). The Reserve Box (13.1.8-13.1.9, 13.1.11): corps go into it from the map; units come out of
it into a space with a supplied unit of their nation (not one with only the ANA or the SN), and
corps into a supplied capital or supply source of their nation (US corps into any Allied-held port
in France); not while the enemy holds or besieges the nation's capital (Belgians and Serbs aside).
No unit redeploys twice in an action (13.1.3), and the stack limit holds (10.1.1). By sea (13.1.7):
a corps, never Russian, from a port its side may use to another. The Near East limits of a turn
(13.2) and the supply limits on the Reserve Box (13.1.12) are in near_east_sr.py. After at least
one SR move, up to two SR points left may pay for an activation (9.3.3; ruleset.py), in which the
units that redeployed neither move nor attack.
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import card_plays, cards, forts, hands, near_east_sr, replacements, supply
from .movement import STACKING_LIMIT, may_cross, space_named
from .state import PogState, enemy

CORPS_POINTS, ARMY_POINTS = 1, 4  # 13.1.2
SR_TO_OPS = 2  # 9.3.3: SR points that may be converted to OPS after the SR moves
AUTOMATIC_SR = 1  # 8.1.4
RULE = "base 13.1"
NOT_INTO = {"br_ana_corps", "sn_corps"}  # 13.1.8: a space holding only these takes no unit from the box
CAPITAL_EXEMPT = {"be", "sb"}  # 13.1.11
OVERLAND_NEVER = {"mn_corps"}  # 13.1.11


def open_sr(state: PogState, side: str, card: str | None) -> dict:
    """The SR action's record: its points, from a card played as SR (to the discard pile) or the
    automatic SR 1."""
    if not card:
        return {"kind": "sr", "points": AUTOMATIC_SR, "redeployed": []}
    played = hands.card_from_hand(state, side, card, "9.3.1")
    card_plays.check_late_entry(state, side, played)
    card_plays.check_not_in_a_row(state, side, "sr")
    hands.play_to_discard(state, side, played)
    card_plays.record_play(state, side, "sr")
    return {"kind": "sr", "points": cards.catalogue()[played]["sr"], "card": played, "redeployed": []}


def redeploy(state: PogState, side: str, action: dict, order: Mapping) -> None:
    """One unit's SR (13.1.2-13.1.11); IllegalOrder naming the rule, changing nothing."""
    unit, to = str(order.get("unit", "")), str(order.get("to", ""))
    if unit not in state.units or state.faction(unit) != side:
        raise IllegalOrder(f"{unit!r} is not a unit of your side", rule=RULE, field="unit")
    if unit in action["redeployed"]:
        raise IllegalOrder(f"{unit} has redeployed in this action already", rule="base 13.1.3", field="unit")
    price = ARMY_POINTS if state.unit_facts[unit].type == "army" else CORPS_POINTS
    if price > action["points"]:
        raise IllegalOrder(f"{unit} costs {price} SR points; {action['points']} left", rule="base 13.1.2",
                           field="unit")
    start, reserve = state.units[unit].space, f"{side}_reserve"
    end = reserve if to in ("reserve", reserve) else space_named(state, to, "to", RULE)
    if end == start:
        raise IllegalOrder(f"{unit} is in {state.map.name_of(end) if end in state.map.index else 'the Reserve Box'} "
                           "already: a redeployment goes to another space", rule="base 13.1.5", field="to")
    if start in state.map.index:
        _check_siege_kept(state, side, unit, start)
    by_sea = bool(order.get("sea"))
    if start == reserve:
        _check_out_of_reserve(state, side, unit, end)
    elif end == reserve:
        _check_into_reserve(state, side, unit)
    elif by_sea:
        _check_by_sea(state, side, unit, start, end)
    else:
        _check_overland(state, side, unit, start, end)
    near_east_sr.check(state, side, unit, start, end, by_sea)
    if end != reserve and len(state.units_in(end)) >= STACKING_LIMIT:
        raise IllegalOrder(f"{state.map.name_of(end)} holds {STACKING_LIMIT} units already", rule="base 10.1.1",
                           field="to")
    state.units[unit].space = end
    action["points"] -= price
    action["redeployed"].append(unit)
    near_east_sr.count(state, side, unit, start, end, by_sea)
    if start in state.map.index:
        forts.update_siege(state, start)


def _check_overland(state: PogState, side: str, unit: str, start: str, end: str) -> None:
    if unit in OVERLAND_NEVER:
        raise IllegalOrder(f"{unit} never redeploys overland", rule="base 13.1.11", field="unit")
    computed = supply.compute(state)
    if not computed.in_supply(unit):
        raise IllegalOrder(f"{unit} is out of supply", rule="base 13.1.5", field="unit")
    if not computed.space_supplied(side, end) or not _friendly(state, side, end):
        raise IllegalOrder(f"{state.map.name_of(end)} is not a friendly space in supply", rule="base 13.1.5",
                           field="to")
    if not route(state, side, unit, start, end):
        raise IllegalOrder(f"no route through friendly spaces from {state.map.name_of(start)} to "
                           f"{state.map.name_of(end)}" + (" inside Russia" if state.nation(unit) == "ru" else ""),
                           rule="base 13.1.6" if state.nation(unit) == "ru" else "base 13.1.5", field="to")


def _check_siege_kept(state: PogState, side: str, unit: str, start: str) -> None:
    """13.1.5: no unit leaves a besieged enemy fort's space, by any SR, if the siege would lapse."""
    if forts.enemy_fort(state, side, start) and state.forts.get(start) == "besieged":
        staying = [u for u in forts.besiegers(state, start) if u != unit]
        if not forts.meets_siege(state, start, staying):
            raise IllegalOrder(f"{unit} may not leave {state.map.name_of(start)}: the fort would no longer be besieged",
                               rule="base 13.1.5", field="unit")


def sr_nation(state: PogState, unit: str) -> str:
    """base 13.0: the SN corps is Turkish for SR."""
    nation = state.nation(unit)
    return "tu" if nation == "sn" else nation


def _check_by_sea(state: PogState, side: str, unit: str, start: str, end: str) -> None:
    """13.1.7: a corps, never Russian, between two ports its side may use, in supply."""
    if state.unit_facts[unit].type != "corps":
        raise IllegalOrder(f"{unit} is an army: armies never redeploy by sea", rule="base 13.1.7", field="unit")
    if state.nation(unit) == "ru":
        raise IllegalOrder(f"{unit} is Russian: Russian corps never redeploy by sea", rule="base 13.1.6",
                           field="unit")
    computed = supply.compute(state)
    if not computed.in_supply(unit):
        raise IllegalOrder(f"{unit} is out of supply", rule="base 13.1.5", field="unit")
    for where, field in ((start, "unit"), (end, "to")):
        if not computed.usable_port(side, where):
            raise IllegalOrder(f"{state.map.name_of(where)} is not a port your side may use",
                               rule="base 13.1.7.1" if side == "cp" else "base 13.1.7.2", field=field)


def _friendly(state: PogState, side: str, space: str) -> bool:
    """13.1.5: friendly-controlled and free of enemy units (a besieged enemy fort counts as open)."""
    if state.occupant(space) == enemy(side):
        return False
    return state.control.get(space) == side or (forts.enemy_fort(state, side, space)
                                                and state.forts.get(space) == "besieged")


def route(state: PogState, side: str, unit: str, start: str, end: str) -> bool:
    """A path of friendly spaces the unit may cross (13.1.5), inside Russia for Russians (13.1.6)."""
    pog = state.map
    russian = state.nation(unit) == "ru"
    if russian and pog.nation[pog.index[start]] != "ru":
        return False
    seen, frontier = {start}, [start]
    while frontier:
        here = frontier.pop()
        if here == end:
            return True
        for i in pog.neighbours[pog.index[here]]:
            there = pog.ids[i]
            if there in seen or not _friendly(state, side, there) or not may_cross(state, unit, here, there):
                continue
            if russian and pog.nation[i] != "ru":
                continue
            seen.add(there)
            frontier.append(there)
    return False


def _check_into_reserve(state: PogState, side: str, unit: str) -> None:
    if state.unit_facts[unit].type != "corps":
        raise IllegalOrder(f"{unit} is an army: only corps redeploy into the Reserve Box", rule="base 13.1.9",
                           field="unit")
    _check_capital(state, side, unit)
    if not supply.compute(state).in_supply(unit):
        raise IllegalOrder(f"{unit} is out of supply", rule="base 13.1.5", field="unit")
    if state.nation(unit) == "ru" and state.map.nation[state.map.index[state.units[unit].space]] != "ru":
        raise IllegalOrder(f"{unit} redeploys to the Reserve Box only from Russia", rule="base 13.1.6", field="unit")


def _check_out_of_reserve(state: PogState, side: str, unit: str, end: str) -> None:
    _check_capital(state, side, unit)
    nation = sr_nation(state, unit)
    if end not in state.map.index:
        raise IllegalOrder(f"{unit} is in the Reserve Box already", rule="base 13.1.8", field="to")
    if nation == "ru" and state.map.nation[state.map.index[end]] != "ru":
        raise IllegalOrder(f"{unit} comes out of the Reserve Box only in Russia", rule="base 13.1.6", field="to")
    computed = supply.compute(state)
    kin = [u for u in state.units_in(end) if sr_nation(state, u) == nation and computed.in_supply(u)]
    home = (end in (*replacements.capitals(nation), *_home_sources(state, unit)) and state.control.get(end) == side
            and computed.space_supplied(side, end))
    us_port = nation == "us" and state.map.nation[state.map.index[end]] == "fr" and state.map.port[
        state.map.index[end]] and state.control.get(end) == side
    corps = state.unit_facts[unit].type == "corps"
    if not ([u for u in kin if u not in NOT_INTO] or (corps and (home or us_port))):
        raise IllegalOrder(f"{state.map.name_of(end)} holds no supplied unit of {unit}'s nation"
                           + (", nor is it a supplied capital or supply source of it" if corps else ""),
                           rule="base 13.1.8", field="to")


def _home_sources(state: PogState, unit: str) -> list[str]:
    """13.1.8: the supply sources in the unit's nation (and Salonika for the Serbs, as the rule says)."""
    nation = sr_nation(state, unit)
    pog = state.map
    found = [s for s in supply.unit_class(state, unit).sources
             if s in pog.index and pog.nation[pog.index[s]] == nation]
    return [*found, *(["salonika"] if nation == "sb" else [])]


def _check_capital(state: PogState, side: str, unit: str) -> None:
    """13.1.11: no SR to or from the Reserve Box while the enemy holds or besieges the capital."""
    nation = sr_nation(state, unit)
    if nation in CAPITAL_EXEMPT:
        return
    for space in replacements.capitals(nation):
        if state.control.get(space) == enemy(side) or state.forts.get(space) == "besieged":
            raise IllegalOrder(f"the enemy holds or besieges {state.map.name_of(space)}: no {nation.upper()} unit uses "
                               "the Reserve Box", rule="base 13.1.11", field="unit")
