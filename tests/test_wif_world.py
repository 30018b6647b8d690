"""World in Flames' world and zones of control (seed 004, 2.1, 2.2) on the sample world:
tests/cases/world_in_flames/world.toml and zoc.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pbem.rules.world_in_flames import world as worlds
from pbem.rules.world_in_flames.zoc import Unit, zoc

from pbem.errors import UsageError

CASES = Path(__file__).parent / "cases" / "world_in_flames"
WORLD_CASES = tomllib.loads((CASES / "world.toml").read_text())["case"]
ZOC_CASES = tomllib.loads((CASES / "zoc.toml").read_text())["case"]
WORLD = worlds.load()


def hexes(names) -> set[int]:
    return {worlds.hex_named(WORLD, name) for name in names}


@pytest.mark.parametrize("case", WORLD_CASES, ids=[f"{c['id']} [{c['rule']}]" for c in WORLD_CASES])
def test_world_case(case):
    world = worlds.load(frozenset(case.get("options", [])))

    def hexes(names) -> set[int]:
        return {worlds.hex_named(world, name) for name in names}

    if "adjacent" in case:
        here = worlds.hex_named(world, case["hex"])
        assert set(world.neighbours[here]) == hexes(case["adjacent"])
        assert all(here in world.neighbours[other] for other in world.neighbours[here])  # both ways
    if "between" in case:
        a, b = worlds.hex_named(world, case["hex"]), worlds.hex_named(world, case["between"])
        assert world.between(a, b) == world.between(b, a) == frozenset(case["features"])
    for name, count in case.get("counts", {}).items():
        assert world.scale[worlds.hex_named(world, name)] == count, name
    for name, sea in case.get("seas", {}).items():
        assert world.sea_of[worlds.hex_named(world, name)] == sea, name
    if "sea" in case:
        assert world.seas[case["sea"]].neighbours == frozenset(case["sea_neighbours"])
        assert all(case["sea"] in world.seas[other].neighbours for other in case["sea_neighbours"])
    assert all(world.offmap(i) for i in hexes(case.get("off_map", [])))
    assert all(world.terrain[i] == "large_hexdot" for i in hexes(case.get("large", [])))
    for sea, names in case.get("ports", {}).items():
        assert world.seas[sea].ports == hexes(names), sea
    for hex_id in case.get("out_of_play", []):  # the id names no hex in this world
        assert world.terrain[world.position[hex_id]] == "none"
        with pytest.raises(UsageError, match=f"no hex '{hex_id}'"):
            worlds.hex_named(world, hex_id)


@pytest.mark.parametrize("case", ZOC_CASES, ids=[f"{c['id']} [{c['rule']}]" for c in ZOC_CASES])
def test_zoc_case(case):
    unfriendly = hexes(case.get("unfriendly", []))
    found = zoc(WORLD, worlds.hex_named(WORLD, case["hex"]), Unit(**case["unit"]), case.get("options", {}),
                stack=case.get("stack", ()), unfriendly=unfriendly.__contains__,
                frozen=lambda a, b: case.get("frozen", False))
    assert found == hexes(case["zoc"]), sorted(WORLD.ids[i] for i in found)


def test_every_hex_knows_its_neighbours_both_ways_and_names_are_found():
    for here, near in enumerate(WORLD.neighbours):
        assert all(here in WORLD.neighbours[other] for other in near), WORLD.ids[here]
    assert worlds.hex_named(WORLD, "Warsaw") == worlds.hex_named(WORLD, "east_europe:3-2")
    with pytest.raises(UsageError, match="did you mean warsaw"):
        worlds.hex_named(WORLD, "warsw")


STACKING_CASES = tomllib.loads((CASES / "stacking.toml").read_text())["case"]


@pytest.mark.parametrize("case", STACKING_CASES, ids=[f"{c['id']} [{c['rule']}]" for c in STACKING_CASES])
def test_stacking_case(case):
    from pbem.rules.world_in_flames.stacking import Stacked, check

    from pbem.errors import IllegalOrder

    units = [Stacked(**unit) for unit in case["units"]]
    where = worlds.hex_named(WORLD, case["hex"])
    if "error" not in case:
        check(WORLD, where, units, case.get("options", {}), case.get("friendly_port", True))
        return
    with pytest.raises(IllegalOrder) as refused:
        check(WORLD, where, units, case.get("options", {}), case.get("friendly_port", True))
    assert refused.value.rule == case["rule"] and case["error"] in refused.value.message


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d["maps"]["asia"]["rows"].__setitem__(0, "6x"), "no terrain code 'x'"),
    (lambda d: d["maps"]["asia"]["rows"].__setitem__(0, "5c"), "rows are not all of one width"),
    (lambda d: d["hexsides"][0].__setitem__("side", "N"), "no side 'N'"),
    (lambda d: d["hexsides"][0].__setitem__("hex", "riyadh"), "names no on-map hex 'riyadh'"),
    (lambda d: d["offmap"]["riyadh"]["lines"].append("east_europe:7-4"), "no land hex nor large hex-dot"),
    (lambda d: d["offmap"]["dakar"]["offmap"].append("cairo"), "names no hex 'cairo'"),
    (lambda d: d["names"].__setitem__("moscow", "east_europe:9-9"), "names no hex 'east_europe:9-9'"),
    (lambda d: d["maps"]["asia"]["regions"].__setitem__(0, "4R2b"), "asia:4-0 is clear but its region code 'b'"),
    (lambda d: d["maps"]["asia"]["regions"].pop(), "regions are not the shape of its rows"),
    (lambda d: d["seas"]["red_sea"].__setitem__("borders", ["arctic"]), "names no sea area 'arctic'"),
    (lambda d: d["countries"]["poland"].__setitem__("code", "G"), "code 'G' is taken"),
    (lambda d: d["rails"][0]["hexes"].append("asia:5-3"), "which are not adjacent"),
    (lambda d: d["hexsides"][1].__setitem__("sea", "arctic"), "the straits at west_europe:4-2 name no sea area"),
])
def test_a_broken_world_file_is_refused_with_its_fault(monkeypatch, change, words):
    import copy
    import re

    from pbem import datafile

    data = copy.deepcopy(datafile.load("pbem.rules.world_in_flames", "world.toml"))
    change(data)
    monkeypatch.setattr(datafile, "load", lambda package, name: data)
    worlds._compiled.cache_clear()
    try:
        with pytest.raises(datafile.DataFileError, match=re.escape(words)):
            worlds.load()
    finally:
        monkeypatch.undo()
        worlds._compiled.cache_clear()


def test_a_shared_hex_is_named_by_both_ids_and_keeps_its_own():
    """AfA option 1: africa:4-1 is asia:0-3; the Asian id stays the hex's id, and the African one
    is no name of it (show hex and supply paths name it asia:0-3)."""
    world = worlds.load(frozenset({"option_1_afa"}))
    here = worlds.hex_named(world, "AFRICA:4-1")
    assert world.ids[here] == "asia:0-3" and here == worlds.hex_named(world, "asia:0-3")
    assert "africa:4-1" not in world.names and world.aliases == {"africa:4-1": here,
                                                                   "africa:4-2": world.position["asia:0-4"]}
