"""What one player's machine guarantees on its own: one reveal per seq across his game directories,
commands only in a real game directory, and a batch of files where one bad file spoils nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import cli_env, copy_game, run_cli, setup_game, write

from pbem.game import SeedStore

ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "assault"}]
NOTE = [{"kind": "note", "text": "another plan"}, {"kind": "roll", "dice": "d6", "purpose": "other"}]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return setup_game(tmp_path_factory.mktemp("template"))


@pytest.fixture
def table(template, tmp_path):
    return copy_game(template, tmp_path)


def one_line(result, code: int) -> str:
    rc, out, err = result
    assert rc == code, (rc, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


# ---------------------------------------------------------------------------- 3. the reveal record

def bob_sees_two_versions(table, tmp_path):
    """alice forks seq 1: bob's usual directory gets X, a second directory of his (same PBEM_HOME)
    gets Y. Returns the two directories."""
    bob = table["bob"]
    other = tmp_path / "bob-laptop"
    shutil.copytree(bob.dir, other)
    (other / ".lock").unlink(missing_ok=True)
    x = table.draft("alice", ROLL)
    y = table.draft("alice", NOTE)
    for folder, entry in ((bob.dir, x), (other, y)):
        assert run_cli(["apply", str(write(tmp_path / f"{entry.id}.toml", entry.stored()))], folder,
                       home=bob.home)[0] == 0
    return bob.dir, other


def reveals_in(folder: Path) -> list[Path]:
    return sorted((folder / "outbox").glob("000001-reveal-*"))


def test_two_directories_sharing_a_home_reveal_once_between_them(table, tmp_path):
    """Hardening 3: `apply --reveal` in both directories at once: exactly one signs."""
    first, second = bob_sees_two_versions(table, tmp_path)
    env = cli_env(table["bob"].home)
    runs = [subprocess.Popen([sys.executable, "-m", "pbem.cli", "apply", "--reveal"], cwd=folder, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for folder in (first, second)]
    codes = sorted(run.wait(timeout=60) for run in runs)
    assert codes == [0, 4]
    assert len(reveals_in(first) + reveals_in(second)) == 1


def test_the_record_lock_is_held_across_check_and_claim(table, tmp_path):
    """Hardening 3: while another pbem holds the record, a reveal waits; once that one has claimed
    seq 1 for another entry, this one refuses and signs nothing."""
    first, second = bob_sees_two_versions(table, tmp_path)
    bob = table["bob"]
    game = bob.game()
    store = SeedStore(game.charter, "bob", bob.home)
    other_entry = next(iter((second / "entries").glob("*.toml")))
    from pbem.message import parse

    with store.locked():
        waiting = subprocess.Popen([sys.executable, "-m", "pbem.cli", "apply", "--reveal"], cwd=first,
                                   env=cli_env(bob.home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        assert waiting.poll() is None and not reveals_in(first)  # it waits for the record
        store.add_to_record(1, parse(other_entry.read_bytes()).id)
    assert waiting.wait(timeout=60) == 4
    assert "you already revealed for seq 1" in waiting.stderr.read().decode()
    assert not reveals_in(first)


# ---------------------------------------------------------------------------- 11. the game directory

def test_a_folder_holding_only_the_charter_is_not_a_game_directory(table, tmp_path):
    """Hardening 11: `status` and `apply` where the host wrote game.toml name the game directory and
    write nothing there (no side/, no lock)."""
    host = tmp_path / "host"
    host.mkdir()
    shutil.copy(table.charter_path, host / "game.toml")
    alice_dir = host / "alice"
    shutil.copytree(table["alice"].dir, alice_dir)
    for command in (["status"], ["apply"], ["move", "pass"]):
        err = one_line(run_cli(command, host, home=table["alice"].home), 2)
        assert "is not a game directory" in err and "no me.toml" in err and str(alice_dir) in err
    assert sorted(p.name for p in host.iterdir()) == ["alice", "game.toml"]


def test_an_empty_folder_names_the_game_directory_above_it(table):
    inside = table["alice"].dir / "outbox"
    err = one_line(run_cli(["status"], inside, home=table["alice"].home), 2)
    assert f"the nearest game directory is {table['alice'].dir.resolve()}" in err


# ---------------------------------------------------------------------------- 12, 13. apply

def test_a_batch_with_one_bad_file_applies_the_good_ones(table, tmp_path):
    """Hardening 12: each good file applies, each bad one is named, and the exit code is the worst."""
    _first, path = table.move("alice", ROLL, to=[])
    broken = write(tmp_path / "broken.toml", b"pbem = 1\ntype = \"move\"\n")
    carol = table["carol"]
    rc, out, err = carol.cli("apply", str(path), str(broken))
    assert rc == 2, (rc, out, err)
    assert "applied move seq 1 by alice" in out
    assert err.count("\n") == 1 and f"refused {broken}" in err
    assert (carol.dir / "entries" / "000001.toml").exists()


def test_apply_prints_the_dice_when_it_brings_the_last_reveal(table):
    """Hardening 13: the apply that completes a roll shows everyone the dice at once."""
    _first, _ = table.move("alice", ROLL)
    _, _bob_reveal = table.reveal("bob", to=["alice"])
    _, carol_reveal = table.reveal("carol", to=["bob"])
    rc, out, err = table["alice"].cli("apply", str(carol_reveal))
    assert rc == 0, err
    assert "roll point of seq 1" in out and "d6→" in out


def test_a_batch_reports_what_a_later_file_completed(table, tmp_path):
    """Audit of hardening 12: bob's reveal arrives before alice's entry in one batch with a forged
    file; the reveal ends applied (not 'held'), and the forgery's exit 3 is not hidden by a 5."""
    _first, entry_path = table.move("alice", ROLL, to=[])
    table.deliver(entry_path, ["bob"])
    _, reveal_path = table.reveal("bob", to=[])
    forged = write(tmp_path / "forged.toml", entry_path.read_bytes().replace(b"2d6", b"3d6"))
    carol = table["carol"]
    rc, out, err = carol.cli("apply", str(forged), str(reveal_path), str(entry_path))
    assert rc == 3, (rc, out, err)
    assert "held" not in out and "applied reveal seq 1 by bob" in out
    assert (carol.dir / "side" / "reveal-bob-000001.toml").exists()
    assert not (carol.dir / "held").exists() or not list((carol.dir / "held").iterdir())


