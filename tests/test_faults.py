"""A kill or a failed write at every write, fsync, rename and removal of a command (PROTOCOL §4, §6).

The seam is pbem/log.py's fault point: PBEM_FAULT_AT="N:ACTION" kills the real `pbem` at its N-th
point, or makes that call fail with an errno. After each, the log verifies, one ordinary command
finishes what was interrupted, and the game reaches the head and outbox/ of an uninterrupted run
with no signed message lost. Every run with a fault plan is a subprocess (spawn_cli); the ordinary
commands that follow run in-process (run_cli), as any later `pbem` would.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import cli_env, copy_game, run_cli, setup_game, spawn_cli

from pbem.game import Game

ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "assault"}]
MOVE = ["move", "roll dice=2d6 purpose=assault"]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return setup_game(tmp_path_factory.mktemp("template"))


@dataclass
class Scenario:
    """Who runs which command in which directory, after `prepare` has set the table."""

    player: str
    command: list[str]
    prepare: Callable = lambda table, tmp: None
    again: list[str] | None = None  # what the player runs again once the directory is whole


def alice_rolled(table, tmp):
    _message, path = table.move("alice", ROLL, to=["bob"])
    return path


def alice_rolled_by_mail(table, tmp):
    """alice's move, saved as one mail in an mbox, as a mail client exports it."""
    path = alice_rolled(table, tmp)
    mbox = table.root / "carol" / "inbox.mbox"
    mbox.write_bytes(b"From alice@example.org Thu Jan  1 00:00:00 2026\nFrom: alice@example.org\n"
                     b"To: carol@example.org\nSubject: [pbem] seq 1\nMessage-ID: <seq-1@example.org>\n\n"
                     + Path(path).read_bytes())
    return mbox


SCENARIOS = {
    "apply": Scenario("carol", ["apply", "{entry}"], alice_rolled),
    "inbox": Scenario("carol", ["inbox", "--mbox", "{entry}"], alice_rolled_by_mail),
    "apply --reveal": Scenario("bob", ["apply", "--reveal"], alice_rolled),
    "move": Scenario("alice", MOVE),
    "resign": Scenario("alice", ["resign", "--reason", "called away"]),
}


def fresh(template, folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    return copy_game(template, folder)


def command_line(scenario: Scenario, table, entry: Path | None) -> list[str]:
    """The command, with the prepared file found in this copy of the table."""
    where = str(table.root / entry) if entry else ""
    return [a.replace("{entry}", where) for a in scenario.command]


def run(table, scenario: Scenario, args: list[str], extra_env: dict) -> tuple[int, str, str]:
    player = table[scenario.player]
    return spawn_cli(args, player.dir, env={**cli_env(player.home), **extra_env})


def head_and_outbox(player) -> tuple[int, str, dict[str, bytes]]:
    game = Game(player.dir, home=player.home)
    engine = game.replay()  # what `pbem verify` checks, from the charter up
    assert not game.dir.forks()
    outbox = {p.name: p.read_bytes() for p in sorted((player.dir / "outbox").glob("*.toml"))}
    return engine.head_seq, engine.head_id, outbox


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".tmp-*")) + \
        sorted(str(p.relative_to(folder)) for p in folder.glob("journal/*"))


def check_fault(action: str, rc: int, err: str, label: str) -> None:
    if action == "kill":
        assert rc in (0, -9), label
        return
    assert rc in (0, 7), label  # a failed cache write costs nothing but a later replay
    if rc == 7:
        assert err.startswith("error: ") and err.count("\n") == 1, label
        assert "No space left on device (ENOSPC)" in err, label


def recover(table, scenario: Scenario, args: list[str], want: tuple, label: str) -> None:
    """What the player does next: any writing command (here `pbem apply`) finishes an interrupted
    one; if the first run never got as far as signing, he runs it again."""
    player = table[scenario.player]
    rc, _, err = player.cli("apply")
    assert rc == 0, f"{label}: apply after it: {rc} {err!r}"
    seq, _, outbox = head_and_outbox(player)
    if (seq, sorted(outbox)) != (want[0], sorted(want[2])):
        rc, _out, err = player.cli(*args)
        assert rc == 0, f"{label}: run again: {rc} {err!r}"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_fault_point_recovers(template, tmp_path, name):
    """Hardening 8, 9, 10."""
    scenario = SCENARIOS[name]
    base = fresh(template, tmp_path / "base")
    prepared = scenario.prepare(base, tmp_path / "base")
    entry = Path(prepared).relative_to(base.root) if prepared else None
    clean = fresh(base, tmp_path / "clean")
    args = command_line(scenario, clean, entry)
    log = tmp_path / "points.log"
    assert run(clean, scenario, args, {"PBEM_FAULT_LOG": str(log)})[0] == 0
    points = len(log.read_text().splitlines())
    assert points >= 8
    want = head_and_outbox(clean[scenario.player])
    for point in range(1, points + 1):
        for action in ("kill", "ENOSPC"):
            where = tmp_path / f"{point}-{action}"
            table = fresh(base, where)
            args = command_line(scenario, table, entry)
            rc, _out, err = run(table, scenario, args, {"PBEM_FAULT_AT": f"{point}:{action}"})
            label = f"{name}: {action} at point {point}: rc {rc} {err!r}"
            check_fault(action, rc, err, label)
            player = table[scenario.player]
            Game(player.dir, home=player.home).replay()  # the log verifies as it was left
            recover(table, scenario, args, want, label)
            seq, head, outbox = head_and_outbox(player)
            assert (seq, sorted(outbox)) == (want[0], sorted(want[2])), label
            if name == "move":  # a move's salt and time differ from run to run
                assert outbox[f"{seq:06d}-move-alice.toml"] == player.game().dir.entry(seq).stored(), label
            else:
                assert (head, outbox) == (want[1], want[2]), label
            assert leftovers(player.dir) == [], label
            assert not list(player.home.rglob(".tmp-*")), label  # the reveal record's folder too
            shutil.rmtree(where)


