#!/usr/bin/env python
"""Benchmark: what the engine does with the state per entry, on a World in Flames-sized state.

Budget (DESIGN.md): copy and hash per entry under 5 ms on a World in Flames-sized state. A
synthetic ruleset, registered with pbem.ruleset.register, holds a map of 70,000 hexes (ids,
terrain, the scenario's control: built once, immutable, shared by every state) and what play
changes: units with their hex and markers, control where it differs from the start, production
pools, the turn. Each entry does what `Engine.apply_entry` does with the state: the ruleset's
`copy`, a few `apply` calls (moves that take hexes), `dump`, canonical JSON (PROTOCOL §8) and
SHA-256. Then the same entries the old way, in the same run: a dump of every hex's control, and a
copy through a JSON round trip of that dump. Last, whole entries through `Engine.apply_entry`
(signature check off: signatures are verify_log.py's business). Prints figures, asserts nothing.

    python bench/state_scale.py                    # a few seconds
    python bench/state_scale.py --entries 50 --old-entries 5
    python bench/state_scale.py --units 2000 --changed 6000   # a heavier mid-war
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from pbem import chain
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.engine import Engine, canonical_json
from pbem.errors import IllegalOrder
from pbem.keys import FileSigner
from pbem.message import sign
from pbem.ruleset import Decision, Ruleset, Setup

BUDGET_MS = 5.0
COLUMNS, ROWS = 350, 200  # 70,000 hexes
NATIONS = ("ge", "it", "jp", "cw", "fr", "us", "su", "ch", "pl", "nl", "be", "yu", "gr", "ro", "hu", "fi")
MAJORS = ("ge", "it", "jp", "cw", "fr", "us", "su", "ch")
TERRAIN = 8  # clear, forest, hills, mountain, swamp, desert, jungle, sea
POOLS = ("production", "oil", "resources", "build_points")
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


# --------------------------------------------------------------------------- the fixed facts

@dataclass(frozen=True)
class World:
    """The map: built once, shared by every state, never changed."""

    ids: tuple[str, ...]
    index: Mapping[str, int]
    terrain: bytes
    start_control: tuple[str, ...]  # the scenario's owner of each hex

    def neighbours(self, i: int) -> list[int]:
        """The six hexes around i (columns offset by half a hex on odd columns)."""
        col, row = divmod(i, ROWS)
        shift = col % 2
        steps = ((0, -1), (0, 1), (-1, shift - 1), (-1, shift), (1, shift - 1), (1, shift))
        return [(col + dc) * ROWS + row + dr for dc, dr in steps
                if 0 <= col + dc < COLUMNS and 0 <= row + dr < ROWS]


def build_world() -> World:
    ids = tuple(f"{col:03d}{row:03d}" for col in range(COLUMNS) for row in range(ROWS))
    chance = random.Random(70000)
    terrain = bytes(chance.randrange(TERRAIN) for _ in ids)
    # Nations own vertical bands of the map, as a fixed start position does.
    band = COLUMNS // len(NATIONS) + 1
    control = tuple(NATIONS[(i // ROWS) // band] for i in range(len(ids)))
    return World(ids, MappingProxyType({hex_id: i for i, hex_id in enumerate(ids)}), terrain, control)


# --------------------------------------------------------------------------- the changing state

@dataclass(slots=True)
class Unit:
    nation: str
    hex: int
    reduced: bool = False
    disorganised: bool = False
    oos: int = 0


@dataclass
class Position:
    world: World  # shared
    turn: int
    impulse: int
    active: int  # index into the players
    players: tuple[str, ...]  # shared
    units: dict[str, Unit]
    control: dict[int, str]  # only the hexes whose owner is not the start's
    pools: dict[str, dict[str, int]]


def mid_war(world: World, players: tuple[str, ...], units: int, changed: int) -> Position:
    chance = random.Random(1939)
    placed = {}
    for n in range(units):
        nation = MAJORS[n % len(MAJORS)]
        placed[f"{nation}_{n:05d}"] = Unit(nation, chance.randrange(len(world.ids)), reduced=n % 5 == 0)
    control = {}
    for i in chance.sample(range(len(world.ids)), changed):
        control[i] = next(m for m in MAJORS if m != world.start_control[i])
    pools = {m: {p: chance.randrange(1, 200) for p in POOLS} for m in MAJORS}
    return Position(world, 24, 1, 0, players, placed, control, pools)


def copy_position(state: Position) -> Position:
    """Only what play changes is copied: the map and the roster are shared."""
    return Position(state.world, state.turn, state.impulse, state.active, state.players,
                    {u: Unit(s.nation, s.hex, s.reduced, s.disorganised, s.oos) for u, s in state.units.items()},
                    dict(state.control), {m: dict(p) for m, p in state.pools.items()})


def dump_position(state: Position) -> dict:
    """Tables in key order (hex ids sort as their indices do), so the hash need not sort them again."""
    ids, units, control = state.world.ids, state.units, state.control
    return {
        "active": state.active, "control": {ids[i]: control[i] for i in sorted(control)}, "impulse": state.impulse,
        "pools": {m: dict(sorted(state.pools[m].items())) for m in sorted(state.pools)}, "turn": state.turn,
        "units": {u: [s.nation, ids[s.hex], int(s.reduced), int(s.disorganised), s.oos]
                  for u in sorted(units) for s in (units[u],)},
    }


def load_position(data: dict, world: World, players: tuple[str, ...]) -> Position:
    index = world.index
    units = {u: Unit(nation, index[where], bool(reduced), bool(disorganised), oos)
             for u, (nation, where, reduced, disorganised, oos) in data["units"].items()}
    control = {index[hex_id]: owner for hex_id, owner in data["control"].items()}
    return Position(world, data["turn"], data["impulse"], data["active"], players, units, control,
                    {m: dict(p) for m, p in data["pools"].items()})


# --------------------------------------------------------------------------- the old way

def full_dump(state: Position) -> dict:
    """Every hex's owner, as a dump that is not sparse holds it."""
    data = dump_position(state)
    start, changed = state.world.start_control, state.control
    data["control"] = {hex_id: changed.get(i, start[i]) for i, hex_id in enumerate(state.world.ids)}
    return data