def test_files_saved_with_a_byte_order_mark_are_read(table, tmp_path):
    """Audit of hardening 13: orders, tables and the charter, as a Windows editor saves them."""
    bom = "\ufeff"
    orders = tmp_path / "orders.toml"
    orders.write_text(bom + '[[orders]]\nkind = "note"\ntext = "from windows"\n\n[[orders]]\nkind = "pass"\n',
                      encoding="utf-8")
    alice = table["alice"]
    rc, _, err = alice.cli("move", "--file", str(orders))
    assert rc == 0, err
    table_file = tmp_path / "morale.toml"
    table_file.write_text(bom + '"2-6" = "breaks"\n"7-12" = "holds"\n', encoding="utf-8")
    rc, _, err = run_cli(["new", "bom-game", "--player", f"alice={alice.key}.pub", "--table",
                            f"morale={table_file}", "--out", str(tmp_path / "bom.toml")], tmp_path, home=alice.home)
    assert rc == 0, err
    charter = tmp_path / "bom.toml"
    charter.write_text(bom + charter.read_text(), encoding="utf-8")
    rc, _out, err = run_cli(["join", str(charter), "--dir", str(tmp_path / "bom-game"), "--key", str(alice.key)],
                           tmp_path, home=tmp_path / "bom-home")
    assert rc == 0, err
    assert run_cli(["status"], tmp_path / "bom-game", home=tmp_path / "bom-home")[0] == 0


def test_your_own_reveal_that_completes_the_roll_shows_the_dice(table):
    """Audit of hardening 13: the witness whose reveal is the last sees the dice at once."""
    _first, _ = table.move("alice", ROLL)
    _, _bob_reveal = table.reveal("bob", to=["carol"])
    rc, out, err = table["carol"].cli("apply", "--reveal")
    assert rc == 0, err
    assert "roll point of seq 1" in out and "d6→" in out
