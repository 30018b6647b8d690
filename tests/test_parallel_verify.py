"""Verify on several cores (pbem/parallel.py) and the log drawn cheaply (report.LogTable).

Workers read, parse and check signatures ahead of the replay; the replay must end where the one-core
replay ends, with the same states and rolls, and every defect must be the same error at the same
entry whichever file a worker reached first. Chunks are made tiny here so that a short log spreads
over many of them.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import shutil
import time

import pytest
from helpers import NAMES, run_cli, setup_game
from rich.console import Console
from rich.theme import Theme

from pbem import parallel, sshsig
from pbem import report as reports
from pbem.console import THEME
from pbem.errors import PbemError
from pbem.game import Game
from pbem.log import GameDir
from pbem.message import Message

ENTRIES = 25  # with a roll every 4th entry: reveals spread over the chunks too
ROLL_EVERY = 4
ORIGINAL_CHECK = parallel.check_files


def orders(seq: int) -> list[dict]:
    counter = f"vp_{'abc'[seq % 3]}"
    if seq % ROLL_EVERY == 0:
        return [{"kind": "set", "counter": counter, "add": 1},
                {"kind": "roll", "dice": "2d6", "purpose": f"roll at seq {seq}"}]
    if seq % 2:
        return [{"kind": "note", "text": f"entry {seq}: the guns open up"}, {"kind": "pass"}]
    return [{"kind": "set", "counter": counter, "value": seq}, {"kind": "pass"}]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    table = setup_game(tmp_path_factory.mktemp("long"))
    for seq in range(1, ENTRIES + 1):
        table.move(NAMES[(seq - 1) % len(NAMES)], orders(seq))
        table.reveal_all()
    return table["bob"]


@pytest.fixture
def game_dir(built, tmp_path):
    copy = tmp_path / "game"
    shutil.copytree(built.dir, copy)
    (copy / "state.toml").unlink(missing_ok=True)
    return copy


@pytest.fixture(autouse=True)
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(parallel, "HEAD", 1)
    monkeypatch.setattr(parallel, "FIRST_CHUNK", 2)
    monkeypatch.setattr(parallel, "CHUNK", 3)
    yield
    assert not multiprocessing.active_children(), "a worker outlived the replay"


def summary(engine) -> tuple:
    rolls = [(r.seq, r.entry, r.seed, r.values, [d.to_dict() for d in r.draws]) for r in engine.rolls]
    return engine.head_seq, engine.head_id, engine.ruleset.dump(engine.state), rolls


def outcome(root, workers: int):
    """What verify ends with: the replay's summary, or the error (class, one line, entry, seq)."""
    try:
        return summary(Game(root).verify(workers=workers))
    except PbemError as exc:
        return type(exc).__name__, str(exc), exc.entry, exc.seq


# ------------------------------------------------------------------ the same game

def test_workers_replay_the_same_head_states_and_rolls(game_dir):
    alone = outcome(game_dir, 0)
    assert alone[0] == ENTRIES and len(alone[3]) == ENTRIES // ROLL_EVERY
    assert outcome(game_dir, 2) == alone
    assert outcome(game_dir, 1) == alone


def test_log_rows_are_the_same_with_workers(game_dir):
    from pbem.history import log_entries

    game = Game(game_dir)
    alone = log_entries(game)
    assert [row["seq"] for row in alone] == list(range(1, ENTRIES + 1))
    assert log_entries(game, last=5) == alone[-5:]
    assert log_entries(game, since=20) == alone[19:]
    with_workers = pytest.MonkeyPatch.context()
    with with_workers as patch:
        patch.setattr(parallel, "MIN_ENTRIES", 1)
        patch.setattr(parallel, "usable_cores", lambda: 2)
        assert log_entries(Game(game_dir)) == alone
        assert log_entries(Game(game_dir), last=5) == alone[-5:]


def test_a_signature_a_worker_checked_is_not_checked_again(game_dir, monkeypatch):
    """The replay's own process checks only the joins, the files it reads while the workers start, and
    the reveals waiting at the head."""
    checked_here: list[int] = []
    real = sshsig.verify

    def counting(*args):
        checked_here.append(os.getpid())  # a worker appends to its own copy of this list
        return real(*args)

    monkeypatch.setattr(sshsig, "verify", counting)
    game = Game(game_dir)
    engine = game.verify(workers=2)
    head_reveals = len(game.reveals_at(engine))
    assert checked_here == [os.getpid()] * (len(NAMES) + parallel.HEAD + head_reveals)
    checked_here.clear()
    Game(game_dir).verify(workers=0)
    files = len(list((game_dir / "entries").iterdir())) + len(list((game_dir / "side").iterdir()))
    assert len(checked_here) == files + head_reveals  # on one core: every file, the head's reveals twice


