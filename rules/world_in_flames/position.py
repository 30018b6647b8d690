"""The state as the rules of 1-2.4 see it (situation.Situation): hexes as indices, units with
their facts, the powers' relations and the options in force; and who commands what."""

from __future__ import annotations

from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import world as worlds
from .situation import Situation, Unit, major_power
from .state import WifState


@cache
def unit_types() -> dict:
    return datafile.load(__package__, "units.toml")["types"]


def facts(state: WifState, unit_id: str) -> dict:
    """A unit's type facts (units.toml) with its own: kind, strength, movement..."""
    unit = state.units[unit_id]
    return {**unit_types()[unit["type"]], **unit}


def unit(state: WifState, unit_id: str) -> Unit:
    world = worlds.load()
    known = facts(state, unit_id)
    place = {"hex": world.position[known["hex"]]} if "hex" in known else {"sea": known["sea"]}
    return Unit(unit_id, known["kind"], known["country"], air_to_sea=bool(known.get("air_to_sea")),
                face_up=known["face_up"], **place)


def situation(state: WifState, options: dict) -> Situation:
    world = worlds.for_options(options)
    politics = state.politics
    pairs = lambda key: frozenset(frozenset(pair) for pair in politics.get(key, []))  # noqa: E731
    return Situation(
        world, sides=politics["sides"], controllers=politics.get("controllers", {}),
        control={world.position[h]: power for h, power in state.control.items()},
        held={world.position[h]: frozenset(sides) for h, sides in state.held.items()},
        at_war=pairs("at_war"), cooperation=pairs("cooperation"),
        consent=frozenset(tuple(pair) for pair in politics.get("consent", [])),
        conquered=politics.get("conquered", {}), weather=politics.get("weather", {}),
        open_neutrals=frozenset(politics.get("open_neutrals", [])),
        units=tuple(unit(state, name) for name in state.units), options=options)


def commander(state: WifState, power: str) -> str:
    """The player commanding a power's major power (in his charter sides after his team), ""
    for none."""
    major = major_power(worlds.load(), state.politics["sides"], state.politics.get("controllers", {}), power)
    return next((seat.id for seat in state.setup.roster if major and major in seat.sides[1:]), "")


def owner_of_unit(state: WifState, unit_id: str) -> str:
    return commander(state, state.units[unit_id]["country"])


def team(state: WifState, player: str) -> str:
    return next((seat.sides[0] for seat in state.setup.roster if seat.id == player), "")


def own_unit(state: WifState, player: str, unit_id: str, rule: str, field: str) -> dict:
    """The unit, if it is one of `player`'s; IllegalOrder naming the rule and the order's field
    otherwise."""
    if unit_id not in state.units:
        known = ", ".join(sorted(u for u in state.units if owner_of_unit(state, u) == player)[:8])
        raise IllegalOrder(f"no unit {unit_id!r} (yours: {known})", rule=rule, field=field)
    if owner_of_unit(state, unit_id) != player:
        raise IllegalOrder(f"{unit_id} is not {player}'s to command", rule=rule, field=field)
    return state.units[unit_id]


def distinct(names: list[str], rule: str, field: str) -> list[str]:
    """The units an order lists, each once (IllegalOrder naming a repeated one)."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise IllegalOrder(f"{repeated[0]} is named twice", rule=rule, field=field)
    return names


def hex_id(world: worlds.World, text: str, field: str = "hex") -> str:
    """A hex of this world as a player names it: its name or id; IllegalOrder naming the nearest
    otherwise."""
    from pbem.errors import UsageError

    try:
        return world.ids[worlds.hex_named(world, text)]
    except UsageError as exc:
        raise IllegalOrder(exc.message, rule="2.1", field=field) from None
