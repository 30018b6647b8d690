"""The 1805 militia conversion (seed 003, 12.11.2): in a campaign game beginning in 1805 each major
power but Turkey may, sealed with its overtures before the game, convert up to 5% of the infantry
factors it has at set-up into militia, three militia for each infantry factor, which begin the
game as city garrisons (RULINGS E27)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.errors import IllegalOrder

from . import geography
from .state import Corps, EiaState

RULE = "12.11.2"
SHARE = 20  # 12.11.2: up to 5%, one factor in twenty
MILITIA_PER_INFANTRY = 3


def conversion(state: EiaState, commands: Sequence[str], order: Mapping, made: list[dict]) -> dict:
    """The conversion this sealed order makes; IllegalOrder naming the rule and field otherwise."""
    if not state.militia_conversion or state.turn != 0:
        raise IllegalOrder("militia conversion is for campaign games beginning in 1805, before the game", rule=RULE,
                           field="kind")
    corps_name, city = str(order["corps"]), geography.area_in_order(str(order["city"]), RULE, "city")
    unit = state.corps.get(corps_name)
    if unit is None or unit.power not in commands or unit.origin:
        raise IllegalOrder(f"no corps {corps_name!r} of a power you command, raised by it", rule=RULE, field="corps")
    if unit.power == "turkey":
        raise IllegalOrder("Turkey converts no infantry", rule=RULE, field="corps")
    infantry = int(order["infantry"])
    allowed = sum(u.factors.get("infantry", 0) for u in state.corps.values()
                  if u.power == unit.power and not u.origin) // SHARE  # its own, not a free state's (E27)
    used = sum(m["infantry"] for m in made if m["power"] == unit.power)
    if infantry < 1 or used + infantry > allowed:
        raise IllegalOrder(f"{unit.power} may convert up to {allowed} infantry factors (5% of its infantry), "
                           f"{used} already", rule=RULE, field="infantry")
    if infantry > unit.factors.get("infantry", 0) - sum(m["infantry"] for m in made if m["corps"] == corps_name):
        raise IllegalOrder(f"{corps_name} has not {infantry} infantry factors to give", rule=RULE, field="infantry")
    facts = geography.areas()[city]
    if not facts.get("city") or state.control.get(facts["territory"]) != unit.power:
        raise IllegalOrder(f"{city} is no city {unit.power} holds", rule=RULE, field="city")
    return {"power": unit.power, "corps": corps_name, "infantry": infantry, "city": city}


def convert(state: EiaState, made: list[dict]) -> None:
    """Each conversion: the infantry leave the corps; three militia each join the city's garrison."""
    for item in made:
        state.corps[item["corps"]].factors["infantry"] -= item["infantry"]
        name = f"{item['power']}_{item['city']}_garrison"
        garrison = state.corps.setdefault(name, Corps(item["power"], "city_garrison", item["city"], {"militia": 0}))
        garrison.factors["militia"] = garrison.factors.get("militia", 0) + MILITIA_PER_INFANTRY * item["infantry"]