# ------------------------------------------------------------------ the same first error

def signed_by_another(root, seq: int) -> None:
    """Entry seq with a signature that does not match its bytes (another entry's)."""
    game_dir = GameDir(root)
    entry, other = game_dir.entry(seq), game_dir.entry(seq + 3)
    game_dir.entry_path(seq).write_bytes(Message(entry.body, other.signature, {}).stored())


def damaged(root, seq: int) -> None:
    path = GameDir(root).entry_path(seq)
    path.write_bytes(path.read_bytes().replace(b"prev = ", b"prev == ", 1))


def missing(root, seq: int) -> None:
    GameDir(root).entry_path(seq).unlink()


def moved(root, seq: int) -> None:
    game_dir = GameDir(root)
    game_dir.entry_path(seq).write_bytes(game_dir.entry_path(seq - 2).read_bytes())


def reveal_forged(root, seq: int) -> None:
    """The reveal that entry seq uses, its value changed: its signature no longer matches."""
    path = next((root / "side").glob(f"reveal-*-{seq - 1:06d}.toml"))
    text = path.read_bytes()
    value = text.split(b'value = "')[1][:64]
    path.write_bytes(text.replace(value, bytes(reversed(value))))


def truncated(root, seq: int) -> None:
    path = GameDir(root).entry_path(seq)
    path.write_bytes(path.read_bytes()[:-60])


DAMAGE = [signed_by_another, damaged, missing, moved, reveal_forged, truncated]


