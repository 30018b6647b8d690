#!/usr/bin/env python
"""Benchmark: verify a long freeform log, cold-start the CLI, apply a move to a long game.

Budgets from the design:

* the replay on one core within 2x of the bare cost of its messages (read + parse + sha256 id +
  Ed25519 check of every entry, reveal and join, in one process), and `pbem verify`, whose workers
  do that part on the other cores, within 1.0x of it in wall time; the log length from which the
  workers pay, and `pbem log`'s time and peak memory on the whole log;
* `pbem status` cold start close to `python -c "import typer, rich"`;
* `pbem apply` of one move independent of the log's length (state.toml caches the head);
* with --sealed, on a log of seven players with a sealed round every 10 entries (seals and unseals
  in side/, collected by the first player), `pbem verify` within 2x of the bare cost of its messages.

The log is built fast by driving one pbem.engine.Engine directly and writing the files with the
layout of pbem/log.py; only the verifying player's join goes through pbem.game.join. The script
reports and never asserts: it always exits 0.

    python bench/verify_log.py                  # 10,000 entries
    python bench/verify_log.py --entries 300    # a few seconds
    python bench/verify_log.py --profile        # also cProfile one replay on one core
    python bench/verify_log.py --dice open --entries 2000   # a head whose roll resolved at once
    python bench/verify_log.py --sealed         # verify with sealed rounds, seven players
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import hashlib
import io
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pbem import chain, parallel
from pbem import message as messages
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.engine import Engine
from pbem.game import Game, join
from pbem.keys import FileSigner
from pbem.log import GameDir
from pbem.message import Message, emit_body, parse_fields, sign
from pbem.orders import sealed_text

PLAYERS = (("alice", ("allies",)), ("bob", ("central",)), ("carol", ("neutrals",)))
SEALED_PLAYERS = tuple((name, (f"power_{i}",)) for i, name in
                       enumerate(("alice", "bob", "carol", "dave", "erin", "frank", "grace"), 1))
VERIFIER = "alice"  # the player whose directory holds the log
ROLL_EVERY = 10
SEALED_EVERY, SEALED_AT = 10, 5  # with --sealed a round opens at seq 5, 15, 25, …, collected in the next
BUDGET_VERIFY = 2.0
BUDGET_WORKERS = 1.0  # verify with workers, wall time, against the bare cost on one core
BUDGET_SEALED = 2.0  # pbem verify of a log with sealed rounds, wall time, against the bare cost
BREAK_EVEN_LENGTHS = [50, 100, 200, 300, 500, 1000, 2000]
L = chain.CHAIN_LENGTH
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


# --------------------------------------------------------------------------- building the log

def _seed(signer: FileSigner, kind: str, digest: str) -> bytes:
    """What SeedStore.derive computes for one kind (without the twice-and-compare and the file)."""
    return chain.sha256(signer.sign(chain.seed_text(kind, digest), chain.SEED_NAMESPACES[kind]))


def _chain_list(c0: bytes) -> list[bytes]:
    """values[k] = c_k = SHA256^k(c0), k = 0..L; the reveal for seq s is values[L - s]."""
    values = [c0]
    sha = hashlib.sha256
    value = c0
    for _ in range(L):
        value = sha(value).digest()
        values.append(value)
    return values


def _orders(seq: int) -> list[dict]:
    counter = f"vp_{'abc'[seq % 3]}"
    if seq % ROLL_EVERY == 0:
        return [{"kind": "set", "counter": counter, "add": 1},
                {"kind": "roll", "dice": "2d6", "purpose": f"bench roll at seq {seq}"}]
    if seq % 2:
        return [{"kind": "note", "text": f"entry {seq}: the guns open up along the ridge."}, {"kind": "pass"}]
    return [{"kind": "set", "counter": counter, "value": seq % 97}, {"kind": "pass"}]


def _next_move(engine: Engine, seq: int, sealed: bool) -> tuple[str, list[dict]]:
    """Who signs entry `seq` and with what orders, read off freeform's state as the engine left it."""
    state = engine.state
    if state.sealed is not None:  # the collector's entry; his own orders too if the step is his
        collector = engine.collector()
        return collector, _orders(seq) if state.sealed["by"] == collector else []
    roster = state.setup.players
    author = state.next
    if state.pending_roll is not None:  # the roll resolves in this entry and passes the step on
        author = roster[(roster.index(author) + 1) % len(roster)]
    if sealed and seq % SEALED_EVERY == SEALED_AT:
        return author, [{"kind": "sealed", "players": list(roster), "purpose": f"bench bids at seq {seq}"}]
    return author, _orders(seq)


