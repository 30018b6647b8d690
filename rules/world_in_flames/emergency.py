"""Option 13's emergency HQ supply (2.4.3): announced first in an impulse, a face-up HQ that is not
surprised lets out-of-supply non-HQ units that trace a basic supply path to it, and may co-operate
with it, operate as if in supply this impulse, at most as many as its reorganisation value; it
turns face-down after the land combat (the end of the impulse, W15)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import position, readiness, supply
from .state import WifState

RULE = "2.4.3"


def announce(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    if not options.get("option_13_emergency"):
        raise IllegalOrder("emergency HQ supply is option 13 (option_13_emergency), not played in this game",
                           rule=RULE, field="kind")
    hq = str(order["hq"])
    facts = position.own_unit(state, player, hq, RULE, "hq")
    known = position.facts(state, hq)
    if known["kind"] != "hq" or "hex" not in facts:
        raise IllegalOrder(f"{hq} is not an HQ on the map", rule=RULE, field="hq")
    if not facts["face_up"] or facts.get("surprised"):
        raise IllegalOrder(f"{hq} is face-down or surprised: it gives no emergency supply", rule=RULE, field="hq")
    if hq in state.emergency:
        raise IllegalOrder(f"{hq} already gives emergency supply this impulse", rule=RULE, field="hq")
    units = position.distinct([str(u) for u in order["units"]], RULE, "units")
    if not units:
        raise IllegalOrder(f"name the units {hq} supplies (units=...)", rule=RULE, field="units")
    limit = int(known.get("reorganisation", 0))
    if len(units) > limit:
        raise IllegalOrder(f"{hq} supplies {limit} units at most (its reorganisation value)", rule=RULE, field="units")
    _check_units(state, player, hq, units, options)
    state.emergency[hq] = units
    state.last = {"text": f"{hq} gives emergency supply to {', '.join(units)}", "hex": facts["hex"], "unit": hq}


def _check_units(state: WifState, player: str, hq: str, units: list[str], options: Mapping[str, bool]) -> None:
    situation = position.situation(state, dict(options))
    supplied = readiness.supplied(state, options)
    hq_unit = position.unit(state, hq)
    for name in units:
        position.own_unit(state, player, name, RULE, "units")
        unit = position.unit(state, name)
        if unit.kind == "hq" or unit.sea:
            raise IllegalOrder(f"{name} is an HQ or at sea: emergency supply is for other units", rule=RULE,
                               field="units")
        if supplied[name]:
            raise IllegalOrder(f"{name} is in supply already", rule=RULE, field="units")
        if situation.major_of(hq_unit.country) not in situation.co_operators(situation.major_of(unit.country)):
            raise IllegalOrder(f"{name} may not co-operate with {hq}", rule=RULE, field="units")
        if not supply.reaches(situation, unit, hq_unit.hex):
            raise IllegalOrder(f"{name} traces no basic supply path to {hq}", rule=RULE, field="units")


def end_of_impulse(state: WifState) -> None:
    """The announced HQs turn face-down after the land combat."""
    for hq in state.emergency:
        if hq in state.units:
            state.units[hq]["face_up"] = False
    state.emergency = {}