def test_join_recovers_at_every_fault_point(template, tmp_path):
    """Hardening 10, `pbem join`: killed or refused a write anywhere, running it again completes it
    with the same signed join (seeds are derived, signatures deterministic)."""
    base = fresh(template, tmp_path / "base")
    args = ["join", "../game.toml", "--dir", "again", "--key", "home/id_ed25519"]

    def join(table, extra_env):
        env = {**cli_env(table.root / "alice" / "home2"), **extra_env}
        return (spawn_cli if extra_env else run_cli)(args, table.root / "alice", env=env)

    clean = fresh(base, tmp_path / "clean")
    log = tmp_path / "points.log"
    assert join(clean, {"PBEM_FAULT_LOG": str(log)})[0] == 0
    points = len(log.read_text().splitlines())
    want = {p.name: p.read_bytes() for p in (clean.root / "alice" / "again" / "outbox").iterdir()}
    assert list(want) == ["join-alice.toml"] and points >= 8
    for point in range(1, points + 1):
        for action in ("kill", "ENOSPC"):
            where = tmp_path / f"{point}-{action}"
            table = fresh(base, where)
            rc, _, err = join(table, {"PBEM_FAULT_AT": f"{point}:{action}"})
            label = f"join: {action} at point {point}: rc {rc} {err!r}"
            check_fault(action, rc, err, label)
            if rc != 0:
                rc, _out, err = join(table, {})
                assert rc == 0, f"{label}: run again: {rc} {err!r}"
            folder = table.root / "alice" / "again"
            assert {p.name: p.read_bytes() for p in (folder / "outbox").iterdir()} == want, label
            assert leftovers(folder) == [], label
            shutil.rmtree(where)


@pytest.mark.parametrize("command", [["status"], ["show"], ["log"], ["verify"]])
def test_read_commands_work_on_a_read_only_directory(template, tmp_path, command):
    """Hardening 9: with the cache stale and every write refused, reading commands replay in memory."""
    table = fresh(template, tmp_path / "game")
    table.move("alice", ROLL)
    table.reveal_all()
    bob = table["bob"]
    (bob.dir / "state.toml").unlink()
    expected = bob.cli(*command)
    (bob.dir / "state.toml").unlink(missing_ok=True)
    from helpers import snapshot

    before = snapshot(bob.dir)
    env = {**cli_env(bob.home), "PBEM_FAULT_AT": "1+:EROFS"}
    assert spawn_cli(command, bob.dir, env=env) == expected
    assert snapshot(bob.dir) == before


@pytest.mark.parametrize("cause,text", [("EROFS", "Read-only file system (EROFS)"),
                                        ("EACCES", "Permission denied (EACCES)"),
                                        ("EIO", "Input/output error (EIO)"),
                                        ("ENOSPC", "No space left on device (ENOSPC)")])
@pytest.mark.parametrize("command", [["apply", "{entry}"], ["move", "pass"], ["apply", "--reveal"]])
def test_a_disk_that_refuses_every_write_is_one_line_and_changes_nothing(template, tmp_path, cause, text,
                                                                          command):
    """Hardening 9: exit 7 with the file and the cause; the directory is as it was."""
    from helpers import snapshot

    table = fresh(template, tmp_path / "game")
    entry_path = alice_rolled(table, tmp_path)
    player = table["bob"] if command[-1] != "pass" else table["carol"]
    if command[-1] == "pass":
        table.deliver(entry_path, ["carol"])
        table.reveal("bob", to=["carol"])
        table.reveal("carol", to=[])
    before = snapshot(player.dir)
    env = {**cli_env(player.home), "PBEM_FAULT_AT": f"1+:{cause}"}
    args = [a.replace("{entry}", str(entry_path)) for a in command]
    rc, out, err = spawn_cli(args, player.dir, env=env)
    assert rc == 7, (rc, out, err)
    assert err.startswith("error: disk: cannot ") and err.count("\n") == 1 and text in err, err
    assert snapshot(player.dir) == before


def test_a_stored_move_left_in_the_journal_survives_an_unrelated_error(template, tmp_path):
    """A move killed after its entry file is written stays in the journal while another error (here
    a changed game.toml) stops commands; once that is fixed, it reaches outbox/ to be mailed."""
    clean = fresh(template, tmp_path / "clean")
    log = tmp_path / "points.log"
    assert run(clean, SCENARIOS["move"], MOVE, {"PBEM_FAULT_LOG": str(log)})[0] == 0
    points = log.read_text().splitlines()
    after_entry = next(i for i, line in enumerate(points, 1) if line == "rename entries/000001.toml") + 1
    table = fresh(template, tmp_path / "game")
    alice = table["alice"]
    assert run(table, SCENARIOS["move"], MOVE, {"PBEM_FAULT_AT": f"{after_entry}:kill"})[0] == -9
    charter = alice.dir / "game.toml"
    honest = charter.read_text()
    charter.write_text(honest.replace("reveal_hours = 24", "reveal_hours = 25"))
    assert alice.cli("status")[0] == 4
    charter.write_text(honest)
    rc, out, err = alice.cli("status")
    assert rc == 0 and "Finished" in out, (out, err)
    entry = alice.game().dir.entry(1)
    assert (alice.dir / "outbox" / "000001-move-alice.toml").read_bytes() == entry.stored()
    assert leftovers(alice.dir) == []
