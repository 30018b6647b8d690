#!/usr/bin/env python
"""Benchmark: a Paths of Glory game played by the bot of tests/pog_bot.py, then verified and audited.

Budgets from the design: `pbem verify` of the whole game under 2 minutes on 2 cores; the canonical
public state under 16 KiB at every entry; applying one move independent of the log's length.

    python bench/pog_game.py                 # 20 turns (or the game's end), dice "all" with reveals
    python bench/pog_game.py --turns 3       # a smoke run, under a minute
    python bench/pog_game.py --keep /tmp/g   # keep the game directories (a new, empty directory)

It reports and never asserts: it always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

import pog_bot  # noqa: E402  (tests/pog_bot.py: the bot both the tests and this bench use)
from verify_log import bare_all, message_files, pbem_command  # noqa: E402

from pbem.engine import canonical_json  # noqa: E402
from pbem.game import Game  # noqa: E402

STATE_BUDGET = 16 * 1024  # bytes of canonical public state
VERIFY_BUDGET = 120.0  # seconds for `pbem verify`
EDGE = 50  # entries at each end of the game compared for the cost of an apply


def play(root: Path, turns: int, seed: int) -> tuple[pog_bot.BotGame, list[int], float]:
    """The bot game, with the canonical state size after every entry."""
    bot = pog_bot.start(root, seed, dice="all")
    sizes: list[int] = []
    ruleset = bot.games["alice"].ruleset

    def measure(game: pog_bot.BotGame) -> None:
        sizes.append(len(canonical_json(ruleset.dump(game.engine().state))))

    started = time.perf_counter()
    pog_bot.play(bot, turns, measure, most_entries=20000)
    return bot, sizes, time.perf_counter() - started


def disclose(bot: pog_bot.BotGame) -> None:
    for player, game in bot.games.items():
        message, _ = game.disclose(player, bot.signers[player])
        for other in bot.games.values():
            if other is not game:
                other.accept([message])


def timed_cli(args: list[str], env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*pbem_command(), *args], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    return seconds, "" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[-300:]}"


def measure(args) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pog-bench-"))
    env = {**os.environ, "PBEM_HOME": str(root / "home" / "alice")}
    bot, sizes, played = play(root, args.turns, args.seed)
    state = bot.engine().state
    rows.append(("game", f"{bot.entries} entries to {state.turn_label}, round {state.round}",
                 f"{played:.1f} s to play ({1000 * played / bot.entries:.0f} ms an entry, bot included)"))
    disclose(bot)
    game_dir = root / "alice"
    files = message_files(game_dir)
    started = time.perf_counter()
    bare_all(files, {name: signer.public.raw for name, signer in bot.signers.items()})
    bare = time.perf_counter() - started
    rows.append(("bare messages", f"{bare:.2f} s", f"{len(files)} files: read, parse, id, signature"))
    started = time.perf_counter()
    Game(game_dir).replay(keep_rolls=True, workers=0)
    replay = time.perf_counter() - started
    rows.append(("replay, one core", f"{replay:.2f} s", f"{replay / bare:.1f}x the bare cost; "
                 f"{1000 * replay / bot.entries:.1f} ms an entry"))
    verify, failed = timed_cli(["verify", "--game", str(game_dir)], env)
    rows.append(("pbem verify", f"{verify:.2f} s", failed or f"{verify / bare:.1f}x the bare cost; budget "
                 f"{VERIFY_BUDGET:.0f} s: {'within' if verify < VERIFY_BUDGET else 'OVER'}"))
    audit, failed = timed_cli(["audit", "--game", str(game_dir)], env)
    rows.append(("pbem audit", f"{audit:.2f} s", failed or "both players disclosed"))
    rows.append(("state size", f"mean {statistics.mean(sizes) / 1024:.1f} KiB, max {max(sizes) / 1024:.1f} KiB",
                 f"budget {STATE_BUDGET // 1024} KiB: {'within' if max(sizes) < STATE_BUDGET else 'OVER'}"))
    early, late = (statistics.median(part) for part in (bot.accept_seconds[:EDGE], bot.accept_seconds[-EDGE:]))
    rows.append(("apply one entry", f"first {EDGE}: {1000 * early:.0f} ms, last {EDGE}: {1000 * late:.0f} ms",
                 f"{late / early:.2f}x (Game.accept by the other player, median; budget ~1)"))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="play until this turn has ended (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the bot's random seed (default 1)")
    parser.add_argument("--keep", help="a new, empty directory to keep the game in")
    args = parser.parse_args(argv)
    if args.keep and Path(args.keep).exists() and any(Path(args.keep).iterdir()):
        print(f"--keep {args.keep}: not empty", file=sys.stderr)
        return 0
    rows = measure(args)
    width = max(len(name) for name, _, _ in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:<28}  {note}")
    print(json.dumps({name: value for name, value, _ in rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