def _draft(engine: Engine, fields: dict, uses: list[Message], signer: FileSigner) -> Message:
    """As Game.draft: apply an unsigned trial on a clone to learn the state hash, then sign."""
    by_id = {m.id: m for m in uses}
    body = emit_body(fields)
    trial = Message(body, b"", parse_fields(body, {"player": fields["player"]}))
    computed, _ = engine.clone().apply_entry(trial, by_id.get, check_state=False, check_signature=False)
    return sign({**fields, "state": computed}, signer)


def _reveals(engine: Engine, seq: int, chains: dict, signers: dict, game_dir: GameDir) -> list[Message]:
    """The witnesses' reveals for the roll point entry `seq` opened, if it opened one."""
    roll = engine.roll
    if roll is None or roll.seq != seq:
        return []
    reveals = []
    for witness in roll.witnesses:
        reveal = sign({"pbem": 1, "type": "reveal", "game": engine.charter.game, "player": witness,
                       "for": roll.entry, "seq": seq, "value": chains[witness][L - seq].hex()}, signers[witness])
        game_dir.reveal_path(witness, seq).write_bytes(reveal.stored())
        reveals.append(reveal)
    return reveals


def _sealed_sides(engine: Engine, signers: dict, game_dir: GameDir) -> list[Message]:
    """Every member's seal and unseal for the round open at the head, as pbem seal and unseal sign
    them (a choose each, some abstaining), written to their slots in side/."""
    game, seq, entry = engine.charter.game, engine.head_seq, engine.head_id or ""
    sides = []
    for index, player in enumerate(engine.sealed_members()):
        orders = [] if (index + seq) % 4 == 0 else [{"kind": "choose", "text": f"{player} bids {seq % 13 + index}"}]
        key, text = hashlib.sha256(b"bench key %d %s" % (seq, player.encode())).digest(), sealed_text(orders)
        digest = chain.sealed_digest(game, player, bytes.fromhex(entry), key, text)
        bound = {"pbem": 1, "game": game, "player": player, "for": entry, "seq": seq}
        for kind, extra in (("seal", {"sealed": digest.hex()}), ("unseal", {"key": key.hex(), "orders": text})):
            side = sign({**bound, "type": kind, **extra}, signers[player])
            game_dir.sealed_path(kind, player, seq).write_bytes(side.stored())
            sides.append(_signed_by(side, signers[player]))
    return sides


def _signed_by(message: Message, signer: FileSigner) -> Message:
    """The message as one whose signature was checked: the build signed it a moment ago, so the
    engine's checks of it (in the trial, then again in the apply) would only repeat that work."""
    checked = parallel.Checked(message.body, message.signature, message.fields)
    checked.key = signer.public.raw
    return checked


def _set_up(root: Path, players: tuple, dice: str) -> dict:
    """The charter, keys, reveal chains and joins; the verifier joins through pbem.game.join."""
    ruleset = rulesets.load("freeform")
    signers = {name: FileSigner.from_seed(bytes([i]) * 32, name) for i, (name, _) in enumerate(players, 1)}
    charter = Charter.create(
        game="bench-log", ruleset="freeform", version=ruleset.version, scenario="default", dice=dice,
        reveal_hours=24, move_hours=48, options={}, tables={},
        players=[Member(name, sides, signers[name].public, "player") for name, sides in players],
    )
    root.mkdir(parents=True, exist_ok=True)
    charter_path = root / "game.toml"
    charter_path.write_text(charter.text)
    game_root = root / "game"

    # Chain seeds (SeedStore.derive semantics) and each chain computed once.
    chains = {name: _chain_list(_seed(signers[name], "chain", charter.digest)) for name, _ in players}

    # The verifier joins through the library; the others' joins are signed exactly as game.join does.
    game, own_join = join(charter_path, game_root, signers[VERIFIER], home=root / "home" / VERIFIER)
    if own_join.fields["anchor"] != chains[VERIFIER][L].hex():
        raise RuntimeError("bench bug: the chain seed derived here does not match the join's anchor")
    others = []
    for name, _ in players:
        if name == VERIFIER:
            continue
        hidden = _seed(signers[name], "hidden", charter.digest)
        others.append(sign({
            "pbem": 1, "type": "join", "game": charter.game, "player": name, "charter": charter.digest,
            "anchor": chains[name][L].hex(), "hcommit": chain.anchor(hidden).hex(),
            "chain_length": chain.CHAIN_LENGTH,
        }, signers[name]))
    game.accept(others)  # writes side/join-P.toml after checking them
    joins = sorted([own_join, *others], key=lambda m: charter.position(m.player))
    return {"ruleset": ruleset, "signers": signers, "charter": charter, "chains": chains, "root": game_root,
            "joins": joins}