def full_load(data: dict, world: World, players: tuple[str, ...]) -> Position:
    start = world.start_control
    data = dict(data, control={hex_id: owner for hex_id, owner in data["control"].items()
                               if owner != start[world.index[hex_id]]})
    return load_position(data, world, players)


# --------------------------------------------------------------------------- the ruleset

class StateScale(Ruleset[Position]):
    """Players take turns; each moves units hex by hex and takes the hexes it enters."""

    id = "state_scale"

    def __init__(self, world: World, units: int, changed: int) -> None:
        super().__init__()
        self.world, self.n_units, self.changed = world, units, changed

    def declaration(self) -> Mapping:
        return {
            "version": "1", "title": "a World in Flames-sized state (benchmark)", "sides": list(MAJORS),
            "scenarios": {"mid_war": {"title": "1942, mid-war"}},
            "orders": {
                "move": {"rule": "bench.1", "help": "move a unit hex by hex", "example": "move unit=ge_00000 path=a,b",
                         "fields": {"unit": {"type": "text"}, "path": {"type": "list"}}},
                "pass": {"rule": "bench.2", "help": "end the impulse"},
            },
        }

    def new_state(self, setup: Setup) -> Position:
        return mid_war(self.world, tuple(setup.players), self.n_units, self.changed)

    def pending(self, state: Position):
        return Decision((state.players[state.active],))

    def apply(self, state: Position, player: str, order: Mapping) -> Position:
        if self.check_order(order).kind == "pass":
            state.active = (state.active + 1) % len(state.players)
            state.impulse += 1
            return state
        unit = state.units[order["unit"]]
        start = state.world.start_control
        for hex_id in order["path"]:
            step = state.world.index[hex_id]
            if step not in state.world.neighbours(unit.hex):
                raise IllegalOrder(f"{hex_id} is not next to the unit", rule="bench.1", field="path")
            unit.hex = step
            if unit.nation == start[step]:
                state.control.pop(step, None)
            else:
                state.control[step] = unit.nation
        return state

    def resolve(self, state, dice, private):
        return state

    def resign(self, state, player):
        return state

    def dump(self, state: Position) -> dict:
        return dump_position(state)

    def load(self, data: dict, setup: Setup) -> Position:
        return load_position(data, self.world, tuple(setup.players))

    def copy(self, state: Position, setup: Setup) -> Position:
        return copy_position(state)


def orders_for(state: Position, n: int) -> list[dict]:
    """The orders of entry n: three units each step three hexes (taking them), then a pass."""
    ids, world = state.world.ids, state.world
    names = sorted(state.units)
    orders = []
    for k in range(3):
        name = names[(n * 3 + k) % len(names)]
        at, path = state.units[name].hex, []
        for step in range(3):
            around = world.neighbours(at)
            at = around[(n + step) % len(around)]
            path.append(ids[at])
        orders.append({"kind": "move", "unit": name, "path": path})
    return [*orders, {"kind": "pass"}]


# --------------------------------------------------------------------------- timing

@dataclass
class Timing:
    copy: list[float]
    orders: list[float]
    hash: list[float]
    cpu: list[float]  # the whole entry in CPU time: steadier when other processes share the machine

    def per_entry(self) -> list[float]:
        return [a + b + c for a, b, c in zip(self.copy, self.orders, self.hash, strict=True)]


def run_entries(ruleset: StateScale, state: Position, setup: Setup, entries: int, copier, dumper) -> Timing:
    """Each entry as apply_entry handles the state: copy, the orders, one dump and its hash."""
    timing = Timing([], [], [], [])
    player = state.players[state.active]
    for n in range(entries):
        orders = orders_for(state, n)
        cpu = time.process_time()
        t0 = time.perf_counter()
        trial = copier(state, setup)
        t1 = time.perf_counter()
        for order in orders:
            trial = ruleset.apply(trial, player, order)
        t2 = time.perf_counter()
        chain.sha256(canonical_json(dumper(trial)))
        t3 = time.perf_counter()
        timing.cpu.append(time.process_time() - cpu)
        timing.copy.append(t1 - t0)
        timing.orders.append(t2 - t1)
        timing.hash.append(t3 - t2)
        state, player = trial, trial.players[trial.active]
    return timing


