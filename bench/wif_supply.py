#!/usr/bin/env python
"""Benchmark: World in Flames supply (rules/world_in_flames/supply.py) on generated worlds.

Worlds of a quarter, half and full size of the real one (about 70,000 hexes at 359 x 194) come
from tools/generate.py, with a front line of a few hundred units and dozens of HQs. For each size
it times compiling the world (once per game) and a both-sides supply status of every unit (each
side one search for all its classes of unit), best of N runs; and, as the baseline measured in
the same run, a plain breadth-first search from every city over the same hexes
(graphs.reach_sources), the least any supply search must do. Budget (the issue's): both sides
under 1 s at full size, growing about linearly. Prints figures, asserts nothing.

    python bench/wif_supply.py              # N = 5
    python bench/wif_supply.py --runs 1     # a smoke run
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

from pbem.rules.common import graphs
from pbem.rules.world_in_flames import supply
from pbem.rules.world_in_flames.situation import Situation, Unit
from pbem.rules.world_in_flames.world import compile_world

FULL = (359, 194)
SIZES = {"quarter": (180, 97), "half": (254, 137), "full": FULL}


def generator():
    path = Path(__file__).resolve().parents[1] / "tools" / "generate.py"
    spec = importlib.util.spec_from_file_location("generate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def situation(world, placed: list[dict]) -> Situation:
    units = tuple(Unit(u["id"], u["kind"], u["country"], hex=world.position[u["hex"]]) for u in placed)
    return Situation(world, sides={"alpha": "axis", "beta": "allies"},
                     controllers={"gamma": "alpha", "delta": "beta"},
                     at_war=frozenset({frozenset({"alpha", "beta"})}), units=units)


def best(runs: int, action) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    make = generator()
    print(f"{'size':8} {'hexes':>7} {'units':>6} {'HQs':>4} {'compile':>9} {'supply':>9} {'baseline':>9} "
          f"{'ratio':>6} {'in supply':>10}")
    for name, (width, height) in SIZES.items():
        data = make.world_data(width, height)
        start = time.perf_counter()
        world = compile_world(data)
        compile_s = time.perf_counter() - start
        placed = make.units(width, height)
        position = situation(world, placed)
        found = supply.status(position)
        seconds = best(args.runs, lambda p=position: supply.status(p))
        land = [world.land(i) for i in range(len(world.ids))]
        cities = sorted(world.cities)[:60]
        baseline = best(args.runs, lambda n=world.neighbours, c=cities, e=land: graphs.reach_sources(n, c, e))
        supplied = sum(s.supplied for s in found.values())
        print(f"{name:8} {len(world.ids):7,} {len(placed):6} {sum(u['kind'] == 'hq' for u in placed):4} "
              f"{compile_s:8.2f}s {seconds:8.3f}s {baseline:8.3f}s {seconds / baseline:6.1f} "
              f"{supplied:5}/{len(found)}")
    print("budget: both sides under 1 s at full size, about linear in the size")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