def build(root: Path, entries: int, dice: str = "all", sealed: bool = False) -> dict:
    """A game directory at root/game holding `entries` chain entries; returns what the bench needs.
    With `sealed`, seven players and a sealed round among them opened every SEALED_EVERY entries."""
    started = time.perf_counter()
    made = _set_up(root, SEALED_PLAYERS if sealed else PLAYERS, dice)
    charter, signers, game_dir = made["charter"], made["signers"], GameDir(made["root"])
    setup_time = time.perf_counter() - started

    engine = Engine(charter, made["ruleset"])
    for message in made["joins"]:
        engine.accept_join(message)
    (game_dir.root / "entries").mkdir(exist_ok=True)
    uses: list[Message] = []  # what the next entry uses: reveals, or a round's seals and unseals
    counts = {"reveal": 0, "seal": 0, "unseal": 0}
    for seq in range(1, entries + 1):
        author, orders = _next_move(engine, seq, sealed)
        fields = {
            "pbem": 1, "type": "move", "game": charter.game, "player": author, "seq": seq,
            "prev": engine.head_id, "time": START + dt.timedelta(minutes=seq),
            "salt": hashlib.sha256(b"bench salt %d" % seq).hexdigest(), "state": "0" * 64,
        }
        if uses:
            fields["uses"] = [m.id for m in uses]
        if orders:
            fields["orders"] = orders
        entry = _draft(engine, fields, uses, signers[author])
        engine.apply_entry(entry, {m.id: m for m in uses}.get, check_signature=False)  # checks the state hash
        game_dir.entry_path(seq).write_bytes(entry.stored())
        uses = _reveals(engine, seq, made["chains"], signers, game_dir)
        if seq < entries and engine.sealed_members():  # sides only for a round the log collects
            uses += _sealed_sides(engine, signers, game_dir)
        uses.sort(key=engine._use_order)
        for side in uses:
            counts[side.type] += 1
    return {
        "root": game_dir.root, "signers": signers, "charter": charter, "head": engine.head_id,
        "entries": entries, "reveals": counts["reveal"], "seals": counts["seal"], "unseals": counts["unseal"],
        "joins": len(made["joins"]), "setup_time": setup_time, "time": time.perf_counter() - started,
    }


# --------------------------------------------------------------------------- measuring
#
# Other processes may share the CPUs, so every timing is taken as wall time and as CPU time
# (process_time in process, getrusage(RUSAGE_CHILDREN) for subprocesses), and the runs whose ratio
# matters are interleaved so both sides see the same load.

