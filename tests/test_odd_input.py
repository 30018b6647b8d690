"""Odd and hostile input through the real CLI: each is one line with its exit code, the directory as
it was, and no command signs from a head another pbem has moved meanwhile."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys

import pytest
from helpers import GAME_ID, changes, cli_env, copy_game, forge, run_cli, setup_game, snapshot, spawn_cli, write

from pbem.game import utc_now

ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "assault"}]
PASS = [{"kind": "note", "text": "quiet front"}, {"kind": "pass"}]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return setup_game(tmp_path_factory.mktemp("template"))


@pytest.fixture
def table(template, tmp_path):
    return copy_game(template, tmp_path)


def one_line(result, code: int) -> str:
    rc, out, err = result
    assert rc == code, (rc, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def unchanged(folder, before) -> None:
    assert changes(before, snapshot(folder)) == {"added": [], "removed": [], "changed": []}


def test_an_entry_with_hundreds_of_uses_is_refused_at_once(table, tmp_path):
    """Hostile review 2: 800 made-up ids in uses once made every later apply re-read the log."""
    import secrets

    fields = {"pbem": 1, "type": "move", "game": GAME_ID, "player": "alice", "seq": 1,
              "prev": table["bob"].game().engine().genesis, "time": utc_now(), "salt": secrets.token_hex(32),
              "state": "0" * 64, "uses": sorted(secrets.token_hex(32) for _ in range(800)), "orders": PASS}
    bad = forge(fields, {}, table["alice"].signer)
    bob = table["bob"]
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", str(write(tmp_path / "bad.toml", bad.stored()))), 2)
    assert "uses lists 800 messages" in err and "field 'uses'" in err
    unchanged(bob.dir, before)


def test_a_move_drafted_before_another_pbem_moved_never_replaces_it(table, tmp_path):
    """Hostile review 4: `move --edit` read the head, another `pbem move` signed seq 1 while the
    editor was open; the edited move must not replace entries/000001.toml."""
    alice = table["alice"]
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\ncd {alice.dir}\nPBEM_HOME={alice.home} {sys.executable} -m pbem.cli move "
                      f"'note text=first' pass >/dev/null\nprintf '[[orders]]\\nkind = \"pass\"\\n' > \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    env = {**cli_env(alice.home), "EDITOR": str(editor)}
    rc, out, err = run_cli(["move", "--edit"], alice.dir, env=env)
    assert rc == 1 and "out of turn" in err, (rc, out, err)
    stored = alice.game().dir.entry(1)
    assert stored.orders[0]["text"] == "first"
    assert (alice.dir / "outbox" / "000001-move-alice.toml").read_bytes() == stored.stored()


def test_an_apostrophe_in_an_order_is_one_line(table):
    err = one_line(table["alice"].cli("move", "note text=don't"), 2)
    assert "field 'ORDER'" in err and "double quotes" in err


def test_a_charter_that_is_not_utf8_is_one_line(table, tmp_path):
    charter = tmp_path / "utf16.toml"
    charter.write_bytes(table.charter_path.read_text().encode("utf-16"))
    err = one_line(run_cli(["join", str(charter), "--dir", str(tmp_path / "g"), "--key", str(table["alice"].key)],
                           tmp_path, home=tmp_path / "home"), 2)
    assert "is not UTF-8 text" in err
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("damage", [b"", b"\x00\xff\xfe garbage", b"player = 3\n", b"[[[not toml"])
def test_a_damaged_me_toml_is_one_line(table, damage):
    alice = table["alice"]
    (alice.dir / "me.toml").write_bytes(damage)
    before = snapshot(alice.dir)
    for command in (["status"], ["apply"], ["move", "pass"]):
        err = one_line(alice.cli(*command), 2)
        assert "me.toml" in err
    unchanged(alice.dir, before)


def test_a_damaged_reveal_record_is_one_line_and_never_reveals(table):
    table.move("alice", ROLL)
    bob = table["bob"]
    record = next(bob.home.glob("games/*/reveals.toml"))
    record.write_bytes(b"revealed = [[[")
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", "--reveal"), 2)
    assert "reveals.toml is damaged" in err
    unchanged(bob.dir, before)


def test_the_inbox_runs_where_the_charter_was_saved(table, tmp_path):
    """README: save game.toml, `pbem join game.toml --dir club`; `pbem inbox` there reads into club/."""
    host = tmp_path / "where-saved"
    host.mkdir()
    shutil.copy(table.charter_path, host / "game.toml")
    shutil.copytree(table["bob"].dir, host / "club")
    _first, path = table.move("alice", ROLL, to=[])
    mbox = host / "mail.mbox"
    mbox.write_bytes(b"From a@example.org Thu Jan  1 00:00:00 2026\nFrom: a@example.org\nSubject: seq 1\n"
                     b"Message-ID: <one@example.org>\n\n" + path.read_bytes())
    rc, out, err = run_cli(["inbox", "--mbox", str(mbox)], host, home=table["bob"].home)
    assert rc == 0, (out, err)
    assert (host / "club" / "entries" / "000001.toml").exists()


def test_status_names_who_signs_after_a_stored_resign(table):
    """Hostile review 14: bob, on move, resigned; the next entry (using his resign) is alice's."""
    _first, _ = table.move("alice", PASS)
    resign, _ = table["bob"].game().resign("bob", table["bob"].signer, "ill")
    table.deliver(table["bob"].outbox(resign), ["alice", "carol"])
    data = json.loads(table["carol"].cli("status", "--json")[1])
    assert data["step"]["waiting_for"] == ["alice"]


