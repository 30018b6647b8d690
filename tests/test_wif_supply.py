"""World in Flames supply (seed 004, 2.4) on the sample world: tests/cases/world_in_flames/supply.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pbem.rules.world_in_flames import supply
from pbem.rules.world_in_flames import world as worlds
from pbem.rules.world_in_flames.situation import Situation, Unit

CASES = Path(__file__).parent / "cases" / "world_in_flames"
BOOK = tomllib.loads((CASES / "supply.toml").read_text())
SUPPLY_CASES = BOOK["case"]
WORLD = worlds.load()


def at(name: str) -> int:
    return worlds.hex_named(WORLD, name)


def unit_from(facts: dict) -> Unit:
    place = {"hex": at(facts["hex"])} if "hex" in facts else {"sea": facts["sea"]}
    rest = {k: v for k, v in facts.items() if k not in ("hex", "sea")}
    return Unit(**rest, **place)


def situation_from(facts: dict) -> Situation:
    pairs = lambda key: frozenset(frozenset(pair) for pair in facts.get(key, []))  # noqa: E731
    return Situation(
        WORLD, sides=facts["sides"], controllers=facts.get("controllers", {}),
        control={at(name): power for name, power in facts.get("control", {}).items()},
        held={at(name): frozenset(sides) for name, sides in facts.get("held", {}).items()},
        at_war=pairs("at_war"), cooperation=pairs("cooperation"),
        consent=frozenset(tuple(pair) for pair in facts.get("consent", [])), conquered=facts.get("conquered", {}),
        weather=facts.get("weather", {}), open_neutrals=frozenset(facts.get("open_neutrals", [])),
        units=tuple(unit_from(u) for u in facts.get("units", [])), options=facts.get("options", {}))


def merged(base: dict, change: dict) -> dict:
    """A step of a case: its keys replace the base's, but `control` merges, `units` add, and
    `move` puts units in new hexes."""
    facts = {**base, **{k: v for k, v in change.items() if k not in ("control", "units", "move")}}
    facts["control"] = {**base.get("control", {}), **change.get("control", {})}
    units = [*base.get("units", []), *change.get("units", [])]
    moves = change.get("move", {})
    facts["units"] = [{**u, "hex": moves[u["id"]]} if u["id"] in moves else u for u in units]
    return facts


def check(facts: dict, expected: dict) -> None:
    situation = situation_from(facts)
    found = supply.status(situation)
    for name in expected.get("supplied", []):
        assert found[name].supplied, f"{name} should be in supply"
    for name in expected.get("unsupplied", []):
        assert not found[name].supplied, f"{name} should be out of supply"
    for name, hexes in expected.get("path", {}).items():
        unit = next(u for u in situation.units if u.id == name)
        wanted = [WORLD.ids[at(h)] if ":" in h or h.lower() in WORLD.names or h in WORLD.position else h
                  for h in hexes]
        assert [step["place"] for step in supply.explain(situation, unit)] == wanted


@pytest.mark.parametrize("case", SUPPLY_CASES, ids=[f"{c['id']} [{c['rule']}]" for c in SUPPLY_CASES])
def test_supply_case(case):
    facts = merged(BOOK["bases"][case["base"]], case)
    check(facts, case)
    for step in case.get("then", []):
        facts = merged(facts, step)
        check(facts, step)


def test_a_fact_the_seed_lacks_is_data_and_its_absence_names_its_rule():
    from pbem.rules.world_in_flames import charts

    from pbem.datafile import DataFileError

    assert (charts.path_length("fine"), charts.path_length("blizzard"), charts.movement_cost("mountain")) == (4, 2, 2)
    with pytest.raises(DataFileError, match=r"supply_path_length \(8\.2\.2\) gives no length for 'hail'"):
        charts.path_length("hail")
    with pytest.raises(DataFileError, match=r"terrain_chart \(terrain chart, 11\) gives no movement for 'glacier'"):
        charts.movement_cost("glacier")