class Series:
    """Repeated timings of one thing: wall and CPU seconds."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def add(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)

    def best(self) -> tuple[float, float]:
        return min(self.wall), min(self.cpu)

    def median(self) -> tuple[float, float]:
        return statistics.median(self.wall), statistics.median(self.cpu)


def timed(series: Series, fn):
    """In process; the CPU time includes any worker processes it started and waited for."""
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    result = fn()
    series.add(time.perf_counter() - wall, time.process_time() - cpu + _children_cpu() - children)
    return result


def best_of(repeat: int, fn) -> tuple[tuple[float, float], object]:
    series, result = Series(), None
    for _ in range(repeat):
        result = timed(series, fn)
    return series.best(), result


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(series: Series, cmd: list[str], env: dict, failures: list[str], expect: str = "") -> str:
    """Run a subprocess, adding its wall and CPU time to `series`; failures are noted, not raised."""
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    series.add(time.perf_counter() - wall, _children_cpu() - cpu)
    if done.returncode != 0 or expect not in done.stdout:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        failures.append(f"{' '.join(Path(c).name for c in cmd[1:3])} {' '.join(cmd[3:])}: "
                        f"exit {done.returncode}: {tail}")
    return done.stdout


def message_files(root: Path) -> list[Path]:
    return sorted((root / "entries").glob("*.toml")) + sorted((root / "side").glob("*.toml"))


def bare_components(files: list[Path], public: dict[str, bytes], repeat: int) -> dict:
    """The bare cost split up: reading, parsing (TOML + normalise + dearmor + id), Ed25519 checks."""
    def read_all():
        return [p.read_bytes() for p in files]

    raw = read_all()
    parsed = [messages.parse(data) for data in raw]
    return {
        "read": best_of(repeat, read_all)[0],
        "parse": best_of(repeat, lambda: [messages.parse(data) for data in raw])[0],
        "sigcheck": best_of(repeat, lambda: [m.verify(public[m.player]) for m in parsed])[0],
    }


def bare_all(files: list[Path], public: dict[str, bytes]) -> int:
    """The bare cost of a log: read, parse, sha256 id and signature check of every message."""
    for path in files:
        message = messages.parse(path.read_bytes())  # its sha256 id is computed here (Message.id)
        message.verify(public[message.player])
    return len(files)


REPLAY_CODE = """
import sys, time
from pbem.game import Game
game = Game(sys.argv[1])
started = time.perf_counter()
game.replay(keep_rolls=True, workers=int(sys.argv[2]))
print(time.perf_counter() - started)
"""

# Runs a command and prints the peak resident memory of the largest process it waited for (in KiB).
PEAK_CODE = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
             "stderr=subprocess.PIPE); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
             "done.returncode, done.stderr.decode()[-200:].replace(chr(10), ' '))")


def prefix(root: Path, entries: int, dest: Path) -> Path:
    """The log's first `entries` entries with their reveals, in a new directory: a valid log too."""
    for folder in ("entries", "side"):
        (dest / folder).mkdir(parents=True)
    for name in ("game.toml", "me.toml"):
        shutil.copy2(root / name, dest / name)
    for seq in range(1, entries + 1):
        os.link(root / "entries" / f"{seq:06d}.toml", dest / "entries" / f"{seq:06d}.toml")
    for path in (root / "side").glob("*.toml"):
        number = path.stem.rpartition("-")[2]
        if not number.isdigit() or int(number) <= entries:
            os.link(path, dest / "side" / path.name)
    return dest


def break_even(root: Path, work: Path, lengths: list[int], runs: int, cores: int, env: dict) -> list[tuple]:
    """Replay in a new interpreter, as a command does (loading multiprocessing and forking
    included), on one core and with workers: (length, one core, workers) median wall seconds."""
    found = []
    for length in lengths:
        game = prefix(root, length, work / f"prefix-{length}")
        times: dict[int, list[float]] = {0: [], cores: []}
        for _ in range(runs):
            for workers in times:
                done = subprocess.run([sys.executable, "-c", REPLAY_CODE, str(game), str(workers)], env=env,
                                      capture_output=True, text=True)
                times[workers].append(float(done.stdout) if done.returncode == 0 else float("nan"))
        found.append((length, statistics.median(times[0]), statistics.median(times[cores])))
    return found


def peak_run(series: Series, cmd: list[str], env: dict, failures: list[str]) -> int:
    """Run a command with its output thrown away; its wall and CPU time go to `series`, and its peak
    resident memory in KiB is returned."""
    out = run(series, [sys.executable, "-c", PEAK_CODE, *cmd], env, failures)
    peak, code, tail = [*out.strip().split(" ", 2), "", "", ""][:3]
    if code != "0":
        failures.append(f"{' '.join(Path(c).name for c in cmd[1:3])}: exit {code}: {tail.strip()}")
    return int(peak or 0)


def replayed(engine) -> tuple:
    """What two replays of one log must agree on: head, state and every roll."""
    rolls = tuple((r.seq, r.entry, r.seed, tuple(str(d.to_dict()) for d in r.draws)) for r in engine.rolls)
    return engine.head_seq, engine.head_id, engine.state_hash(), rolls


def pbem_command() -> list[str]:
    """The installed console script run by this interpreter (not a pyenv shim in front of it)."""
    script = Path(sys.executable).parent / "pbem"
    if not script.exists():
        found = shutil.which("pbem")
        script = Path(found) if found else None
    if script is not None and b"python" in script.read_bytes()[:200].split(b"\n")[0]:
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "import sys; from pbem.cli import main; sys.argv[0] = 'pbem'; main()"]