def test_a_report_never_overwrites_the_games_own_files(table):
    alice = table["alice"]
    before = snapshot(alice.dir)
    for target in ("game.toml", "entries/000001.toml", "me.toml"):
        err = one_line(alice.cli("report", "--text", target), 2)
        assert "one of the game's own files" in err
    unchanged(alice.dir, before)


def test_running_a_move_again_after_a_crash_does_not_play_it_twice(table, tmp_path):
    """Hostile review 16: the move was killed after its journal copy; the same command again finishes
    it and signs nothing new."""
    alice = table["alice"]
    log = tmp_path / "points.log"
    clean = tmp_path / "clean"
    clean.mkdir()
    counted = copy_game(table, clean)
    run_cli(["move", "set counter=vp add=1", "pass"], counted["alice"].dir,
            env={**cli_env(counted["alice"].home), "PBEM_FAULT_LOG": str(log)})
    journal = next(i for i, line in enumerate(log.read_text().splitlines(), 1)
                   if line.startswith("fsync-dir journal"))
    env = {**cli_env(alice.home), "PBEM_FAULT_AT": f"{journal + 1}:kill"}
    assert spawn_cli(["move", "set counter=vp add=1", "pass"], alice.dir, env=env)[0] == -9
    rc, out, err = alice.cli("move", "set counter=vp add=1", "pass")
    assert rc == 2 and "was finished and stored instead; nothing new was signed" in err, (out, err)
    assert "Finished an interrupted command" in out
    assert json.loads(alice.cli("show", "--json")[1])["counters"] == {"vp": 1}


def test_small_usage_mistakes_are_one_line(table, tmp_path):
    alice = table["alice"]
    one_line(alice.cli("inbox", "--mbox", str(tmp_path), "--security", "bogus"), 2)
    rc, _, err = run_cli(["new", "g2", "--player", f"alice={alice.key}.pub", "--sides", "carl=x",
                          "--out", str(tmp_path / "g2.toml")], tmp_path, home=alice.home)
    assert rc == 2 and "--sides names 'carl'" in err
    rc, _out, err = run_cli(["status", "--game", str(alice.dir / "game.toml")], tmp_path, home=alice.home)
    assert rc == 0, err


def test_resigning_before_the_game_starts_says_so(tmp_path):
    table = setup_game(tmp_path / "t")
    lonely = tmp_path / "lonely"
    shutil.copytree(table["alice"].dir, lonely)
    for join in (lonely / "side").glob("join-b*.toml"):
        join.unlink()
    (lonely / "state.toml").unlink(missing_ok=True)
    err = one_line(run_cli(["resign"], lonely, home=table["alice"].home), 5)
    assert "has not started" in err
    assert os.path.exists(lonely / "side")
