"""The land phase (seed 003, 12.3.7.4, 12.3.9; base 7.3 as RULINGS E13-E16 read it): each power in
turn moves its corps area by area, paying each area's movement cost. A move stops wherever it
gives an enemy leader or corps a reaction (reactions.py); once every player able to react has
reacted or declined, it goes on, unless it was intercepted or enemy corps stay in the area
(12.3.7.4.2.2), where it ends; the mover may then try an overrun (overrun.py)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import command, geography, powers, units
from .state import Corps, EiaState

MOVE_RULE = "7.3"  # the base game's movement (E13)


def phase_order(state: EiaState) -> list[str]:
    """E13: the powers in data order that someone commands and that have a corps able to move."""
    return [power for power in powers.order() if command.commander(state, power) and
            any(c.power == power and units.kind(c.kind)["movement"] for c in state.corps.values())]


def start(state: EiaState, power: str) -> None:
    """A power's land phase opens: its corps get their movement points; every reaction allowance
    of the phase starts afresh."""
    if state.phasing and state.land_log:  # the last phase where something happened, for the views
        state.last_phase = {"turn": state.turn, "power": state.phasing, "log": state.land_log}
    state.phasing, state.movement, state.reaction, state.overrun = power, {}, {}, {}
    state.waived, state.attack_minus, state.land_log, state.battles, state.battle = [], [], [], [], {}
    for unit in state.corps.values():
        unit.reacted_with, unit.spent, unit.stopped, unit.moved = "", False, False, False
        unit.mp = int(units.kind(unit.kind)["movement"]) if unit.power == power else 0
    for leader in state.leaders.values():
        leader.failed = leader.done = False
    state.plan = {}
    if power:
        from . import planned

        planned.open_round(state)


def enemy_corps_in(state: EiaState, area: str, power: str) -> list[str]:
    """The corps (not garrisons, freikorps or cossacks) in the area of powers at war with `power`."""
    foes = command.enemies(state, power)
    return [name for name, unit in state.corps.items()
            if unit.area == area and unit.power in foes and is_corps(unit)]


def is_corps(unit: Corps) -> bool:
    facts = units.kind(unit.kind)
    return not facts.get("garrison") and not facts.get("escort")


def is_cavalry(unit: Corps) -> bool:
    """A cavalry corps (12.3.9.4: untouched by an overrun)."""
    return bool(units.kind(unit.kind).get("cavalry"))


def reacts_as_cavalry(unit: Corps) -> bool:
    """Cavalry for the purposes of 12.3.7.4, the Austrian Light Infantry too."""
    return is_cavalry(unit) or bool(units.kind(unit.kind).get("reacts_as_cavalry"))


def crossing(a: str, b: str) -> str | None:
    """The border between two areas ("" for a plain one), None if they do not touch."""
    return next((kind for other, kind in geography.neighbours(a) if other == b), None)


# ---------------------------------------------------------------------------------- a move

def check_move(state: EiaState, order: Mapping) -> tuple[list[str], list[str], list[str]]:
    """The corps and leaders that move and the areas they enter; IllegalOrder otherwise."""
    names = [str(n) for n in order["units"]]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise IllegalOrder(f"{twice[0]} is named twice", rule=MOVE_RULE, field="units")
    moving = [n for n in names if n in state.corps]
    leaders = [n for n in names if n in state.leaders]
    unknown = [n for n in names if n not in moving and n not in leaders]
    if unknown:
        raise IllegalOrder(f"no corps or leader {unknown[0]!r} on the map", rule=MOVE_RULE, field="units")
    if not moving:
        raise IllegalOrder("a move takes at least one corps (leaders go with corps)", rule=MOVE_RULE, field="units")
    start_area = state.corps[moving[0]].area
    for name in moving:
        _check_mover(state, name, state.corps[name], start_area)
    for name in leaders:
        if state.leaders[name].power != state.phasing or state.leaders[name].area != start_area:
            raise IllegalOrder(f"{name} is not a {state.phasing} leader in {start_area}", rule=MOVE_RULE,
                               field="units")
    path = [geography.area_in_order(str(a), MOVE_RULE, "path") for a in order["path"]]
    _check_path(state, start_area, path, moving)
    for name in moving:
        check_militia(state, name, state.corps[name], path)
    return moving, leaders, path


MILITIA_AT_HOME = ("britain", "russia", "spain")  # 12.11.1
LANDWEHR_NEEDED = ("austria", "prussia")  # 12.11.1, 12.11.3


def check_militia(state: EiaState, name: str, unit: Corps, path: list[str]) -> None:
    """12.11.1: British, Russian and Spanish corps hold militia only within their home nation;
    Austrian and Prussian ones only while their landwehr is active (not the Insurrection corps).
    Checked on every move, reactions too (E22)."""
    if not unit.factors.get("militia") or units.kind(unit.kind).get("garrison"):
        return
    if unit.power in MILITIA_AT_HOME:
        home = geography.home_areas(unit.power)
        abroad = [a for a in path if a not in home]
        if abroad:
            raise IllegalOrder(f"{name} holds militia: it may not leave {unit.power}'s home nation for {abroad[0]}",
                               rule="12.11.1", field="path")
    if unit.power in LANDWEHR_NEEDED and not state.powers[unit.power].landwehr \
            and not units.kind(unit.kind).get("militia"):
        raise IllegalOrder(f"{name} holds militia while {unit.power}'s landwehr is not active", rule="12.11.1",
                           field="units")


def _check_mover(state: EiaState, name: str, unit: Corps, start_area: str) -> None:
    if unit.power != state.phasing:
        raise IllegalOrder(f"{name} is {unit.power}'s; this is {state.phasing}'s land phase", rule=MOVE_RULE,
                           field="units")
    if not units.kind(unit.kind)["movement"]:
        raise IllegalOrder(f"{name} is a garrison: it never moves", rule=MOVE_RULE, field="units")
    if unit.area != start_area:
        raise IllegalOrder(f"{name} is in {unit.area}, not {start_area}: a move takes one stack", rule=MOVE_RULE,
                           field="units")
    if unit.stopped:
        raise IllegalOrder(f"{name} has ceased movement in {unit.area} (12.3.7.4.1, 12.3.7.4.2.2, 12.3.9.5)",
                           rule="12.3.7.4.2.2", field="units")


def _check_path(state: EiaState, here: str, path: list[str], moving: list[str]) -> None:
    if not path:
        raise IllegalOrder("name the areas to enter, in order: path=munich,vienna", rule=MOVE_RULE, field="path")
    cost = 0
    for area in path:
        if crossing(here, area) is None:
            raise IllegalOrder(f"{area} does not border {here}", rule=MOVE_RULE, field="path")
        cost += units.movement_cost(state.setup.tables, geography.areas()[area]["terrain"])
        here = area
    short = [n for n in moving if state.corps[n].mp < cost]
    if short:
        raise IllegalOrder(f"{short[0]} has {state.corps[short[0]].mp} movement points left; the path costs {cost}",
                           rule=MOVE_RULE, field="path")


def move(state: EiaState, order: Mapping) -> None:
    moving, leaders, path = check_move(state, order)
    state.movement = {"units": moving, "leaders": leaders, "area": state.corps[moving[0]].area, "from": "",
                      "rest": path, "declined": [], "intercepted": False}
    walk(state)


def walk(state: EiaState) -> None:
    """Enter the path's areas one by one, stopping where a reaction is possible (reactions.py
    takes over) or where the move must end."""
    from . import reactions

    move = state.movement
    while move["rest"]:
        area = move["rest"].pop(0)
        cost = units.movement_cost(state.setup.tables, geography.areas()[area]["terrain"])
        for name in move["units"]:
            unit = state.corps[name]
            _ottoman_penalty(state, unit, area)
            unit.mp, unit.area, unit.moved = unit.mp - cost, area, True
        for name in move["leaders"]:
            state.leaders[name].area = area
        move.update({"from": move["area"], "area": area, "declined": [], "intercepted": False})
        if any(is_corps(state.corps[n]) for n in move["units"]) and reactions.reactors(state):
            return  # a corps entering gives the enemy its reactions (12.3.7.4.1, 12.3.7.4.2)
        if not go_on(state):
            return
    state.movement = {}


def go_on(state: EiaState) -> bool:
    """After every reaction: the move ends where it was intercepted or enemy corps stay
    (12.3.7.4.1, 12.3.7.4.2.2); True if it may go on."""
    move = state.movement
    if move["intercepted"] or enemy_corps_in(state, move["area"], state.phasing):
        for name in move["units"]:
            state.corps[name].stopped = True
        state.movement = {}
        return False
    return True


def after_reactions(state: EiaState) -> None:
    if go_on(state):
        walk(state)


def in_europe(area: str) -> bool:
    """12.10: any area but Turkey's, Syria's (here Turkish) and the winter zone's, on the map's Europe."""
    facts = geography.areas()[area]
    home = geography.territories()[facts["territory"]].get("home")
    return facts.get("europe", True) and not facts.get("winter") and home != "turkey"


def _ottoman_penalty(state: EiaState, unit: Corps, area: str) -> None:
    """12.10: a major power but Turkey loses a political point in a turn it moves corps of an
    Ottoman Empire free state into Europe; not for such corps already there."""
    origin_areas = geography.areas_of(unit.origin) if unit.origin else []
    ottoman = any(geography.areas()[a].get("ottoman") for a in origin_areas)
    if not ottoman or unit.power == "turkey" or in_europe(unit.area) or not in_europe(area):
        return
    if state.turn not in state.ottoman_penalties.setdefault(unit.power, []):
        state.ottoman_penalties[unit.power].append(state.turn)
        state.powers[unit.power].pp -= 1