class ApplyCase:
    """One game ready for `pbem apply` of the next move: drafted after warming state.toml, undoable."""

    def __init__(self, info: dict) -> None:
        self.info = info
        self.root = info["root"]
        Game(self.root).engine()  # replays and writes state.toml if it is not there yet
        game = Game(self.root)
        current, _ = game.current()
        self.player = current.pending().players[0]
        self.move = game.draft(self.player, [{"kind": "note", "text": "bench: one more move"}, {"kind": "pass"}],
                               info["signers"][self.player])
        self.path = self.root.parent / f"move-{self.move.seq:06d}.toml"
        self.path.write_bytes(self.move.stored())
        self.cache = self.root / "state.toml"
        self.cached = self.cache.read_bytes()
        self.entry = GameDir(self.root).entry_path(self.move.seq)
        self.cli, self.library = Series(), Series()

    def undo(self) -> None:
        self.entry.unlink(missing_ok=True)
        self.cache.write_bytes(self.cached)

    def run_cli(self, pbem: list[str], env: dict, failures: list[str]) -> None:
        run(self.cli, [*pbem, "apply", str(self.path), "--game", str(self.root)], env, failures)
        if not self.entry.exists():
            failures.append(f"pbem apply on {self.info['entries']} entries stored no entry {self.move.seq}")
        self.undo()

    def run_library(self, failures: list[str]) -> None:
        report = timed(self.library, lambda: Game(self.root).accept([self.move]))
        if [o.status for o in report.outcomes] != ["applied"]:
            failures.append(f"Game.accept on {self.info['entries']} entries: {report.outcomes}")
        self.undo()