@pytest.mark.parametrize("early", DAMAGE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("late", [signed_by_another, damaged], ids=lambda f: "then " + f.__name__)
def test_the_first_bad_entry_is_reported_as_on_one_core(game_dir, early, late):
    """Entry 9 is bad, and so is entry 21; whatever a worker saw first, entry 9 is named."""
    early(game_dir, 9)
    late(game_dir, 21)
    alone = outcome(game_dir, 0)
    assert alone[0] == "ChainBroken" and alone[3] in (8, 9, None)  # 8: the reveal entry 9 uses
    assert alone[3] is not None or "000009.toml" in alone[1], alone
    assert outcome(game_dir, 2) == alone


def test_a_file_that_would_block_a_worker_is_left_to_the_replay(game_dir):
    """A FIFO where an entry should be: no worker opens it, and the first bad entry before it is
    reported at once, with no worker left waiting."""
    damaged(game_dir, 9)
    fifo = GameDir(game_dir).entry_path(21)
    fifo.unlink()
    os.mkfifo(fifo)
    alone = outcome(game_dir, 0)
    started = time.monotonic()
    assert outcome(game_dir, 2) == alone
    assert time.monotonic() - started < 20


def test_a_self_referencing_dump_is_an_error_not_a_hang():
    from pbem.engine import canonical_json

    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        canonical_json({"x": loop})


def slow_start(paths, keys):
    """Workers that reach the early chunks last."""
    if any(path.endswith(("000008.toml", "000009.toml", "000010.toml")) for path in paths):
        time.sleep(0.3)
    return ORIGINAL_CHECK(paths, keys)


def test_a_later_defect_found_first_does_not_hide_the_earlier_one(game_dir, monkeypatch):
    signed_by_another(game_dir, 9)
    damaged(game_dir, 21)
    alone = outcome(game_dir, 0)
    monkeypatch.setattr(parallel, "check_files", slow_start)
    assert outcome(game_dir, 2) == alone
    assert alone[3] == 9 and "signature does not match" in alone[1]


# ------------------------------------------------------------------ workers that fail

def die(paths, keys):
    os._exit(3)


def die_midway(paths, keys):
    if any(path.endswith("000012.toml") for path in paths):
        os._exit(3)
    return ORIGINAL_CHECK(paths, keys)


@pytest.mark.parametrize("worker", [die, die_midway])
def test_a_worker_that_dies_leaves_the_rest_to_one_core(game_dir, monkeypatch, worker):
    alone = outcome(game_dir, 0)
    monkeypatch.setattr(parallel, "check_files", worker)
    assert outcome(game_dir, 2) == alone


def test_a_worker_that_dies_still_reports_the_first_bad_entry(game_dir, monkeypatch):
    reveal_forged(game_dir, 17)
    alone = outcome(game_dir, 0)
    monkeypatch.setattr(parallel, "check_files", die_midway)
    assert outcome(game_dir, 2) == alone


def test_workers_that_cannot_start_leave_it_to_one_core(game_dir, monkeypatch):
    def no_fork():
        raise OSError(11, "Resource temporarily unavailable")

    alone = outcome(game_dir, 0)
    monkeypatch.setattr(os, "fork", no_fork)
    assert outcome(game_dir, 2) == alone


def test_short_logs_and_one_core_need_no_workers(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    assert parallel.worker_count(parallel.MIN_ENTRIES - 1, None) == 0
    assert parallel.worker_count(parallel.MIN_ENTRIES, None) == 2
    assert parallel.worker_count(10, 3) == 3
    monkeypatch.setattr(parallel, "usable_cores", lambda: 64)
    assert parallel.worker_count(10**4, None) == parallel.MAX_WORKERS
    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    assert parallel.worker_count(10**4, None) == 0


# ------------------------------------------------------------------ through the CLI

@pytest.fixture
def cli(built, game_dir, monkeypatch):
    """`pbem ARGS` on the copied game, with workers on (1 entry is enough) or off."""
    def run(*args: str, workers: bool) -> tuple[int, str, str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(parallel, "MIN_ENTRIES", 1 if workers else 10**9)
            patch.setattr(parallel, "usable_cores", lambda: 2)
            return run_cli([*args, "--game", str(game_dir)], game_dir, home=built.home)
    return run


@pytest.mark.parametrize("command", [["verify"], ["verify", "--json"], ["verify", "--roll", "8"], ["log"],
                                     ["log", "--json"], ["log", "--last", "3"]])
def test_the_cli_prints_the_same_with_workers(cli, command):
    alone = cli(*command, workers=False)
    assert alone[0] == 0, alone
    assert cli(*command, workers=True) == alone


def test_the_cli_names_the_same_first_bad_entry_in_one_line(cli, game_dir):
    reveal_forged(game_dir, 13)
    damaged(game_dir, 22)
    alone = cli("verify", workers=False)
    assert alone[0] == 4 and alone[2].count("\n") == 1 and "(seq 13)" in alone[2], alone
    assert cli("verify", workers=True) == alone


# ------------------------------------------------------------------ the log table

def tricky_rows() -> list[dict]:
    rows = []
    for seq in range(1, 40):
        rows.append({
            "seq": seq * 37, "id": f"{seq:064x}", "player": NAMES[seq % 3] * (1 + seq % 4),
            "time": f"2026-01-{1 + seq % 28:02d}T10:{seq % 60:02d}:00Z",
            "orders": [f"note text=\"{'x' * (seq % 13)} {'word ' * (seq % 7)}\"", "pass"][: 1 + seq % 2]
            if seq % 9 else [],
            "uses": seq % 2,
            "dice": [{"kind": "die", "size": 6, "result": seq % 6 + 1, "purpose": "fire", "rule": "7.1"}]
            if seq % 5 == 0 else [],
            "waiting_for": ["carol"] if seq == 39 else [],
        })
    rows[7]["orders"] = ["note text=\"" + "x" * 90 + "\""]  # one word wider than its column
    rows[11]["orders"] = ["note text=\"漢字の長い説明 wide characters\""]
    return rows


@pytest.mark.parametrize("block", [7, reports.LogTable.BLOCK])
@pytest.mark.parametrize("width", [12, 30, 45, 60, 80, 110, 200])
@pytest.mark.parametrize("count", [0, 1, 7, 39])
def test_the_log_table_is_drawn_exactly_as_rich_draws_it(width, count, block, monkeypatch):
    """Sized from its widest rows and drawn a block at a time, the table is rich's own, byte for byte."""
    monkeypatch.setattr(reports.LogTable, "BLOCK", block)
    view = reports.log_view(tricky_rows()[:count], "Entries 2–40 of 40. 'pbem log --since 1' shows all.")
    plain = view.table(view.rows)
    sizing = Console(file=io.StringIO(), width=width, theme=Theme(THEME))
    assert width < 30 or view._widths(sizing, sizing.options) is not None  # the quick way, wherever it can
    for fmt in ("text", "html", "svg"):
        assert reports.export([view], fmt, width) == reports.export([plain], fmt, width)
    for colour in (None, "truecolor"):
        drawn = []
        for renderable in (view, plain):
            console = Console(file=io.StringIO(), width=width, color_system=colour, theme=Theme(THEME),
                              force_terminal=colour is not None)
            console.print(renderable)
            drawn.append(console.file.getvalue())
        assert drawn[0] == drawn[1]
