#!/usr/bin/env python
"""Benchmark: Paths of Glory supply (rules/paths_of_glory/supply.py) on the full map.

Times a full both-sides update, the supply of every unit on the map traced afresh (one
multi-source search per class of tracing unit; `compute` itself would answer from its memory of
the unchanged position), on the 1914 set-up and on a crowded mid-war position: Italy, Turkey,
Bulgaria, Romania and Greece at war, every unit of the counter mix on the map, several forts
besieged, a few pockets. Each is compared with NODE_MS, an efficient JavaScript implementation of
the same rule on the same positions in node; the budget is 3x. Also times the parts of an update,
the two attrition searches (spaces of both sides), a whole supply step and a whole attrition
segment (on copies). Best of N runs; prints figures and asserts nothing.

    python bench/pog_supply.py            # N = 200
    python bench/pog_supply.py --runs 50
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time

from pbem.rules.common import graphs
from pbem.rules.paths_of_glory import supply
from pbem.rules.paths_of_glory.data import load_setup
from pbem.rules.paths_of_glory.state import PogState, UnitState, initial_position

VARIANTS = frozenset({"vesting_holland", "italy_19_1"})
# ms per full both-sides update in node, measured once on this machine (0.3-0.4 ms on both
#   positions); node is not installed for the benchmark, so the figure is a constant
NODE_MS = 0.35
BUDGET = 3.0  # DESIGN.md: within 3x of node
SIEGES = {  # fort space: the besieging units moved in (their own side is the enemy of the owner)
    "verdun": ["ge_5_army"],
    "przemysl": ["ru_3_army"],
    "riga": ["ge_8_army"],
    "belgrade": ["ah_5_army"],
    "erzerum": ["ru_cau_army"],
    "basra": ["tu_corps_13"],
}
CUT = {"dijon": "cp", "avignon": "cp", "tirana": "cp", "aqaba": "ap"}  # pockets


def mid_war() -> PogState:
    state = initial_position(VARIANTS)
    pog = state.map
    state.turn = 12
    state.at_war |= {"it", "tu", "bu", "ro", "gr", "ho", "us"}
    setup = load_setup(VARIANTS)
    for placement in setup.on_entry:
        if placement.space in pog.index:
            state.units[placement.unit] = UnitState(placement.space, placement.reduced)
    for space, side in CUT.items():
        state.control[space] = side
    state.forts["aqaba"] = "destroyed"
    for space, units in SIEGES.items():
        for unit in units:
            state.units[unit] = UnitState(space)
        state.forts[space] = "besieged"
    # everything else (reserve boxes and units never placed) onto spaces of its own nation held by
    #   its side, else any space of its side, at random; nobody stays inside a besieged fort
    rng = random.Random(1914)
    besieged = set(SIEGES)
    usable = [s for i, s in enumerate(pog.ids)
              if s not in besieged and pog.nation[i] != "none" and not state.neutral(s)]
    by_side = {side: [s for s in usable if state.control[s] == side] for side in ("ap", "cp")}
    for unit, fact in state.unit_facts.items():
        where = state.units.get(unit)
        sieging = unit in {u for units in SIEGES.values() for u in units}
        if where is not None and where.space in pog.index and (where.space not in besieged or sieging):
            continue
        home = [s for s in by_side[fact.faction] if pog.nation[pog.index[s]] == fact.nation]
        space = rng.choice(home or by_side[fact.faction])
        state.units[unit] = UnitState(space, rng.random() < 0.3, rng.randrange(3))
    return state


def copy_position(state: PogState) -> PogState:
    """A copy to change: new containers for what the supply step and attrition change."""
    return dataclasses.replace(
        state, at_war=set(state.at_war), control=dict(state.control), forts=dict(state.forts),
        units={u: UnitState(s.space, s.reduced, s.oos) for u, s in state.units.items()},
        trenches=dict(state.trenches), events=set(state.events), removed=set(state.removed))


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def count_searches(state: PogState) -> tuple[supply.Supply, int]:
    calls = []
    real = graphs.reach_sources

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    supply.graphs.reach_sources = counting
    try:
        result = supply._fresh(state)
    finally:
        supply.graphs.reach_sources = real
    return result, len(calls)


def report(name: str, state: PogState, runs: int) -> None:
    result, searches = count_searches(state)
    statuses = result.units()
    counts = {k: sum(1 for v in statuses.values() if v == k) for k in ("supplied", "special", "out")}
    print(f"\n{name}: {len(statuses)} units on the map ({counts}), {len(result.by_class)} classes, "
          f"{searches} searches, {len(state.map)} spaces")

    t_update = best(lambda: supply._fresh(state), runs)
    ms = 1000
    ratio = t_update * ms / NODE_MS
    print(f"  full both-sides update      {t_update * ms:8.3f} ms   best of {runs}; "
          f"{ratio:.2f}x node's {NODE_MS} ms (budget {BUDGET:g}x: {'within' if ratio <= BUDGET else 'OVER'})")
    report_parts(state, result, runs)
    for cls, units in sorted(result.by_class.items(), key=lambda kv: -len(kv[1])):
        print(f"    {len(units):4d} units  {cls.label()}")


def report_parts(state: PogState, result: supply.Supply, runs: int) -> None:
    """What an update is made of, and the other whole operations of the supply rules."""
    c = supply._compile(state.map)
    pos = supply._position(state, c)
    classes = list(result.by_class)
    supply.compute(state)
    t_again = best(lambda: supply.compute(state), runs)
    t_position = best(lambda: supply._position(state, c), runs)
    t_searches = best(lambda: [supply._search(cls, c, pos) for cls in classes], runs)

    def spaces():
        s = supply._fresh(state, units=False)
        s.space_supplied("ap", "london")
        s.space_supplied("cp", "essen")

    t_spaces = best(spaces, runs)
    t_step = best(lambda: supply.oos_step(copy_position(state)), max(1, runs // 4))
    t_copy = best(lambda: copy_position(state), max(1, runs // 4))
    t_attr = best(lambda: supply.attrition(copy_position(state)), max(1, runs // 4))
    ms = 1000
    print(f"    the position and its parts {t_position * ms:7.3f} ms")
    print(f"    the {len(classes):2d} searches alone     {t_searches * ms:8.3f} ms   "
          f"({t_searches / max(1, len(classes)) * ms:.3f} ms per class)")
    print(f"  compute, position unchanged {t_again * ms:8.3f} ms   (the remembered answer)")
    print(f"  spaces of both sides        {t_spaces * ms:8.3f} ms   (position + 2 searches)")
    print(f"  supply step (oos_step)      {(t_step - t_copy) * ms:8.3f} ms   (state copy excluded)")
    print(f"  attrition segment           {(t_attr - t_copy) * ms:8.3f} ms   (state copy excluded)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    supply._fresh(initial_position(VARIANTS))  # warm the map caches (compiled once per variant set)
    report("1914 set-up", initial_position(VARIANTS), args.runs)
    report("mid-war, crowded", mid_war(), args.runs)


if __name__ == "__main__":
    main()
