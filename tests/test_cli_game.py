"""Three players in separate directories play a freeform game through the real CLI alone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers import completed, run_cli

from pbem import chain, dice
from pbem.message import parse

PLAYERS = ("alice", "bob", "carol")


class Player:
    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.home = root / name / "home"
        self.dir = root / name / "game"
        self.home.mkdir(parents=True)
        self.env = {**os.environ, "PBEM_HOME": str(self.home), "PBEM_PASSPHRASE": f"pw-{name}", "COLUMNS": "200"}
        self.env.pop("SSH_CONNECTION", None)

    def run(self, *args: str, code: int = 0, cwd: Path | None = None) -> subprocess.CompletedProcess:
        result = completed(args, run_cli(list(args), cwd or self.dir, env=self.env))
        assert result.returncode == code, (args, result.returncode, result.stdout, result.stderr)
        return result

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "--json").stdout)

    def outbox(self, pattern: str) -> Path:
        found = sorted((self.dir / "outbox").glob(pattern))
        assert len(found) == 1, (pattern, found)
        return found[0]


def make_game(tmp_path: Path, dice_policy: str = "all", extra: tuple[str, ...] = ()) -> dict[str, Player]:
    players = {name: Player(tmp_path, name) for name in PLAYERS}
    for player in players.values():
        player.run("key", "new", "--comment", f"{player.name}@example", cwd=tmp_path)
    table = tmp_path / "morale.toml"
    table.write_text('rule = "house 4.2"\n"2-6" = "breaks"\n"7-12" = "holds"\n')
    host = players["alice"]
    args = ["new", "club-game", "--dice", dice_policy, "--table", f"morale={table}",
            "--out", str(tmp_path / "game.toml"), *extra]
    for player in players.values():
        args += ["--player", f"{player.name}={player.home / 'id_ed25519.pub'}"]
    result = host.run(*args, cwd=tmp_path)
    for player in players.values():
        fingerprint = host.run("key", "show", "--key", str(player.home / "id_ed25519"), cwd=tmp_path).stdout
        assert fingerprint.splitlines()[1].split()[1] in result.stdout
    for player in players.values():
        player.run("join", str(tmp_path / "game.toml"), "--dir", str(player.dir), cwd=tmp_path)
    for player in players.values():
        others = [str(p.outbox("join-*.toml")) for p in players.values() if p is not player]
        player.run("apply", *others)
    return players


def deliver(path: Path, players, sender: Player, **kw) -> list[subprocess.CompletedProcess]:
    return [p.run("apply", str(path), **kw) for p in players.values() if p is not sender]


def test_three_players_play_through_the_cli(tmp_path):
    players = make_game(tmp_path)
    alice, bob, carol = players["alice"], players["bob"], players["carol"]
    assert alice.json("status")["step"] == {"kind": "decision", "waiting_for": ["alice"],
                                            "prompt": "alice's step in turn 1: roll, note, set, pass or end",
                                            **{k: v for k, v in alice.json("status")["step"].items()
                                               if k in ("since", "due", "overdue")}}

    alice.run("move", "set counter=vp value=3", 'roll dice=2d6 purpose="morale check" table=morale')
    move1 = alice.outbox("000001-move-alice.toml")
    deliver(move1, players, alice)
    status = carol.json("status")
    assert status["step"]["kind"] == "reveal"
    assert status["step"]["waiting_for"] == ["bob", "carol"]
    # A witness answers with his reveal; both others apply it.
    bob.run("apply", "--reveal")
    carol.run("apply", str(move1), "--reveal")
    for witness in (bob, carol):
        reveal = witness.outbox("000001-reveal-*.toml")
        deliver(reveal, players, witness)

    # Every player sees the same dice, and they follow pbem-dice-v1 from the public log alone.
    shown = {p.name: p.json("show") for p in players.values()}
    assert shown["alice"] == shown["bob"] == shown["carol"]
    roll = shown["alice"]["last_roll"]
    entry = parse(move1.read_bytes())
    values = [parse(p.outbox("000001-reveal-*.toml").read_bytes()).fields["value"] for p in (bob, carol)]
    seed = chain.roll_seed("club-game", 1, bytes.fromhex(entry.id), [bytes.fromhex(v) for v in values])
    stream = dice.Stream(seed)
    expected = [stream.die(6), stream.die(6)]
    assert roll["faces"] == expected and roll["total"] == sum(expected)
    assert roll["outcome"] == ("breaks" if sum(expected) <= 6 else "holds")
    assert shown["alice"]["counters"] == {"vp": 3} and shown["alice"]["next"] == "bob"

    explained = carol.json("verify", "--roll", "1")
    assert explained["seed"] == seed.hex()
    assert [w["player"] for w in explained["witnesses"]] == ["bob", "carol"]
    assert [d["result"] for d in explained["draws"]] == expected
    assert all(d["purpose"] == "morale check" and d["rule"] == "freeform.roll" for d in explained["draws"])
    assert "Roll point of seq 1" in carol.run("verify", "--roll", "1").stdout

    bob.run("move", "note text='Bob digs in.'", "pass")
    deliver(bob.outbox("000002-move-bob.toml"), players, bob)
    carol.run("move", "end result='alice wins on points'")
    deliver(carol.outbox("000003-move-carol.toml"), players, carol)

    heads = {p.name: p.json("verify")["head"] for p in players.values()}
    assert len(set(heads.values())) == 1
    assert alice.json("status")["step"] == {"kind": "over", "result": "alice wins on points"}
    rows = alice.json("log")
    assert [(r["seq"], r["player"]) for r in rows] == [(1, "alice"), (2, "bob"), (3, "carol")]
    assert rows[0]["orders"] == ["set counter=vp value=3", 'roll dice=2d6 purpose="morale check" table=morale']
    assert [d["result"] for d in rows[0]["dice"]] == expected
    assert rows[1]["uses"] == 2  # bob's entry consumed both reveals

    # The game is over: another move is refused, and nothing is written.
    before = sorted(p.name for p in (alice.dir / "entries").iterdir())
    refused = alice.run("move", "pass", code=1)
    assert "the game is over" in refused.stderr and refused.stderr.count("\n") == 1
    assert sorted(p.name for p in (alice.dir / "entries").iterdir()) == before

    for fmt in ("html", "svg", "text"):
        out = tmp_path / f"report.{fmt}"
        alice.run("report", f"--{fmt}", str(out))
        written = out.read_text()
        assert "alice wins on points" in written.replace("&#160;", " ")
        assert written.startswith({"html": "<!DOCTYPE html>", "svg": "<svg", "text": "╭"}[fmt])


def test_human_output_names_the_step(tmp_path):
    players = make_game(tmp_path)
    alice = players["alice"]
    assert "alice to move" in alice.run("status").stdout
    alice.run("move", "roll dice=d6 purpose=scouting")
    out = players["bob"].run("apply", str(alice.outbox("000001-move-alice.toml"))).stdout
    assert "applied move seq 1 by alice" in out
    assert "You witness the roll of seq 1" in out and "pbem apply --reveal" in out


def test_open_dice_resolve_at_once_and_verify(tmp_path):
    players = make_game(tmp_path, "open")
    alice, bob = players["alice"], players["bob"]
    alice.run("move", "roll dice=3d6 purpose=weather")
    move1 = alice.outbox("000001-move-alice.toml")
    deliver(move1, players, alice)
    roll = bob.json("show")["last_roll"]
    charter_digest = chain.sha256((tmp_path / "game.toml").read_bytes())
    stream = dice.Stream(chain.open_seed(charter_digest, bytes.fromhex(parse(move1.read_bytes()).id)))
    assert roll["faces"] == [stream.die(6) for _ in range(3)]
    assert bob.json("status")["step"]["waiting_for"] == ["bob"]


def test_opponents_policy_picks_witnesses_by_side(tmp_path):
    players = make_game(tmp_path, "opponents", ("--sides", "alice=allies", "--sides", "bob=allies",
                                                "--sides", "carol=central"))
    alice = players["alice"]
    alice.run("move", "roll dice=d6 purpose=raid")
    deliver(alice.outbox("000001-move-alice.toml"), players, alice)
    assert players["bob"].json("status")["step"]["waiting_for"] == ["carol"]
    players["bob"].run("apply", "--reveal", code=2)  # bob is alice's ally: no reveal owed


def test_resign_ends_a_two_way_race(tmp_path):
    players = make_game(tmp_path)
    alice, bob, carol = players["alice"], players["bob"], players["carol"]
    bob.run("resign", "--reason", "work")
    resign = bob.outbox("resign-bob.toml")
    deliver(resign, players, bob)
    alice.run("move", "pass")  # uses bob's resign
    entry = parse(alice.outbox("000001-move-alice.toml").read_bytes())
    assert entry.uses == [parse(resign.read_bytes()).id]
    deliver(alice.outbox("000001-move-alice.toml"), players, alice)
    assert carol.json("show")["resigned"] == ["bob"]
    assert carol.json("status")["step"]["waiting_for"] == ["carol"]
    carol.run("resign")
    deliver(carol.outbox("resign-carol.toml"), players, carol)
    # carol was to move and resigned: the first remaining participant signs an entry with only uses.
    alice.run("move")
    deliver(alice.outbox("000002-move-alice.toml"), players, alice)
    assert bob.json("status")["step"] == {"kind": "over", "result": "alice wins: carol resigned"}


def test_orders_from_a_file_and_from_the_editor_template(tmp_path):
    players = make_game(tmp_path)
    alice, bob = players["alice"], players["bob"]
    orders = tmp_path / "orders.toml"
    orders.write_text('[[orders]]\nkind = "set"\ncounter = "vp"\nadd = 2\n\n[[orders]]\nkind = "pass"\n')
    alice.run("move", "--file", str(orders))
    deliver(alice.outbox("000001-move-alice.toml"), players, alice)
    # The editor sees the legal orders as comments and writes TOML below them.
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\ngrep -q "roll" "$1" && grep -q "freeform.set" "$1" && '
                      "printf '[[orders]]\\nkind = \"note\"\\ntext = \"from the editor\"\\n' >> \"$1\"\n")
    editor.chmod(0o755)
    bob.env["EDITOR"] = str(editor)
    bob.run("move", "--edit")
    entry = parse(bob.outbox("000002-move-bob.toml").read_bytes())
    assert entry.orders == [{"kind": "note", "text": "from the editor"}]
    assert bob.json("show")["counters"] == {"vp": 2}


def test_show_lists_views_and_prints_the_same_data_as_json(tmp_path):
    players = make_game(tmp_path)
    carol = players["carol"]
    assert carol.json("show", "list") == {"state": "turn, whose step, counters, the last roll, the result",
                                         "tables": "the charter's result tables"}
    assert carol.json("show", "tables") == {"morale": [[2, 6, "breaks"], [7, 12, "holds"]]}
    shown = carol.run("show", "tables").stdout
    assert "2-6" in shown and "breaks" in shown and "7-12" in shown
    refused = carol.run("show", "nothing", code=2)
    assert refused.stderr == "error: field 'VIEW': no view 'nothing'; freeform has: state, tables\n"


def test_hostile_or_odd_input_gets_one_line_and_changes_nothing(tmp_path):
    players = make_game(tmp_path)
    alice = players["alice"]
    before = {p: p.read_bytes() for p in alice.dir.rglob("*") if p.is_file() and p.name != ".lock"}
    deep = tmp_path / "deep.toml"
    deep.write_text("pbem = 1\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    refused = alice.run("apply", str(deep), code=2)
    assert refused.stderr.startswith("error: ") and "nested too deeply" in refused.stderr
    assert refused.stderr.count("\n") == 1
    for value in ("1.5", "{a=1}", "1979-05-27", "[[1]]"):  # no message may carry these (protocol §3.3)
        refused = alice.run("move", f"set counter=x value=1 bonus={value}", code=2)
        assert refused.stderr.count("\n") == 1 and "orders[1].bonus" in refused.stderr, refused.stderr
    refused = alice.run("move", "set counter=x value=1.5", code=1)  # a declared integer field: the rule says no
    assert "field 'orders[1].value', rule freeform.set: must be a whole number" in refused.stderr
    charter = tmp_path / "odd.toml"
    top = (tmp_path / "game.toml").read_text().split("\n[")[0]  # the keys before the first table
    charter.write_text(top + "\nplayers = 5\n")
    refused = alice.run("join", str(charter), "--dir", str(tmp_path / "odd"), cwd=tmp_path, code=2)
    assert refused.stderr.count("\n") == 1 and "field 'players': must be [[players]] tables" in refused.stderr
    after = {p: p.read_bytes() for p in alice.dir.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


def test_verify_fails_while_the_game_is_stopped_by_a_fork(tmp_path):
    players = make_game(tmp_path)
    alice = players["alice"]
    (alice.dir / "forks").mkdir()
    (alice.dir / "forks" / "move-bob-0123.toml").write_text("proof\n")
    refused = alice.run("verify", code=4)
    assert "the game is stopped: proof of equivocation" in refused.stderr
