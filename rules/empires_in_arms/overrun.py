"""Overruns (seed 003, 12.3.9): during his land phase, once every reaction is over, the phasing
player may interrupt a corps' move to overrun the enemy corps and depot garrisons in the area it
entered, at no movement cost. His corps there, those already there included, against every corps
and depot garrison at war with him (strengths are public: RULINGS E17): at 5 to 1 or better the
defenders leave the map, destroyed or surrendered as each owner chooses, and the movers go on;
freikorps, cossacks, cavalry corps and city garrisons stay (E17). Otherwise the movers end their
move there and attack at -1 in the combat that follows."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import command, geography, units
from .land import is_cavalry, is_corps
from .state import EiaState

RULE = "12.3.9.2"
ODDS = 5  # 12.3.9.1, 12.3.9.4: five to one


def _defending(state: EiaState, area: str) -> list[str]:
    """12.3.9.2-3: the corps and depot garrisons there at war with the phasing power."""
    foes = command.enemies(state, state.phasing)
    return [name for name, unit in state.corps.items() if unit.area == area and unit.power in foes
            and (is_corps(unit) or units.kind(unit.kind).get("garrison") == "depot")]


def check(state: EiaState, order: Mapping) -> dict:
    area = geography.area_in_order(str(order["area"]), RULE, "area")
    mine = [n for n, u in state.corps.items() if u.area == area and u.power == state.phasing and is_corps(u)]
    if not any(state.corps[n].moved for n in mine):
        raise IllegalOrder(f"no {state.phasing} corps entered {area} this phase: an overrun interrupts a move",
                           rule=RULE, field="area")
    defending = _defending(state, area)
    if not defending:
        raise IllegalOrder(f"{area} holds no enemy corps or depot garrison to overrun", rule=RULE, field="area")
    if area in state.attack_minus:
        raise IllegalOrder(f"the overrun in {area} failed: the movers stay and attack there", rule="12.3.9.5",
                           field="area")
    attack = sum(state.corps[n].strength for n in mine)
    defence = sum(state.corps[n].strength for n in defending)
    return {"area": area, "attackers": mine, "defenders": defending, "attack": attack, "defence": defence}


def overrun(state: EiaState, order: Mapping) -> None:
    found = check(state, order)
    found["success"] = found["attack"] >= ODDS * found["defence"]
    state.land_log.append({"event": "overrun", **found})
    if not found["success"]:  # 12.3.9.5
        for name in found["attackers"]:
            state.corps[name].stopped = True
        state.attack_minus.append(found["area"])
        return
    swept = [n for n in found["defenders"] if not is_cavalry(state.corps[n])]  # 12.3.9.4: cavalry stays (E17)
    state.overrun = {"area": found["area"], "swept": swept, "movers": found["attackers"], "chosen": {}}
    settle_if_chosen(state)


def owners_to_choose(state: EiaState) -> list[str]:
    """The players who still choose for their swept units, in roster order."""
    powers = {state.corps[n].power for n in state.overrun["swept"]}
    return [player for player in state.setup.players if player not in state.overrun["chosen"]
            and any(p in command.commanded(state, player) for p in powers)]


def choose(state: EiaState, player: str, order: Mapping) -> None:
    fate = str(order["fate"])
    if fate not in ("destroyed", "surrendered"):
        raise IllegalOrder("fate is destroyed or surrendered", rule="12.3.9.4", field="fate")
    state.overrun["chosen"][player] = fate
    settle_if_chosen(state)


def settle_if_chosen(state: EiaState) -> None:
    """Once every owner has chosen (an uncontrolled power's units are destroyed) the units leave
    the map and the movers may go on."""
    if owners_to_choose(state):
        return
    record = state.overrun
    for name in record["swept"]:
        unit = state.corps.pop(name)
        owner = command.commander(state, unit.power)
        if record["chosen"].get(owner or "") == "surrendered":
            state.surrender(state.phasing, unit)
    for name in record["movers"]:
        state.corps[name].stopped = False
    state.land_log[-1]["fates"] = dict(record["chosen"])
    state.overrun = {}