def profile_replay(root: Path, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    Game(root).replay(keep_rolls=True, workers=0)  # on one core, so that every cost shows
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


# --------------------------------------------------------------------------- main

def fmt(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms" if seconds < 10 else f"{seconds:8.2f} s "


def ratio(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return a[0] / b[0], a[1] / b[1]


def verdict(value: tuple[float, ...], budget: float) -> str:
    return "within" if max(value) <= budget else "OVER" if min(value) > budget else "borderline"


class Rows:
    """The table printed at the end: a name, wall and CPU columns, a note."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str]] = []

    def time(self, name: str, times: tuple[float, float] | None, note: str = "") -> None:
        self.rows.append((name, fmt(times[0]) if times else "", fmt(times[1]) if times else "", note))

    def ratio(self, name: str, value: tuple[float, float], note: str = "") -> None:
        self.rows.append((name, f"{value[0]:8.2f} x ", f"{value[1]:8.2f} x ", note))

    def add(self, name: str, wall: str, cpu: str, note: str) -> None:
        self.rows.append((name, wall, cpu, note))

    def print(self) -> None:
        width = max(len(r[0]) for r in self.rows)
        print(f"{'measurement':{width}}  {'wall':>11}  {'cpu':>11}  note")
        print(f"{'-' * width}  {'-' * 11}  {'-' * 11}  {'-' * 36}")
        for name, wall, cpu, note in self.rows:
            print(f"{name:{width}}  {wall:>11}  {cpu:>11}  {note}".rstrip())
        print()


def build_step(args, tmp: Path, rows: Rows) -> tuple[dict, list[Path]]:
    """1. The log, built and timed."""
    what = "with seven players and a sealed round every 10 entries " if args.sealed else ""
    print(f"building a {args.entries}-entry freeform log {what}in {tmp / 'big'} …", flush=True)
    big = build(tmp / "big", args.entries, args.dice, args.sealed)
    files = message_files(big["root"])
    sealed = f"{big['seals']} seals, {big['unseals']} unseals, " if args.sealed else ""
    print(f"  built {big['entries']} entries, {big['reveals']} reveals, {sealed}{big['joins']} joins "
          f"in {big['time']:.2f} s (of which keys, chains and joins {big['setup_time']:.2f} s)", flush=True)
    rows.add("build the log", fmt(big["time"]), "", f"{len(files)} message files")
    return big, files


def measure_verify(big: dict, files: list[Path], repeat: int, env: dict, failures: list[str]) -> dict:
    """Bare cost, the replay on one core and with workers, and pbem verify: interleaved, best of `repeat`;
    the replays must agree with each other and end at the head the build signed."""
    root = big["root"]
    public = {m.id: m.pubkey.raw for m in big["charter"].players}
    pbem = pbem_command()
    parts = bare_components(files, public, repeat)
    bare, alone, shared, cli_verify = Series(), Series(), Series(), Series()
    engines = []
    for _ in range(repeat):
        timed(bare, lambda: bare_all(files, public))
        engines.append(timed(alone, lambda: Game(root).replay(keep_rolls=True, workers=0)))
        engines.append(timed(shared, lambda: Game(root).replay(keep_rolls=True)))
        run(cli_verify, [*pbem, "verify", "--game", str(root)], env, failures, expect="Verified")
    for engine in engines:
        if engine.head_id != big["head"] or engine.head_seq != big["entries"]:
            failures.append(f"replay ended at seq {engine.head_seq}, not at the head the build signed")
    if len({replayed(engine) for engine in engines}) != 1:
        failures.append("the replay with workers and the one on one core differ in states or rolls")
    print("  measured bare cost, replay on one core and with workers, and pbem verify", flush=True)
    return {"parts": parts, "bare": bare.best(), "alone": alone.best(), "shared": shared.best(),
            "cli": cli_verify.best(), "cores": parallel.usable_cores(),
            "workers": parallel.worker_count(big["entries"], None), "public": public}


def verify_rows(found: dict, files: list[Path], rows: Rows, workers_budget: str) -> None:
    bare, alone, shared = found["bare"], found["alone"], found["shared"]
    per, parts = 1e6 / len(files), found["parts"]
    rows.time("bare: read+parse+id+sig", bare, f"one core, {bare[0] * per:.0f} µs/message wall")
    rows.time("  of which read", parts["read"])
    rows.time("  of which parse", parts["parse"], "TOML + normalise + dearmor + sha256 id")
    rows.time("  of which Ed25519 check", parts["sigcheck"], "Message.verify")
    rows.time("Game.replay(workers=0)", alone, f"one core, {alone[0] * per:.0f} µs/message wall")
    rows.ratio("  one core / bare", ratio(alone, bare), f"budget {BUDGET_VERIFY:g}x")
    rows.time("Game.replay(keep_rolls=True)", shared,
              f"{found['workers']} workers ({found['cores']} cores); cpu: all processes")
    rows.ratio("  workers / bare", ratio(shared, bare), workers_budget)
    rows.time("pbem verify --game DIR", found["cli"], "subprocess, start-up included")
    rows.ratio("  pbem verify / bare", ratio(found["cli"], bare), workers_budget)


def verify_step(found: dict, files: list[Path], rows: Rows) -> list[str]:
    """2. The plain log's verify against the bare cost of its messages."""
    verify_rows(found, files, rows, f"target {BUDGET_WORKERS:g}x (wall)")
    one, shared, cli = (ratio(found[k], found["bare"]) for k in ("alone", "shared", "cli"))
    return [f"verify: on one core {one[0]:.2f}x (cpu {one[1]:.2f}x) the bare cost of its {len(files)} messages: "
            f"{verdict(one, BUDGET_VERIFY)} the {BUDGET_VERIFY:g}x budget",
            f"verify with {found['workers']} workers: {shared[0]:.2f}x the bare one-core cost in wall time, "
            f"pbem verify {cli[0]:.2f}x with start-up: {verdict(shared[:1], BUDGET_WORKERS)}, "
            f"{verdict(cli[:1], BUDGET_WORKERS)} the {BUDGET_WORKERS:g}x target (cpu of all processes "
            f"{shared[1]:.2f}x)"]


def sealed_step(found: dict, files: list[Path], repeat: int, rows: Rows) -> list[str]:
    """2 with --sealed: verify of a log with sealed rounds against the bare cost of its messages,
    the seals and unseals among them."""
    verify_rows(found, files, rows, f"budget {BUDGET_SEALED:g}x (wall)")
    sides = [f for f in files if f.name.startswith(("seal-", "unseal-"))]
    if sides:
        seconds, _ = best_of(repeat, lambda: bare_all(sides, found["public"]))
        rows.time("  bare of the seals and unseals", seconds, f"{len(sides)} of the {len(files)} messages")
    one, shared, cli = (ratio(found[k], found["bare"]) for k in ("alone", "shared", "cli"))
    return [f"sealed verify: pbem verify {cli[0]:.2f}x (cpu {cli[1]:.2f}x) the bare cost of its {len(files)} "
            f"messages ({len(sides)} seals and unseals): {verdict(cli[:1], BUDGET_SEALED)} the "
            f"{BUDGET_SEALED:g}x budget",
            f"replay on one core {one[0]:.2f}x (cpu {one[1]:.2f}x): {verdict(one, BUDGET_SEALED)}; with "
            f"{found['workers']} workers {shared[0]:.2f}x in wall time: {verdict(shared[:1], BUDGET_SEALED)} "
            f"(cpu of all processes {shared[1]:.2f}x)"]


def break_even_step(root: Path, tmp: Path, args, env: dict, rows: Rows) -> list[str]:
    """2b. From which length workers pay: new interpreters, as commands run."""
    cores = parallel.usable_cores()
    lengths = [n for n in BREAK_EVEN_LENGTHS if n <= args.entries] or [args.entries]
    even = break_even(root, tmp / "prefixes", lengths, args.runs, max(cores, 2), env) if cores > 1 else []
    for length, one, many in even:
        rows.add(f"replay of {length} entries", fmt(one), fmt(many), f"one core | {max(cores, 2)} workers, "
                 f"median of {args.runs}: {many / one:.2f}x")
    paying = [length for length, one, many in even if many < one]
    pays_from = next((n for n in paying if all(m < o for k, o, m in even if k >= n)), None)
    print("  measured the break-even length", flush=True)
    if not even:
        return ["break-even: one core here, so pbem starts no workers"]
    where = f"from about {pays_from} entries" if pays_from else "at none of the lengths measured"
    return [f"break-even: workers pay {where} ({', '.join(f'{n}: {m / o:.2f}x' for n, o, m in even)}); "
            f"pbem starts them from {parallel.MIN_ENTRIES} entries"]


def log_step(root: Path, args, env: dict, rows: Rows, failures: list[str], cli_verify: tuple) -> list[str]:
    """2c. pbem log on the whole log: time and peak memory."""
    pbem = pbem_command()
    log_series, peaks = Series(), []
    for _ in range(args.repeat):
        peaks.append(peak_run(log_series, [*pbem, "log", "--game", str(root)], env, failures))
    print("  measured pbem log", flush=True)
    rows.time("pbem log --game DIR", log_series.best(), f"peak {max(peaks) / 1024:.0f} MiB; output thrown away")
    log_ratio = ratio(log_series.best(), cli_verify)
    rows.ratio("  pbem log / pbem verify", log_ratio, "drawing the table on top of the replay")
    return [f"log: pbem log of {args.entries} entries {log_series.best()[0]:.2f} s wall, "
            f"{log_series.best()[1]:.2f} s cpu, peak {max(peaks) / 1024:.0f} MiB; {log_ratio[0]:.2f}x pbem verify"]


def cold_step(root: Path, args, env: dict, rows: Rows, failures: list[str]) -> list[str]:
    """3. Cold start, with state.toml in place as any earlier command leaves it."""
    pbem = pbem_command()
    warm = Series()
    timed(warm, lambda: Game(root).engine())
    rows.time("Game(dir).engine(), no cache", warm.best(), f"replays {args.entries} entries, writes state.toml")
    floor, base, status_s, show_s = Series(), Series(), Series(), Series()
    for _ in range(args.runs):
        run(floor, [sys.executable, "-c", "pass"], env, failures)
        run(base, [sys.executable, "-c", "import typer, rich"], env, failures)
        run(status_s, [*pbem, "status", "--game", str(root)], env, failures, expect="Next step")
        run(show_s, [*pbem, "show", "--game", str(root)], env, failures, expect="Turn")
    print("  measured cold start", flush=True)
    note = f"median of {args.runs}"
    rows.time("python -c pass", floor.median(), note)
    rows.time('python -c "import typer, rich"', base.median(), note)
    rows.time("pbem status --game DIR", status_s.median(), note)
    status_ratio = ratio(status_s.median(), base.median())
    rows.ratio("  status / typer+rich", status_ratio, "budget: close to 1")
    rows.time("pbem show --game DIR", show_s.median(), note)
    show_ratio = ratio(show_s.median(), base.median())
    rows.ratio("  show / typer+rich", show_ratio, "budget: close to 1")
    return [f"cold start: pbem status {status_ratio[0]:.2f}x (cpu {status_ratio[1]:.2f}x), pbem show "
            f"{show_ratio[0]:.2f}x (cpu {show_ratio[1]:.2f}x) python -c \"import typer, rich\""]


def apply_step(big: dict, tmp: Path, args, env: dict, rows: Rows, failures: list[str]) -> list[str]:
    """4. Apply one move to the long game and to a short one: interleaved, median of `runs`."""
    pbem = pbem_command()
    small = build(tmp / "small", args.small, args.dice)
    long_case, short_case = ApplyCase(big), ApplyCase(small)
    for _ in range(args.runs):
        for case in (long_case, short_case):
            case.run_cli(pbem, env, failures)
            case.run_library(failures)
    print("  measured apply", flush=True)
    note = f"median of {args.runs}"
    for case in (long_case, short_case):
        rows.time(f"pbem apply, {case.info['entries']} entries", case.cli.median(),
                  f"{note}; {case.player}'s move, seq {case.move.seq}")
    apply_cli = ratio(long_case.cli.median(), short_case.cli.median())
    rows.ratio(f"  {args.entries} / {args.small} entries", apply_cli, "budget: ~1")
    for case in (long_case, short_case):
        rows.time(f"Game.accept, {case.info['entries']} entries", case.library.median(), note)
    apply_lib = ratio(long_case.library.median(), short_case.library.median())
    rows.ratio(f"  {args.entries} / {args.small} entries", apply_lib, "budget: ~1")
    return [f"apply: {args.entries} vs {args.small} entries {apply_cli[0]:.2f}x (cpu {apply_cli[1]:.2f}x) "
            f"with the CLI, {apply_lib[0]:.2f}x (cpu {apply_lib[1]:.2f}x) in process"]


def parse_args(argv: list[str] | None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10000, help="chain entries in the log (default 10000)")
    parser.add_argument("--small", type=int, default=100, help="entries of the small game for the apply test")
    parser.add_argument("--repeat", type=int, default=None,
                        help="best-of count for replay, bare cost and CLI verify (default 3; 1 under 1000 entries)")
    parser.add_argument("--runs", type=int, default=None,
                        help="median-of count for CLI start-up and apply (default 5; 1 under 1000 entries)")
    parser.add_argument("--profile", action="store_true", help="cProfile one replay and print the hot spots")
    parser.add_argument("--dice", choices=("all", "open"), default="all",
                        help="the charter's dice policy; with open dice every 10th entry's roll resolves at once")
    parser.add_argument("--sealed", action="store_true",
                        help="seven players and a sealed round every 10 entries; measures verify against bare only")
    parser.add_argument("--keep", type=Path, default=None, help="build in this (new) directory and keep it")
    args = parser.parse_args(argv)
    quick = args.entries < 1000  # a smoke run: one of each subprocess, so it takes seconds
    args.repeat = max(1, args.repeat or (1 if quick else 3))
    args.runs = max(1, args.runs or (1 if quick else 5))
    return args


def measure(args, tmp: Path, env: dict) -> None:
    rows = Rows()
    failures: list[str] = []
    big, files = build_step(args, tmp, rows)
    found = measure_verify(big, files, args.repeat, env, failures)
    if args.sealed:
        summary = sealed_step(found, files, args.repeat, rows)
    else:
        summary = verify_step(found, files, rows)
        summary += break_even_step(big["root"], tmp, args, env, rows)
        summary += log_step(big["root"], args, env, rows, failures, found["cli"])
        summary += cold_step(big["root"], args, env, rows, failures)
        summary += apply_step(big, tmp, args, env, rows, failures)
    print()
    rows.print()
    for line in summary:
        print(line)
    if failures:
        print("\nfailures (reported, not asserted):")
        for line in failures:
            print("  " + line)
    if args.profile:
        print("\ncProfile of Game(dir).replay(keep_rolls=True, workers=0):")
        print(profile_replay(big["root"], 25))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not 1 <= args.entries < L or not 1 <= args.small < L:
        print(f"--entries and --small must be in 1..{L - 1}")
        return 0
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        print(f"--keep {args.keep}: the directory is not empty; give a new one")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="pbem-bench-")) if args.keep is None else args.keep
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PBEM_HOME=str(tmp / "pbem-home"), COLUMNS="100")
    os.environ["PBEM_HOME"] = env["PBEM_HOME"]  # nothing below may touch the user's own pbem dir
    try:
        measure(args, tmp, env)
    except Exception as exc:  # a report, not a test: say what broke and still exit 0
        import traceback

        traceback.print_exc()
        print(f"\nbenchmark aborted: {type(exc).__name__}: {exc}")
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
