"""A scenario's fixed facts (data/scenarios.toml): the powers' relations and weather, the number
of impulses, each unit's type and nationality and where it starts, the control it starts with;
read once and checked, so that the state's dump holds only what play changes."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import UsageError

from ..common.plain import plain_copy
from . import kinds, position
from . import world as worlds

POLITICS = ("sides", "controllers", "at_war", "cooperation", "consent", "conquered", "open_neutrals", "weather")


@cache
def fixed(name: str) -> dict:
    """impulses, politics, units (id -> type, country and where it starts), control."""
    scenario = datafile.load(__package__, "scenarios.toml")[name]
    world = worlds.load()
    placed = {facts["id"]: _placed(facts, world, name) for facts in scenario.get("units", [])}
    if len(placed) != len(scenario.get("units", [])):
        raise UsageError(f"scenario {name} gives two units one id", field="scenario")
    return {"impulses": int(scenario["impulses"]),
            "politics": plain_copy({key: scenario[key] for key in POLITICS if key in scenario}),
            "units": dict(sorted(placed.items())),
            "control": {_hex(world, text, name): power for text, power in scenario.get("control", {}).items()}}


def _hex(world: worlds.World, text: str, scenario: str) -> str:
    try:
        return world.ids[worlds.hex_named(world, text)]
    except UsageError as exc:
        raise UsageError(f"scenario {scenario}: {exc.message}", field="scenario") from None


def _placed(facts: Mapping, world: worlds.World, scenario: str) -> dict:
    types = position.unit_types()
    if facts.get("type") not in types:
        raise UsageError(f"scenario {scenario}: unit {facts.get('id')} has no type {facts.get('type')!r} "
                         "(units.toml)", field="scenario")
    unit = {"type": facts["type"], "country": facts["country"], "face_up": bool(facts.get("face_up", True))}
    if "sea" in facts:
        if facts["sea"] not in world.seas or types[facts["type"]]["kind"] not in (*kinds.NAVAL, *kinds.AIR):
            raise UsageError(f"scenario {scenario}: {facts['id']} cannot stand in sea area {facts['sea']!r}",
                             field="scenario")
        unit["sea"] = facts["sea"]
    else:
        unit["hex"] = _hex(world, facts["hex"], scenario)
    return unit
