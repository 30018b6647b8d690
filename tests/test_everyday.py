"""Everyday use through the real CLI: keys and files as players' tools make them, what `verify` says
about roll points, and reading a long log or report.

Games are set up in-process (helpers.setup_game) and every command under test runs as `pbem`
(helpers.run_cli: its main() with the arguments, directory, environment and stdin a player's would have).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import NAMES, Table, cli_env, copy_game, run_cli, setup_game

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "opening"}
ROW = re.compile(r"^│\s*(\d+) │", re.MULTILINE)  # a row of the log table: its seq


@pytest.fixture(scope="module")
def started(tmp_path_factory) -> Table:
    """A started three-player game, dice witnessed by all."""
    return setup_game(tmp_path_factory.mktemp("everyday"))


@pytest.fixture(scope="module")
def long_game(tmp_path_factory) -> Table:
    """25 entries with open dice: each player in turn notes and rolls, and the roll resolves at once."""
    table = setup_game(tmp_path_factory.mktemp("long"), dice="open")
    alice = table["alice"]
    game = alice.game()
    for index in range(25):
        name = NAMES[index % 3]
        game.move(name, [{"kind": "note", "text": f"turn {index + 1}"}, ROLL], table[name].signer)
    return table


# ------------------------------------------------------------------------------------------ keys

def test_a_public_key_saved_by_a_windows_editor_is_read(started, tmp_path):
    """A .pub file with a UTF-8 byte order mark and CRLF, as Notepad saves it, names the same key."""
    alice = started["alice"]
    line = alice.signer.public.line()
    (tmp_path / "alice.pub").write_bytes(("\ufeff" + line + "\r\n").encode())
    code, out, err = run_cli(["new", "bom-game", "--player", f"alice={tmp_path / 'alice.pub'}", "--player",
                              f"bob={started['bob'].key}.pub"], tmp_path, home=alice.home)
    assert code == 0, (out, err)
    assert alice.signer.public.fingerprint() in out


def test_join_with_a_protected_key_and_no_terminal_names_pbem_passphrase(started, tmp_path):
    home = tmp_path / "dora-home"
    secret = {**cli_env(home), "PBEM_PASSPHRASE": "correct horse"}
    key = tmp_path / "dora_ed25519"
    assert run_cli(["key", "new", "--out", key, "--comment", "dora@example.test"], tmp_path, env=secret)[0] == 0
    code, out, err = run_cli(["new", "locked-game", "--player", f"dora={key}.pub", "--player",
                              f"bob={started['bob'].key}.pub"], tmp_path, home=home)
    assert code == 0, (out, err)
    code, out, err = run_cli(["join", "game.toml", "--dir", "dora", "--key", key], tmp_path, home=home)
    assert code == 2 and err == (f"error: field '--key': key {key} is passphrase-protected and no passphrase was "
                                 "given: set PBEM_PASSPHRASE, or run pbem where it can ask you (a terminal)\n")
    assert not (tmp_path / "dora").exists()
    assert run_cli(["join", "game.toml", "--dir", "dora", "--key", key], tmp_path, env=secret)[0] == 0


def test_the_public_key_line_is_one_line_however_long(tmp_path):
    """Piped to a file, `key new` and `key show` print the key line whole, to be pasted as it is."""
    comment = "commander of the third corps, " * 10 + "dora@example.test"
    key = tmp_path / "dora_ed25519"
    code, out, err = run_cli(["key", "new", "--no-passphrase", "--out", key, "--comment", comment], tmp_path,
                             home=tmp_path)
    line = Path(f"{key}.pub").read_text().strip()
    assert code == 0 and len(line) > 300 and out.splitlines()[1] == line, (out, err)
    code, out, err = run_cli(["key", "show", "--key", key], tmp_path, home=tmp_path)
    assert code == 0 and out.splitlines()[0] == line, (out, err)


# ------------------------------------------------------------------------------------------ verify

def test_verify_counts_roll_points_and_names_whom_a_roll_waits_for(started, tmp_path):
    game = copy_game(started, tmp_path)
    alice = game["alice"]
    first, _ = game.move("alice", [ROLL])
    game.reveal("bob")

    code, out, err = alice.cli("verify")
    assert code == 0 and "3 joins, 1 roll point (seq 1 waiting for reveals from carol);" in out, (out, err)
    code, out, err = alice.cli("verify", "--roll", "1")
    assert (code, out) == (5, "") and err == (f"error: move {first.id[:12]} (seq 1), player alice, field '--roll': "
                                              "its roll point is waiting for reveals from carol: no dice yet\n")

    game.reveal("carol")  # every witness has revealed: the head's roll is resolved, though no entry used it yet
    code, out, err = alice.cli("verify", "--json")
    assert code == 0 and (json.loads(out)["rolls"], json.loads(out)["waiting"]) == (1, None), (out, err)
    game.move("bob", [{"kind": "pass"}])
    assert "2 entries, 3 joins, 1 roll point;" in alice.cli("verify")[1]
    code, out, err = alice.cli("verify", "--roll", "2")
    assert code == 2 and err == "error: field '--roll': entry 2 opened no roll point\n"
    code, out, err = alice.cli("verify", "--roll", "9")
    assert code == 2 and err == "error: field '--roll': there is no entry 9: the log ends at seq 2\n"
    code, out, err = alice.cli("verify", "--roll", "1", "--json")
    assert code == 0 and json.loads(out)["entry"] == first.id, (out, err)


# ------------------------------------------------------------------------------------------ log and report

def test_report_without_a_file_prints_the_text_report(started, tmp_path):
    game = copy_game(started, tmp_path)
    game.move("alice", [ROLL])
    code, out, err = game["alice"].cli("report")
    assert code == 0, (out, err)
    assert "pbem status" in out and "Roll point of seq 1" in out and ROW.findall(out) == ["1"]
    assert not list(game["alice"].dir.glob("*.txt"))


def test_the_report_shows_the_last_20_entries_and_says_how_to_see_more(long_game):
    alice = long_game["alice"]
    code, out, err = alice.cli("report")
    assert code == 0, (out, err)
    assert ROW.findall(out) == [str(seq) for seq in range(6, 26)]
    assert ("Entries 6–25 of 25. 'pbem report --last N' or 'pbem report --since SEQ' shows others "
            "('--since 1': all of them).") in out
    assert ROW.findall(alice.cli("report", "--last", "3")[1]) == ["23", "24", "25"]
    code, out, err = alice.cli("report", "--since", "1", "--text", "all.txt")
    everything = (alice.dir / "all.txt").read_text()
    assert code == 0 and ROW.findall(everything) == [str(seq) for seq in range(1, 26)] and "Entries" not in everything


def test_log_takes_the_last_entries_or_those_since_a_seq(long_game):
    alice = long_game["alice"]
    code, out, err = alice.cli("log", "--json")
    every = json.loads(out)
    assert code == 0 and [row["seq"] for row in every] == list(range(1, 26)), err
    assert json.loads(alice.cli("log", "--last", "3", "--json")[1]) == every[-3:]  # the same dice, seen alone
    assert json.loads(alice.cli("log", "--since", "24", "--json")[1]) == every[-2:]
    code, out, err = alice.cli("log", "--last", "2")
    assert code == 0 and ROW.findall(out) == ["24", "25"]
    assert "Entries 24–25 of 25. 'pbem log --last N' or 'pbem log --since SEQ' shows others" in out
    code, out, err = alice.cli("log", "--last", "2", "--since", "3")
    assert code == 2 and err == "error: field '--last': give --last N or --since SEQ, not both\n"
