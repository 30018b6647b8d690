"""The real `pbem` process: one command per exit code of docs/protocol.md §9, run as a subprocess,
and the same command run in-process by helpers.run_cli gives the same exit code, stdout and stderr
(the other CLI tests rely on that)."""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import cli_env, copy_game, forge, run_cli, setup_game, spawn_cli, stored, write

NOTE = [{"kind": "note", "text": "hello"}, {"kind": "pass"}]
ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "assault"}]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return setup_game(tmp_path_factory.mktemp("template"))


@dataclass
class Case:
    player: str
    args: list[str]
    code: int
    says: str  # in stdout or stderr
    prepare: Callable = lambda table: None  # writes what the command reads, beside the player's game directory
    locked: bool = False  # the game directory is locked by another pbem while the command runs
    in_process: bool = True  # False: a fault injected through PBEM_FAULT_AT, which only a child may run
    env: dict | None = None


def wrong_key(table):
    write(table.root / "bob" / "msg.toml", stored(table.draft("alice", ROLL).body, table["carol"].signer))


def wrong_prev(table):
    entry = forge(table.draft("alice", ROLL).fields, {"prev": "ab" * 32}, table["alice"].signer)
    write(table.root / "carol" / "msg.toml", entry)


def seq_2_first(table):
    table.move("alice", NOTE, to=["bob"])
    _message, path = table.move("bob", NOTE, to=[])
    write(table.root / "carol" / "msg.toml", Path(path).read_bytes())


def damaged_mail_settings(table):
    write(table["alice"].home / "mail.toml", b"smtp_host = [")


CASES = {
    "help": Case("alice", ["--help"], 0, "Usage: python -m pbem.cli [OPTIONS] COMMAND"),
    "no-command": Case("alice", [], 2, "Usage: python -m pbem.cli [OPTIONS] COMMAND"),
    "status": Case("alice", ["status"], 0, "alice"),
    "status-json": Case("alice", ["status", "--json"], 0, '"waiting_for"'),
    "unknown-option": Case("alice", ["move", "--nope"], 2, "No such option"),
    "missing-file": Case("bob", ["apply", "../missing.toml"], 2, "error: "),
    "out-of-turn": Case("bob", ["move", "note text=hi"], 1, "error: "),
    "wrong-key": Case("bob", ["apply", "../msg.toml"], 3, "field 'signature'", wrong_key),
    "wrong-prev": Case("carol", ["apply", "../msg.toml"], 4, "field 'prev'", wrong_prev),
    "held": Case("carol", ["apply", "../msg.toml"], 5, "held", seq_2_first),
    "locked": Case("alice", ["move", "pass"], 6, "locked", locked=True),
    "disk": Case("alice", ["move", "pass"], 7, "Read-only file system (EROFS)", in_process=False,
                 env={"PBEM_FAULT_AT": "1+:EROFS"}),
    "not-mailed": Case("alice", ["move", "pass", "--send"], 8, "mail.toml is damaged", damaged_mail_settings),
}


def fresh(table, folder: Path):
    folder.mkdir(parents=True)
    return copy_game(table, folder)


def run(runner, table, case: Case) -> tuple[int, str, str]:
    player = table[case.player]
    env = {**cli_env(player.home), **(case.env or {})}
    lock = os.open(player.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644) if case.locked else None
    try:
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, out, err = runner(case.args, player.dir, env=env)
    finally:
        if lock is not None:
            os.close(lock)
    # Where the copy lives, and the ids of messages signed afresh (salt and time), differ between copies.
    return code, *(re.sub(r"[0-9a-f]{12,}", "ID", text.replace(str(table.root), "ROOT")) for text in (out, err))


@pytest.mark.parametrize("name", list(CASES))
def test_each_exit_code_from_the_real_process_and_the_same_in_process(template, tmp_path, name):
    case = CASES[name]
    base = fresh(template, tmp_path / "base")
    case.prepare(base)
    spawned = run(spawn_cli, fresh(base, tmp_path / "spawned"), case)
    assert spawned[0] == case.code, spawned
    assert case.says in spawned[1] + spawned[2] and "Traceback" not in spawned[2], spawned
    if case.code not in (0, 2, 5):
        assert spawned[2].startswith("error: ") and spawned[2].count("\n") == 1, spawned
    if case.in_process:
        assert run(run_cli, fresh(base, tmp_path / "in-process"), case) == spawned
