"""Battles at the end of a land phase, on declared tables until the base game's combat rules (7.5)
are supplied (RULINGS E23). Wherever the phasing power's corps share an area with corps at war
with it, they attack (7.3.7.1), in the map's order of areas. Each side's player seals a tactical
option (attacker and defender at once); at 5 to 1 the combat is trivial (12.3.9.1) and no option
is asked. At the roll point each side rolls a die, with the tactical matrix, its commander's
tactical rating and the failed overrun's -1 (12.3.9.5), and inflicts a share of its own strength
on the other; the side that lost the larger share of its strength (the attacker on a tie)
retreats one area, or surrenders if it cannot. Garrisons take no part.

Under option `solitaire_combat` (18.1) the options come from the seed's tables instead:
solitaire.py."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import command, game_tables, geography, units
from .land import MILITIA_AT_HOME, crossing, enemy_corps_in, is_corps
from .reactions import commanding, nearest_refuges
from .sealed_orders import order_number, voided
from .state import PLAYER, EiaState

RULE = "7.5"
ATTACKER_OPTIONS = ("outflank", "assault", "escalated_assault", "echelon", "probe")  # 18.1.2
DEFENDER_OPTIONS = ("outflank", "counter_attack", "escalated_counter_attack", "cordon", "defend", "withdraw")  # 18.1.1
LOSS_ORDER = ("militia", "infantry", "cavalry", "guard")  # 14.3.3.7 (E23: every power's)


def _table(state: EiaState, name: str) -> Mapping:
    return game_tables.table(name, state.setup.tables)


# ---------------------------------------------------------------------------------- who fights where

def open_battles(state: EiaState) -> None:
    """The phasing power's battles, in the map's order of areas; the first opens."""
    state.battles = [area for area in geography.areas() if _side(state, area, attacker=True)
                     and enemy_corps_in(state, area, state.phasing)]
    next_battle(state)


def _side(state: EiaState, area: str, attacker: bool) -> list[str]:
    foes = command.enemies(state, state.phasing)
    return [name for name, unit in state.corps.items() if unit.area == area and is_corps(unit)
            and (unit.power == state.phasing if attacker else unit.power in foes)]


def next_battle(state: EiaState) -> None:
    """Open the next battle whose sides both still stand, or none."""
    while state.battles:
        area = state.battles.pop(0)
        attackers, defenders = _side(state, area, True), _side(state, area, False)
        if attackers and defenders:
            state.battle = _battle(state, area, attackers, defenders)
            return
    from .sequence import next_land_phase

    state.battle = {}
    next_land_phase(state, state.phasing)


def _main_power(state: EiaState, corps: list[str]) -> str:
    strength: dict[str, int] = {}
    for name in corps:
        strength[state.corps[name].power] = strength.get(state.corps[name].power, 0) + state.corps[name].strength
    return max(sorted(strength), key=lambda power: strength[power])


def _battle(state: EiaState, area: str, attackers: list[str], defenders: list[str]) -> dict:
    defending = _main_power(state, defenders)
    strength = {"attacker": _strength(state, attackers), "defender": _strength(state, defenders)}
    ratio = int(_table(state, "trivial_combat")["ratio"])
    trivial = max(strength.values()) >= ratio * min(strength.values())
    record = {"area": area, "powers": {"attacker": state.phasing, "defender": defending},
              "players": {"attacker": command.commander(state, state.phasing),
                          "defender": command.commander(state, defending)},
              "strength": strength, "trivial": trivial, "options": {},
              "stage": "roll" if trivial else "tactics"}
    if not trivial and state.setup.options.get("solitaire_combat"):
        from . import solitaire

        solitaire.start(record)
    return record


def _strength(state: EiaState, corps: list[str]) -> int:
    return sum(state.corps[name].strength for name in corps)


def choosing(state: EiaState) -> tuple[str, ...]:
    """The players who choose an option now, in roster order: both sides' players, sealed; or the
    one side's player whose enemy nobody commands. A side nobody commands, or one player on both
    sides, rolls instead (E23)."""
    players = state.battle["players"]
    if players["attacker"] == players["defender"]:
        return ()
    return tuple(p for p in state.setup.players if p in players.values())


def choose(state: EiaState, player: str, order: Mapping) -> None:
    """The one player choosing (his enemy's option is rolled): no seal is needed."""
    state.battle["options"].update(check_options(state, player, [order]))
    state.battle["stage"] = "roll"


# ---------------------------------------------------------------------------------- tactical options

def check_options(state: EiaState, player: str, orders) -> dict[str, str]:
    """Each side this player commands names one option (IllegalOrder otherwise)."""
    sides = [side for side, who in state.battle["players"].items() if who == player]
    if not sides:
        raise IllegalOrder(f"{player} has no side in the battle in {state.battle['area']}", rule=RULE, field="orders")
    chosen: dict[str, str] = {}
    for index, order in enumerate(orders, 1):
        with order_number(index):
            chosen.update(_option(sides[0], order, chosen))
    if len(chosen) < len(sides):
        raise IllegalOrder(f"name your option as {sides[0]} in {state.battle['area']}: tactic option=...", rule=RULE,
                           field="orders")
    return chosen


def _option(side: str, order: Mapping, chosen: dict[str, str]) -> dict[str, str]:
    if order.get("kind") != "tactic":
        raise IllegalOrder(f"{order.get('kind')!r} is not sealed in a battle: tactic option=...", rule=RULE,
                           field="kind")
    option = str(order["option"])
    allowed = ATTACKER_OPTIONS if side == "attacker" else DEFENDER_OPTIONS
    if option not in allowed:
        raise IllegalOrder(f"the {side} chooses one of {', '.join(allowed)}",
                           rule="18.1.1" if side == "defender" else "18.1.2", field="option")
    if side in chosen:
        raise IllegalOrder("one tactical option a battle", rule=RULE)
    return {side: option}


def collect(state: EiaState, sealed: Mapping[str, list[Mapping] | None], check_kind) -> None:
    """The unsealed options; a side whose seal names none that stands rolls on the seed's table."""
    record = state.battle
    record["voided"] = []
    for player, given in sealed.items():  # a side's orders stand or fall together: one option
        try:
            if given is None:
                raise IllegalOrder("the unsealed text could not be read", rule="PROTOCOL §5")
            for index, order in enumerate(given, 1):
                with order_number(index):
                    check_kind(order)
            record["options"].update(check_options(state, player, given))
        except IllegalOrder as exc:
            record["voided"].append(voided(player, 0, exc.rule, exc.message))
    record["stage"] = "roll"


def random_option(dice, side: str) -> str:
    """18.1.1, 18.1.2: a die on the side's table, rolled again on a 6."""
    table = game_tables.table("solitaire")[side]
    while True:
        face = dice.roll(6, f"{side}'s tactical option", "18.1.1" if side == "defender" else "18.1.2")
        if str(face) in table:
            return str(table[str(face)])


# ---------------------------------------------------------------------------------- the fight

def fight(state: EiaState, dice) -> None:
    record = state.battle
    for side in ("defender", "attacker"):  # 18.1: the defender first
        if side not in record["options"] and not record["trivial"]:
            record["options"][side] = random_option(dice, side)
    if record["trivial"]:
        _trivial(state, record)
    elif record["options"]["defender"] == "withdraw":
        record["loser"] = "defender"
    else:
        _rolls(state, record, dice)
    side = record["loser"]
    standing = _side(state, record["area"], side == "attacker")
    if standing and not refuges(state, record["area"], record["powers"][side]):
        _surrender(state, record, side)
    shown = {k: v for k, v in record.items() if k not in ("stage", "voided", "checks", "to_check")}
    state.land_log.append({"event": "battle", **shown})
    if not standing or "surrendered" in record:
        next_battle(state)
    elif record["players"][side] is None:  # nobody commands it (E9)
        retreat(state, None, {"to": _auto_refuge(state, side)})
    else:
        record["stage"] = "retreat"


def _rolls(state: EiaState, record: dict, dice) -> None:
    attack, defend = record["options"]["attacker"], record["options"]["defender"]
    matrix = _table(state, "combat_matrix")[attack][defend]
    totals = {}
    for index, side in enumerate(("attacker", "defender")):
        die = dice.roll(6, f"{side} in {record['area']}", RULE)
        modifiers = {"tactics": int(matrix[index]), "commander": tactical_rating(state, record, side)}
        if side == "attacker" and record["area"] in state.attack_minus:
            modifiers["failed overrun"] = -1  # 12.3.9.5
        totals[side] = {"die": die, "modifiers": {k: v for k, v in modifiers.items() if v},
                        "total": die + sum(modifiers.values())}
    record["rolls"] = totals
    lost = {"defender": _inflicted(state, record["strength"]["attacker"], totals["attacker"]["total"]),
            "attacker": _inflicted(state, record["strength"]["defender"], totals["defender"]["total"])}
    record["losses"] = {side: _take_losses(state, record["area"], side, lost[side]) for side in lost}
    share = {side: record["losses"][side] / record["strength"][side] for side in lost}
    record["loser"] = "attacker" if share["attacker"] >= share["defender"] else "defender"


def _trivial(state: EiaState, record: dict) -> None:
    """12.3.9.1: the smaller side loses its share and gives way; the larger loses nothing."""
    small = min(("attacker", "defender"), key=lambda side: record["strength"][side])
    percent = int(_table(state, "trivial_combat")["loss_percent"])
    lost = max(1, record["strength"][small] * percent // 100)
    record["losses"] = {small: _take_losses(state, record["area"], small, lost)}
    record["loser"] = small


def tactical_rating(state: EiaState, record: dict, side: str) -> int:
    power = record["powers"][side]
    leader = commanding(state, power, record["area"])
    if leader is None:
        return 0
    facts = units.leader(leader)
    present = sum(1 for u in state.corps.values() if u.power == power and u.area == record["area"] and is_corps(u))
    return units.reduced(state.setup.tables, int(facts["tactical"]), int(facts["capacity"]), present)


def _inflicted(state: EiaState, strength: int, total: int) -> int:
    table = _table(state, "combat_losses")
    percent = int(table[str(min(max(total, 1), 8))])
    return max(1, strength * percent // 100) if percent else 0


def _take_losses(state: EiaState, area: str, side: str, amount: int) -> int:
    """Strength points off the side's corps there. In a mixed force an UMP takes no more than its
    share of the force's strength (14.3.3.4): the UMPs' corps first up to their shares, then the
    others, then, if they had too little, the UMPs again. Within each, militia first, then
    infantry, cavalry and guard (14.3.3.7), corps by corps in name order. A corps left with
    nothing leaves the map."""
    corps = sorted(_side(state, area, side == "attacker"))
    total = _strength(state, corps)
    umps = {state.corps[n].power for n in corps if state.powers[state.corps[n].power].status != PLAYER}
    mixed = len({state.corps[n].power for n in corps}) > 1
    taken = 0
    if mixed:
        for power in sorted(umps):
            mine = [n for n in corps if state.corps[n].power == power]
            taken += _bite(state, mine, amount * _strength(state, mine) // total)
        taken += _bite(state, [n for n in corps if state.corps[n].power not in umps], amount - taken)
    taken += _bite(state, corps, amount - taken)
    for name in corps:
        if not state.corps[name].strength:
            del state.corps[name]
    return taken


def _bite(state: EiaState, corps: list[str], amount: int) -> int:
    """Up to `amount` strength points off these corps, militia first (14.3.3.7)."""
    taken = 0
    for factor in LOSS_ORDER:
        for name in corps:
            unit = state.corps[name]
            bite = min(unit.factors.get(factor, 0), amount - taken)
            if bite > 0:
                unit.factors[factor] -= bite
                taken += bite
    return taken


# ---------------------------------------------------------------------------------- the retreat

def refuges(state: EiaState, area: str, power: str) -> list[str]:
    return sorted(other for other, _ in geography.neighbours(area) if not enemy_corps_in(state, other, power))


def _surrender(state: EiaState, record: dict, side: str) -> None:
    """No area to retreat into: the side's corps there surrender (E23)."""
    captor = record["powers"]["defender" if side == "attacker" else "attacker"]
    for name in _side(state, record["area"], side == "attacker"):
        state.surrender(captor, state.corps.pop(name))
    record["surrendered"] = side


def retreat(state: EiaState, player: str | None, order: Mapping) -> None:
    record = state.battle
    side = record["loser"]
    to = geography.area_in_order(str(order["to"]), RULE, "to")
    allowed = refuges(state, record["area"], record["powers"][side])
    if to not in allowed or crossing(record["area"], to) is None:
        raise IllegalOrder(f"retreat into a bordering area free of enemy corps: {', '.join(allowed)}", rule=RULE,
                           field="to")
    _check_militia_retreat(state, side, to, allowed)
    going = _side(state, record["area"], side == "attacker")
    losing = {state.corps[name].power for name in going}
    for name in going:
        state.corps[name].area, state.corps[name].stopped = to, True
    for leader in state.leaders.values():  # their leaders go with them
        if leader.area == record["area"] and leader.power in losing:
            leader.area = to
    state.land_log[-1]["retreat"] = to
    next_battle(state)


def retreating_player(state: EiaState) -> str:
    return str(state.battle["players"][state.battle["loser"]])


def resigned(state: EiaState, player: str) -> None:
    """E9: a player who resigns mid-battle chooses nothing more: his side's option is rolled, and
    a retreat of his goes to the area open to it nearest a friendly force (the first of them)."""
    record = state.battle
    for side, who in record["players"].items():
        if who == player:
            record["players"][side] = None
    if record.get("stage") == "retreat" and record["players"][record["loser"]] is None:
        retreat(state, player, {"to": _auto_refuge(state, record["loser"])})
    elif "checks" in record:  # solitaire combat (E24): his side stands, or its first choice is rolled
        from . import solitaire

        solitaire.resigned(state)


def _auto_refuge(state: EiaState, side: str) -> str:
    """Where a side nobody commands retreats (E9): the open area nearest a friendly force, at home
    first for corps holding militia (12.11.1), the first of them."""
    record = state.battle
    allowed = refuges(state, record["area"], record["powers"][side])
    nearest = nearest_refuges(state, record["powers"][side], record["area"])
    for area in nearest + [a for a in allowed if a not in nearest]:
        try:
            _check_militia_retreat(state, side, area, allowed)
            return area
        except IllegalOrder:
            continue
    return nearest[0]


def _check_militia_retreat(state: EiaState, side: str, to: str, allowed: list[str]) -> None:
    """12.11.1 (E22): corps that may hold militia only at home retreat at home while they can."""
    record = state.battle
    for name in _side(state, record["area"], side == "attacker"):
        unit = state.corps[name]
        home = geography.home_areas(unit.power)
        if unit.power in MILITIA_AT_HOME and unit.factors.get("militia") and to not in home:
            at_home = [area for area in allowed if area in home]
            if at_home:
                raise IllegalOrder(f"{name} holds militia: it retreats within {unit.power}'s home nation "
                                   f"({', '.join(at_home)})", rule="12.11.1", field="to")
