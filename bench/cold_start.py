#!/usr/bin/env python
"""Benchmark: how long the CLI takes to start, against the libraries it must draw with.

BASE is `python -c "import typer, rich.console, rich.panel, rich.table"`: what any command that
parses its arguments and draws a report has to import. Targets, as ratios to BASE in one run:

* `pbem status --game DIR` within 1.2x, on both shipped examples;
* `pbem show --game DIR` within 1.5x, on both examples (and `show map` on Paths of Glory);
* `pbem --help` within 1.5x.

Each command runs as a subprocess through the installed `pbem` console script, with bytecode
written (PYTHONDONTWRITEBYTECODE removed from the environment) as an installed pbem runs, after one
warm-up run of everything (which writes bytecode, state.toml and any data cache). The examples are
copied into a temporary directory, so the working tree is never written. Runs are interleaved and
the median of N is reported. The script reports and never asserts: it always exits 0.

    python bench/cold_start.py              # median of 7
    python bench/cold_start.py --runs 15
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verify_log import pbem_command  # the script beside this one: bench/ is on sys.path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {"freeform": ROOT / "examples" / "freeform-3p" / "game",
            "pog": ROOT / "examples" / "paths-of-glory-1914" / "game"}
BASE_IMPORTS = "import typer, rich.console, rich.panel, rich.table"



class Case:
    """One command line, its timings (wall and CPU seconds) and its target ratio to BASE, if any."""

    def __init__(self, name: str, cmd: list[str], target: float | None = None, prints: bool = True) -> None:
        self.name, self.cmd, self.target, self.prints = name, cmd, target, prints
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def run(self, env: dict, failures: list[str]) -> None:
        cpu, wall = _children_cpu(), time.perf_counter()
        done = subprocess.run(self.cmd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(_children_cpu() - cpu)
        if done.returncode != 0 or (self.prints and not done.stdout.strip()):
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            failures.append(f"{self.name}: exit {done.returncode}: {tail}")

    def median(self) -> tuple[float, float]:
        return statistics.median(self.wall), statistics.median(self.cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cases(pbem: list[str], games: dict[str, Path]) -> list[Case]:
    python = sys.executable
    ff, pog = str(games["freeform"]), str(games["pog"])
    return [
        Case("BASE: " + BASE_IMPORTS, [python, "-c", BASE_IMPORTS], prints=False),
        Case("python -c pass", [python, "-c", "pass"], prints=False),
        Case("pbem --help", [*pbem, "--help"], 1.5),
        Case("pbem status (freeform)", [*pbem, "status", "--game", ff], 1.2),
        Case("pbem status (paths of glory)", [*pbem, "status", "--game", pog], 1.2),
        Case("pbem show (freeform)", [*pbem, "show", "--game", ff], 1.5),
        Case("pbem show (paths of glory)", [*pbem, "show", "--game", pog], 1.5),
        Case("pbem show map (paths of glory)", [*pbem, "show", "map", "--game", pog], 1.5),
    ]


def verdict(ratio: tuple[float, float], target: float) -> str:
    return "within" if max(ratio) <= target else "OVER" if min(ratio) > target else "borderline"


def report(measured: list[Case], runs: int) -> None:
    base = measured[0].median()
    width = max(len(c.name) for c in measured)
    print(f"{'command (median of ' + str(runs) + ')':{width}}  {'wall':>9}  {'cpu':>9}  {'/BASE':>6}  "
          f"{'cpu/BASE':>8}  target")
    print(f"{'-' * width}  {'-' * 9}  {'-' * 9}  {'-' * 6}  {'-' * 8}  {'-' * 18}")
    for case in measured:
        wall, cpu = case.median()
        ratio = (wall / base[0], cpu / base[1])
        target = f"{case.target:g}x: {verdict(ratio, case.target)}" if case.target else ""
        print(f"{case.name:{width}}  {wall * 1000:6.1f} ms  {cpu * 1000:6.1f} ms  {ratio[0]:5.2f}x  "
              f"{ratio[1]:7.2f}x  {target}".rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="median-of count for every command (default 7)")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pbem-cold-"))
    env = dict(os.environ, PBEM_HOME=str(tmp / "pbem-home"), COLUMNS="100")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed pbem writes and reuses its bytecode
    failures: list[str] = []
    try:
        games = {}
        for name, source in EXAMPLES.items():
            games[name] = tmp / name
            shutil.copytree(source, games[name], ignore=shutil.ignore_patterns("state.toml", ".lock"))
        measured = cases(pbem_command(), games)
        warm: list[str] = []
        for case in measured:  # bytecode, state.toml and data caches, as any earlier command leaves them
            case.run(env, warm)
            case.wall.clear()
            case.cpu.clear()
        for _ in range(max(1, args.runs)):
            for case in measured:
                case.run(env, failures)
        print(f"pbem: {' '.join(pbem_command())}; PYTHONDONTWRITEBYTECODE unset; COLUMNS=100\n")
        report(measured, max(1, args.runs))
        if warm or failures:
            print("\nfailures (reported, not asserted):")
            for line in dict.fromkeys(warm + failures):
                print("  " + line)
    except Exception as exc:  # a report, not a test: say what broke and still exit 0
        print(f"\nbenchmark aborted: {type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