def engine_entries(ruleset: StateScale, entries: int) -> tuple[list[float], list[float], int]:
    """Whole entries through Engine.apply_entry, signature check off: wall and CPU seconds of each,
    and the size of the last state dump."""
    signers = {name: FileSigner.from_seed(bytes([i]) * 32, name) for i, name in enumerate(("alice", "bob"), 1)}
    charter = Charter.create(game="bench-scale", ruleset=ruleset.id, version=ruleset.version, scenario="mid_war",
                             dice="open", reveal_hours=24, move_hours=48, options={}, tables={},
                             players=[Member(n, (side,), s.public, "player")
                                      for (n, s), side in zip(signers.items(), ("ge", "cw"), strict=True)])
    engine = Engine(charter, ruleset)
    for name, signer in signers.items():
        engine.accept_join(sign({"pbem": 1, "type": "join", "game": charter.game, "player": name,
                                 "charter": charter.digest, "anchor": "ab" * 32, "hcommit": "cd" * 32,
                                 "chain_length": chain.CHAIN_LENGTH}, signer))
    times, cpu = [], []
    for seq in range(1, entries + 1):
        player = engine.pending().players[0]
        message = sign({"pbem": 1, "type": "move", "game": charter.game, "player": player, "seq": seq,
                        "prev": engine.head_id, "time": START + dt.timedelta(minutes=seq), "salt": "00" * 32,
                        "state": "0" * 64, "orders": orders_for(state_of(engine), seq)}, signers[player])
        started, cpu_started = time.perf_counter(), time.process_time()
        engine.apply_entry(message, {}.get, check_state=False, check_signature=False)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return times, cpu, len(engine.head_state)


def state_of(engine: Engine) -> Position:
    if engine.state is None:
        raise RuntimeError("the game has not started")
    return engine.state


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.2f}"


def verdict(wall_ms: float, cpu_ms: float) -> str:
    over = (wall_ms >= BUDGET_MS) + (cpu_ms >= BUDGET_MS)
    return ("within", "borderline", "OVER")[over]


def report(label: str, timing: Timing) -> float:
    total, cpu = statistics.median(timing.per_entry()) * 1000, statistics.median(timing.cpu) * 1000
    print(f"{label:<34}{ms(timing.copy)}{ms(timing.orders)}{ms(timing.hash)}{total:9.2f}{cpu:8.2f}   "
          f"{verdict(total, cpu)}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=200, help="entries the new way and through the engine")
    parser.add_argument("--old-entries", type=int, default=20, help="entries the old way (slow)")
    parser.add_argument("--units", type=int, default=1500, help="units on the map")
    parser.add_argument("--changed", type=int, default=3000, help="hexes whose owner differs from the start")
    args = parser.parse_args()

    started = time.perf_counter()
    world = build_world()
    ruleset = StateScale(world, args.units, args.changed)
    rulesets.register(ruleset)
    setup = Setup("mid_war", ())
    state = mid_war(world, ("alice", "bob"), args.units, args.changed)
    print(f"map: {len(world.ids):,} hexes (built in {time.perf_counter() - started:.2f} s); "
          f"{args.units:,} units, {args.changed:,} hexes held by another nation than at the start")
    sparse, full = len(canonical_json(dump_position(state))), len(canonical_json(full_dump(state)))
    print(f"dump (canonical JSON): sparse {sparse:,} bytes, every hex {full:,} bytes\n")

    def old_copy(position: Position, _setup: Setup) -> Position:
        return full_load(json.loads(canonical_json(full_dump(position))), world, position.players)

    print(f"{'ms per entry (median)':<34}{'copy':>8}{'orders':>8}{'hash':>8}{'total':>9}{'cpu':>8}   "
          f"budget {BUDGET_MS} ms")
    new = report("new: copy hook, sparse dump", run_entries(ruleset, state, setup, args.entries,
                                                           ruleset.copy, dump_position))
    old = report("old: JSON round trip, full dump", run_entries(ruleset, state, setup, args.old_entries,
                                                               old_copy, full_dump))
    times, cpu, size = engine_entries(ruleset, args.entries)
    wall_ms, cpu_ms = statistics.median(times) * 1000, statistics.median(cpu) * 1000
    print(f"{'Engine.apply_entry (whole entry)':<34}{'':24}{wall_ms:9.2f}{cpu_ms:8.2f}   {verdict(wall_ms, cpu_ms)}"
          f"   (state dump {size:,} bytes)")
    print(f"\nnew vs old: {old / new:.0f}x faster per entry")
    rulesets.unregister(ruleset.id)


if __name__ == "__main__":
    main()
