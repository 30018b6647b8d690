"""Reading a log on several cores: worker processes read, parse and check the signature of each
message file ahead of the replay, which takes them in order and applies them.

Workers only ever do what the replay would do itself, earlier. Whatever a worker cannot vouch for (a
file missing, damaged, badly signed, or a worker gone) it hands back as nothing, and the replay reads
that file itself as it does on one core: every error is the one the single-process replay raises, at
the same entry, whichever file a worker happened to reach first.

Workers are forked (Linux only), so they start in milliseconds with the replay's modules loaded;
multiprocessing itself is loaded only when they start, never by a command that reads the cache.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .log import GameDir
from .message import Message, parse

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many entries starting workers (loading multiprocessing, forking) costs more than they save:
# bench/verify_log.py measures the break-even, about 300 entries on 2 cores.
MIN_ENTRIES = 300
HEAD = 16  # files the replay reads itself while the workers start
FIRST_CHUNK, CHUNK = 16, 128  # small first chunks so the replay soon has work, then fewer round trips
AHEAD = 2  # chunks in flight per worker: enough to keep every core busy, few enough to bound memory
MAX_WORKERS = 4  # past this the replay's own work is the bottleneck: more workers would only wait


class Checked(Message):
    """A message a worker found signed by `key`: checking it again under that key costs nothing;
    under any other key it is checked as usual."""

    key = b""

    def verify(self, raw_public: bytes) -> None:
        if raw_public != self.key:
            super().verify(raw_public)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(entries: int, workers: int | None) -> int:
    """How many workers to start: `workers` if given, else one per core when the log is long
    enough; 0 means the replay reads on its own. Workers are forked, so only where fork is safe."""
    if not sys.platform.startswith("linux"):
        return 0
    if workers is None:
        cores = usable_cores()
        workers = min(cores, MAX_WORKERS) if cores > 1 and entries >= MIN_ENTRIES else 0
    return max(workers, 0)


def check_file(path: str, keys: dict[str, bytes]) -> Checked | None:
    """Read, parse and verify one message file; None for anything the replay must look at itself."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device could block a worker for ever
            return None
        with open(path, "rb") as handle:
            message = parse(handle.read())
        key = keys.get(message.player)
        if key is None:
            return None
        message.verify(key)
    except Exception:  # the replay reads this file again and raises its own error for it
        return None
    checked = Checked(message.body, message.signature, message.fields)
    checked.key = key
    return checked


def check_files(paths: list[str], keys: dict[str, bytes]) -> list[Checked | None]:
    return [check_file(path, keys) for path in paths]


def _quiet_worker(parent: int) -> None:
    """In each worker: Ctrl-C is for the replay to handle, nothing is ever printed, and the worker
    ends if the replay's process dies without shutting it down."""
    import gc
    import signal
    import threading
    import time

    gc.freeze()  # the collector never walks what the fork shares, so those pages stay shared
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the worker)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def chunks(paths: list[str]) -> Iterator[list[str]]:
    size, start = FIRST_CHUNK, 0
    while start < len(paths):
        yield paths[start:start + size]
        start += size
        size = min(size * 2, CHUNK)


class Prefetch:
    """Checked messages by path, as the workers deliver them in order; any file the workers did not
    vouch for is read here, exactly as on one core."""

    def __init__(self, game_dir: GameDir, paths: list[str], keys: dict[str, bytes],
                 pool: ProcessPoolExecutor | None, workers: int) -> None:
        self.dir = game_dir
        self.keys = keys
        self.pool = pool
        paths = paths[HEAD:]  # read here while the workers start
        self.planned = set(paths)
        self.ready: dict[str, Checked | None] = {}
        self.todo = chunks(paths)
        self.flight: deque = deque()
        for _ in range(AHEAD * workers):
            self._submit()

    def _submit(self) -> None:
        if self.pool is None:
            return
        batch = next(self.todo, None)
        if batch is None:
            return
        try:
            future = self.pool.submit(check_files, batch, self.keys)
        except Exception:  # no worker could start (fork refused, no memory): read on one core
            self.pool = None
            return
        self.flight.append((batch, future))

    def _pull(self) -> None:
        """Wait for the oldest chunk in flight; a worker that died leaves the rest to this process."""
        batch, future = self.flight.popleft()
        try:
            results = future.result()
        except Exception:
            self.pool = None
            self.flight.clear()
            return
        self.ready.update(zip(batch, results, strict=True))
        self._submit()

    def read(self, path: Path) -> Message | None:
        name = str(path)
        if name in self.planned:
            self.planned.discard(name)  # handed out once; asked again, it is read here
            while name not in self.ready and self.flight:
                self._pull()
            message = self.ready.pop(name, None)
            if message is not None:
                return message
        return self.dir.read_message(path)


def plan(game_dir: GameDir, last: int) -> list[str]:
    """The files the replay of entries 1..last reads, in the order it reads them: each entry, then the
    reveals the next entry uses. Reveals at the head are left to whoever checks them after the replay,
    so that no signature is checked twice."""
    side = game_dir.root / "side"
    try:
        names = [n for n in os.listdir(side) if n.startswith("reveal-")]
    except OSError:
        names = []
    reveals: dict[int, list[str]] = {}
    for name in sorted(names):
        number = name.removesuffix(".toml").rpartition("-")[2]
        if number.isdigit():
            reveals.setdefault(int(number), []).append(str(side / name))
    paths = []
    for seq in range(1, last + 1):
        paths.append(str(game_dir.entry_path(seq)))
        if seq < last:
            paths.extend(reveals.get(seq, []))
    return paths


@contextmanager
def reader(game_dir: GameDir, keys: dict[str, bytes], last: int, workers: int | None = None):
    """A function reading message files as GameDir.read_message does, with `workers` processes
    (None: as many as pay off here) reading, parsing and checking signatures ahead."""
    count = worker_count(last, workers)
    if count == 0:
        yield game_dir.read_message
        return
    pool = _start(count)
    try:
        yield Prefetch(game_dir, plan(game_dir, last), keys, pool, count).read
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _start(count: int) -> ProcessPoolExecutor | None:
    """The worker pool, or None when it cannot be made."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_quiet_worker, initargs=(os.getpid(),))
    except Exception:  # no semaphores here (a container without /dev/shm), say: read on one core
        return None
