"""PROTOCOL.md §9, the error matrix, through the real CLI (`pbem apply`, `pbem move`, `pbem verify`).

Every case checks the exact exit code; that stderr is exactly one line starting with "error: " and
naming the message (its seq or id prefix), the player, and the field or rule at fault; and that the
game directory is byte for byte as it was, except where the protocol says otherwise (held/ for a
held message, forks/ for the proof of a fork).

"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest
from helpers import (
    GAME_ID,
    changes,
    copy_game,
    forge,
    run_cli,
    setup_game,
    snapshot,
    stored,
    write,
)

from pbem import chain, keys
from pbem.message import normalise

ROLL = [
    {"kind": "set", "counter": "vp", "value": 2},
    {"kind": "roll", "dice": "2d6", "purpose": "morale of the guard", "table": "morale"},
]
NOTE = [{"kind": "note", "text": "hello"}, {"kind": "pass"}]


# ------------------------------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return setup_game(tmp_path_factory.mktemp("template"))


@pytest.fixture
def table(template, tmp_path):
    return copy_game(template, tmp_path)


@pytest.fixture
def first(table):
    """alice's valid seq 1 (a counter and a roll on the morale table), signed, applied nowhere."""
    return table.draft("alice", ROLL)


# ------------------------------------------------------------------------------------ checks

def body_id(data: bytes) -> str:
    """The id (§3) of any message file: SHA-256 of its normalised bytes."""
    return hashlib.sha256(normalise(data.decode("utf-8", "replace"))).hexdigest()


class NotOneLine(AssertionError):
    """stderr is not exactly one line."""


def one_error_line(result, code: int) -> str:
    rc, out, err = result
    assert rc == code, f"exit {rc}, expected {code}\nstdout: {out!r}\nstderr: {err!r}"
    assert err.startswith("error: "), err
    if not (err.endswith("\n") and err.count("\n") == 1 and "\r" not in err):
        raise NotOneLine(f"not one line: {err!r}")
    return err


class NotNamed(AssertionError):
    """The error line does not name the message, player, field or rule (the §9 naming check)."""


def names(line: str, *, seq: int | None = None, ids=(), player: str | None = None, field: str | None = None,
          rule: str | None = None) -> None:
    """The line names the message (seq or id prefix), the player, the field and the rule."""
    if (seq is not None or ids) and not ((seq is not None and f"seq {seq}" in line) or
                                         any(i[:12] in line for i in ids)):
        raise NotNamed(f"names neither seq {seq} nor id {[i[:12] for i in ids]}: {line!r}")
    if player is not None and f"player {player}" not in line:
        raise NotNamed(f"does not name player {player}: {line!r}")
    if field is not None and f"field '{field}'" not in line:
        raise NotNamed(f"does not name field {field!r}: {line!r}")
    if rule is not None and f"rule {rule}" not in line:
        raise NotNamed(f"does not name rule {rule!r}: {line!r}")




def unchanged(before: dict, directory: Path) -> None:
    after = snapshot(directory)
    assert after == before, changes(before, after)


def apply(player, path: Path):
    """`pbem apply FILE` in the player's directory; returns (result, snapshot before)."""
    before = snapshot(player.dir)
    return player.cli("apply", str(path)), before


def with_line(body: bytes, key: str, line: str) -> bytes:
    """The body with the first `key = …` line replaced by `line`."""
    new, count = re.subn(rb"^" + re.escape(key.encode()) + rb" = .*$", line.encode(), body, count=1, flags=re.M)
    assert count == 1, key
    return new


# ============================================================================ 2: unreadable input





def test_malformed_toml(table, first):
    """The player cannot be known from text that does not parse, but the id (§3) always can."""
    bob = table["bob"]
    data = first.stored().replace(b"seq = 1\n", b"seq = = 1\n")
    result, before = apply(bob, write(table.root / "malformed.toml", data))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    assert "malformed TOML" in line and "line 5" in line and "malformed.toml" in line, line
    names(line, ids=[body_id(data)])


def oversized(first, signer) -> bytes:
    padding = b"".join(b"# padding %05d %s\n" % (i, b"x" * 60) for i in range(1000))
    return stored(first.body + padding, signer)


def test_oversized_message(table, first):
    """§3, §8: a message over 64 KiB is refused (exit 2)."""
    bob = table["bob"]
    data = oversized(first, table["alice"].signer)
    result, before = apply(bob, write(table.root / "big.toml", data))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    assert "64 KiB" in line, line
    names(line, ids=[body_id(data)])


TRUNCATIONS = {
    # where the file is cut -> what the line must name
    "mid-armor": (lambda t: t[: t.index(b"-----END") - 30], {"field": "signature"}),
    "after-begin-line": (lambda t: t[: t.index(b"# -----BEGIN")] + b"# -----BEGIN SSH SIGNATURE-----\n",
                         {"field": "signature"}),
    "before-state-line": (lambda t: t[: t.index(b"state = ")], {"field": "state"}),
    "mid-salt-value": (lambda t: t[: t.index(b"salt = ") + 20], {"text": "malformed TOML"}),
}


@pytest.mark.parametrize("where", [
    w for w in TRUNCATIONS])
def test_truncated_file(table, first, where):
    bob = table["bob"]
    cut, expect = TRUNCATIONS[where]
    data = cut(first.stored())
    result, before = apply(bob, write(table.root / "truncated.toml", data))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    if "text" in expect:  # unparseable: named by file and id only
        assert expect["text"] in line and "truncated.toml" in line, line
        names(line, ids=[body_id(data)])
    else:
        names(line, seq=1, ids=[body_id(data)], player="alice", field=expect["field"])


# (edit of alice's valid body, the field that must be named, the player named)
BAD_FIELDS = {
    "unknown-key": (lambda b: b.replace(b"\n\n[[orders]]", b'\ncolor = "red"\n\n[[orders]]', 1), "color", "alice"),
    "unknown-key-in-header": (lambda b: b.replace(b"pbem = 1\n", b"pbem = 1\nversion = 2\n"), "version", "alice"),
    "wrong-type-salt": (lambda b: with_line(b, "salt", "salt = 12"), "salt", "alice"),
    "wrong-type-time": (lambda b: with_line(b, "time", 'time = "2026-11-22T10:31:00Z"'), "time", "alice"),
    "time-not-utc": (lambda b: with_line(b, "time", "time = 2026-11-22T10:31:00+01:00"), "time", "alice"),
    "wrong-type-order-value": (lambda b: with_line(b, "value", "value = 2.5"), "orders[1].value", "alice"),
    "wrong-type-uses": (lambda b: b.replace(b"\n\n[[orders]]", b'\nuses = "ab"\n\n[[orders]]', 1), "uses", "alice"),
    "wrong-type-seq": (lambda b: with_line(b, "seq", 'seq = "1"'), "seq", "alice"),
    "bad-name-player": (lambda b: with_line(b, "player", 'player = "Alice"'), "player", "Alice"),
    "bad-name-game": (lambda b: with_line(b, "game", 'game = "err game"'), "game", "alice"),
    "bad-name-order-kind": (lambda b: b.replace(b'kind = "roll"', b'kind = "Roll"'), "orders[2].kind", "alice"),
    "unknown-type": (lambda b: with_line(b, "type", 'type = "moove"'), "type", "alice"),
    "uppercase-hex": (lambda b: re.sub(rb'salt = "([0-9a-f]+)"', lambda m: b'salt = "' + m.group(1).upper() + b'"', b),
                      "salt", "alice"),
    "short-hash": (lambda b: re.sub(rb'prev = "([0-9a-f]+)[0-9a-f]"', rb'prev = "\1"', b), "prev", "alice"),
    "missing-field": (lambda b: re.sub(rb"^salt = .*\n", b"", b, flags=re.M), "salt", "alice"),
}
@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_bad_field(table, first, case):
    """§3: unknown keys, wrong types, bad names and hex are rejected with exit 2 and the field named."""
    bob, alice = table["bob"], table["alice"]
    edit, field, player = BAD_FIELDS[case]
    data = stored(edit(first.body), alice.signer)
    result, before = apply(bob, write(table.root / f"{case}.toml", data))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    names(line, ids=[body_id(data)], player=player, field=field)  # the id, even when seq itself is bad


@pytest.mark.parametrize("where", ["top-level", "in-order"])
def test_error_with_newline_in_key_is_one_line(table, first, where):
    """A field name taken from the input (a quoted key "bad\\nkey") must not break the one-line error."""
    bob, alice = table["bob"], table["alice"]
    if where == "top-level":
        body = first.body.replace(b"\n\n[[orders]]", b'\n"bad\\nkey" = 1\n\n[[orders]]', 1)
    else:
        body = first.body.replace(b'kind = "set"', b'kind = "set"\n"bad\\nkey" = 1')
    result, before = apply(bob, write(table.root / "newline.toml", stored(body, alice.signer)))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    names(line, seq=1, player="alice")
    assert "bad key" in line, line


def test_message_for_another_game(table, first):
    bob, alice = table["bob"], table["alice"]
    other = forge(first.fields, {"game": "other-game"}, alice.signer)
    result, before = apply(bob, write(table.root / "other.toml", other))
    line = one_error_line(result, 2)
    names(line, seq=1, ids=[other.id], player="alice", field="game")
    assert "other-game" in line and GAME_ID in line, line
    unchanged(before, bob.dir)


# ============================================================================ 3: signatures

def test_missing_signature(table, first):
    bob = table["bob"]
    result, before = apply(bob, write(table.root / "unsigned.toml", first.body))
    line = one_error_line(result, 3)
    unchanged(before, bob.dir)
    names(line, seq=1, player="alice", field="signature")
    names(line, ids=[first.id])  # its id is the signed move's: the signature is not part of it (§3)


@pytest.mark.parametrize("signer", ["bob", "outsider"])
def test_wrong_signature(table, first, signer):
    """alice's message signed by another key than her roster key."""
    bob = table["bob"]
    key = table["bob"].signer if signer == "bob" else keys.FileSigner.from_seed(bytes([9]) * 32, "mallory")
    result, before = apply(bob, write(table.root / "wrong-key.toml", stored(first.body, key)))
    names(one_error_line(result, 3), seq=1, ids=[first.id], player="alice", field="signature")
    unchanged(before, bob.dir)


def _armor_flip(data: bytes) -> bytes:
    lines = data.split(b"\n")
    begin = lines.index(b"# -----BEGIN SSH SIGNATURE-----")
    line = bytearray(lines[begin + 3])  # the third armor line holds the raw Ed25519 signature
    line[40] = ord("B") if line[40] != ord("B") else ord("C")
    lines[begin + 3] = bytes(line)
    return b"\n".join(lines)


BYTE_CHANGES = {
    "order-text": lambda t: t.replace(b"morale of the guard", b"morale of the guarc"),
    "salt-digit": lambda t: re.sub(rb'salt = "(.)', lambda m: b'salt = "' + (b"0" if m.group(1) != b"0" else b"1"), t),
    "order-value": lambda t: t.replace(b"value = 2\n", b"value = 3\n"),
    "time": lambda t: re.sub(rb"(time = \S+)\dZ", rb"\g<1>7Z", t) if not re.search(rb"time = \S+7Z", t)
    else re.sub(rb"(time = \S+)\dZ", rb"\g<1>8Z", t),
    "armor": _armor_flip,
}


@pytest.mark.parametrize("what", list(BYTE_CHANGES))
def test_byte_changed_after_signing(table, first, what):
    bob = table["bob"]
    data = BYTE_CHANGES[what](first.stored())
    assert data != first.stored()
    result, before = apply(bob, write(table.root / "changed.toml", data))
    names(one_error_line(result, 3), seq=1, ids=[body_id(data)], player="alice", field="signature")
    unchanged(before, bob.dir)


@pytest.mark.parametrize("value", ["random", "next-seq-value", "anchor"])
def test_reveal_does_not_chain(table, value):
    """carol's reveal for seq 1 with a value that does not hash forward to her anchor (§6)."""
    table.move("alice", ROLL)
    carol = table["carol"]
    honest, _ = carol.game().reveal("carol", lambda: carol.signer)  # signed in her directory, mailed to nobody
    seeds = carol.game().seed_store("carol").load()
    bad = {
        "random": hashlib.sha256(b"not on the chain").hexdigest(),
        "next-seq-value": chain.chain_value(seeds["chain"], 2).hex(),  # hashes forward to value(1), not the anchor
        "anchor": chain.anchor(seeds["chain"]).hex(),
    }[value]
    forged = forge(honest.fields, {"value": bad}, carol.signer)
    bob = table["bob"]
    result, before = apply(bob, write(table.root / "reveal.toml", forged))
    names(one_error_line(result, 3), seq=1, ids=[forged.id], player="carol", field="value")
    unchanged(before, bob.dir)


@pytest.mark.parametrize("what", ["entry", "reveal"])
def test_altered_copy_of_a_stored_message(table, what):
    """A copy of a message already in the log, changed after signing, is a bad signature (3), not a
    fork: nothing goes to forks/ and the game goes on (regression: it used to stop the game)."""
    _entry, entry_path = table.move("alice", ROLL)
    _reveal, reveal_path = table.reveal("carol")
    source = entry_path if what == "entry" else reveal_path
    data = source.read_bytes().replace(b"seq = 1\n", b"seq = 1\n\n")  # a blank line: a new id, still parseable
    bob = table["bob"]
    result, before = apply(bob, write(table.root / "altered.toml", data))
    line = one_error_line(result, 3)
    unchanged(before, bob.dir)
    names(line, seq=1, ids=[body_id(data)], player=("alice" if what == "entry" else "carol"), field="signature")
    rc, out, err = bob.cli("apply", str(source))  # not stopped: the genuine message is still a duplicate
    assert (rc, err) == (0, ""), (rc, out, err)


# ============================================================================ 1: illegal or out of turn

def test_out_of_turn_apply(table, first):
    """bob signs seq 1 while alice is to move."""
    bob = table["bob"]
    entry = forge(first.fields, {"player": "bob"}, bob.signer)
    carol = table["carol"]
    result, before = apply(carol, write(table.root / "bob-1.toml", entry))
    names(one_error_line(result, 1), seq=1, ids=[entry.id], player="bob", field="player", rule="PROTOCOL §5")
    unchanged(before, carol.dir)


def test_out_of_turn_move(table):
    bob = table["bob"]
    before = snapshot(bob.dir)
    result = bob.cli("move", "note text=hi")
    names(one_error_line(result, 1), seq=1, player="bob", field="player", rule="PROTOCOL §5")
    unchanged(before, bob.dir)


ILLEGAL = {
    # order -> (field, rule)
    "bad-dice": ({"kind": "roll", "dice": "2d", "purpose": "attack"}, "orders[1].dice", "freeform.roll"),
    "unknown-table": ({"kind": "roll", "dice": "2d6", "purpose": "attack", "table": "crt"},
                      "orders[1].table", "freeform.table"),
    "unknown-kind": ({"kind": "fly", "to": "moon"}, "orders[1].kind", "freeform.order"),
}


def _cli_order(order: dict) -> str:
    return " ".join([order["kind"]] + [f"{k}={v}" for k, v in order.items() if k != "kind"])


@pytest.mark.parametrize("case", list(ILLEGAL))
def test_illegal_order_move(table, case):
    order, field, rule = ILLEGAL[case]
    alice = table["alice"]
    before = snapshot(alice.dir)
    result = alice.cli("move", _cli_order(order))
    names(one_error_line(result, 1), seq=1, player="alice", field=field, rule=rule)
    unchanged(before, alice.dir)


@pytest.mark.parametrize("case", list(ILLEGAL))
def test_illegal_order_apply(table, first, case):
    order, field, rule = ILLEGAL[case]
    entry = forge(first.fields, {"orders": [order]}, table["alice"].signer)
    bob = table["bob"]
    result, before = apply(bob, write(table.root / "illegal.toml", entry))
    names(one_error_line(result, 1), seq=1, ids=[entry.id], player="alice", field=field, rule=rule)
    unchanged(before, bob.dir)


def test_order_after_roll_move(table):
    alice = table["alice"]
    before = snapshot(alice.dir)
    result = alice.cli("move", "roll dice=2d6 purpose=attack", "note text=after")
    names(one_error_line(result, 1), seq=1, player="alice", field="orders[2]", rule="PROTOCOL §5")
    unchanged(before, alice.dir)


def test_order_after_roll_apply(table, first):
    orders = [{"kind": "roll", "dice": "2d6", "purpose": "attack"}, {"kind": "set", "counter": "vp", "add": 1}]
    entry = forge(first.fields, {"orders": orders}, table["alice"].signer)
    bob = table["bob"]
    result, before = apply(bob, write(table.root / "after-roll.toml", entry))
    names(one_error_line(result, 1), seq=1, ids=[entry.id], player="alice", field="orders[2]", rule="PROTOCOL §5")
    unchanged(before, bob.dir)


# ============================================================================ 4: forks, links, hashes

def test_stale_move_is_a_fork(table):
    """Another entry already holds seq 1: both are kept in forks/ and the game stops (exit 4)."""
    bob = table["bob"]
    kept, kept_path = table.move("alice", NOTE, to=["bob"])
    other = table.draft("alice", ROLL, in_dir="carol")  # alice's other seq 1, signed against genesis
    assert other.seq == kept.seq == 1 and other.id != kept.id
    other_path = write(table.root / "other-1.toml", other)
    result, before = apply(bob, other_path)
    names(one_error_line(result, 4), seq=1, ids=[other.id], player="alice", field="seq")
    after = snapshot(bob.dir)
    diff = changes(before, after)
    assert diff["removed"] == diff["changed"] == [], diff
    assert all(p.startswith("forks/") for p in diff["added"]) and len(diff["added"]) == 2, diff
    assert sorted(after[p] for p in diff["added"]) == sorted([kept_path.read_bytes(), other_path.read_bytes()])
    # The game is stopped: every later apply or move exits 4 and writes nothing.
    for args in (["apply", str(kept_path)], ["apply", str(other_path)], ["move", "note text=later"]):
        line = one_error_line(bob.cli(*args), 4)
        assert "stopped" in line and "forks" in line, line
        unchanged(after, bob.dir)


@pytest.mark.parametrize("case", ["random-prev-at-seq-1", "genesis-at-seq-2"])
def test_wrong_prev(table, first, case):
    bob = table["bob"]
    if case == "random-prev-at-seq-1":
        entry = forge(first.fields, {"prev": "ab" * 32}, table["alice"].signer)
        seq = 1
    else:
        table.move("alice", NOTE)
        good = table.draft("bob", NOTE)
        entry = forge(good.fields, {"prev": table["bob"].game().engine().genesis}, bob.signer)
        seq = 2
    carol = table["carol"]
    result, before = apply(carol, write(table.root / "prev.toml", entry))
    names(one_error_line(result, 4), seq=seq, ids=[entry.id], player=entry.player, field="prev")
    unchanged(before, carol.dir)


def test_wrong_state_hash(table, first):
    bob = table["bob"]
    entry = forge(first.fields, {"state": hashlib.sha256(b"another state").hexdigest()}, table["alice"].signer)
    result, before = apply(bob, write(table.root / "state.toml", entry))
    names(one_error_line(result, 4), seq=1, ids=[entry.id], player="alice", field="state")
    unchanged(before, bob.dir)


def test_seq_zero_is_not_a_fork(table, first):
    """A signed move for seq 0 is refused (no entry holds seq 0, so it proves no fork): nothing goes to
    forks/ (regression: it was reported as 'fork: seq 0 already holds ? by ?' and stopped the game)."""
    bob = table["bob"]
    entry = forge(first.fields, {"seq": 0}, table["alice"].signer)
    result, before = apply(bob, write(table.root / "seq0.toml", entry))
    line = one_error_line(result, 2)
    unchanged(before, bob.dir)
    names(line, seq=0, ids=[entry.id], player="alice", field="seq")


# ============================================================================ 5: held

def test_held_move_then_applied(table):
    """seq 2 arrives before seq 1: kept in held/ (exit 5), applied by the apply that brings seq 1."""
    carol = table["carol"]
    _one, one_path = table.move("alice", NOTE, to=["bob"])
    two, two_path = table.move("bob", NOTE, to=[])
    result, before = apply(carol, two_path)
    rc, out, err = result
    assert rc == 5, result
    assert err == "", err
    assert "held" in out and "seq 2" in out and "bob" in out, out
    after = snapshot(carol.dir)
    assert changes(before, after) == {"added": [f"held/{two.id}.toml"], "removed": [], "changed": []}
    assert after[f"held/{two.id}.toml"] == two_path.read_bytes()

    rc, out, err = carol.cli("apply", str(one_path))
    assert (rc, err) == (0, ""), (rc, out, err)
    final = snapshot(carol.dir)
    assert not any(p.startswith("held/") for p in final), sorted(final)
    assert final["entries/000001.toml"] == one_path.read_bytes()
    assert final["entries/000002.toml"] == two_path.read_bytes()
    assert carol.game().engine().head_id == two.id
    assert carol.cli("verify")[0] == 0


def test_altered_future_move_is_not_held(table):
    """A seq 2 changed after signing is refused for its signature (3), not kept in held/ (5)."""
    carol = table["carol"]
    table.move("alice", NOTE, to=["bob"])
    _, two_path = table.move("bob", NOTE, to=[])
    data = two_path.read_bytes().replace(b'text = "hello"', b'text = "hellO"')
    result, before = apply(carol, write(table.root / "two-altered.toml", data))
    names(one_error_line(result, 3), seq=2, ids=[body_id(data)], player="bob", field="signature")
    unchanged(before, carol.dir)


def test_held_reveal_then_applied(table):
    """carol's reveal arrives before the entry it is bound to: held, then applied with it."""
    bob = table["bob"]
    _entry, entry_path = table.move("alice", ROLL, to=["carol"])
    reveal, reveal_path = table.reveal("carol", to=[])
    result, before = apply(bob, reveal_path)
    assert result[0] == 5 and result[2] == "", result
    assert changes(before, snapshot(bob.dir))["added"] == [f"held/{reveal.id}.toml"]
    rc, out, err = bob.cli("apply", str(entry_path))
    assert (rc, err) == (0, ""), (rc, out, err)
    final = snapshot(bob.dir)
    assert final["side/reveal-carol-000001.toml"] == reveal_path.read_bytes()
    assert not any(p.startswith("held/") for p in final)


# ============================================================================ 0: duplicates

@pytest.mark.parametrize("kind", ["move", "reveal", "join"])
def test_duplicate(table, kind):
    bob = table["bob"]
    _, entry_path = table.move("alice", ROLL)
    _, reveal_path = table.reveal("carol")
    path = {"move": entry_path, "reveal": reveal_path,
            "join": table["alice"].dir / "outbox" / "join-alice.toml"}[kind]
    before = snapshot(bob.dir)
    rc, out, err = bob.cli("apply", str(path))
    assert (rc, err) == (0, ""), (rc, out, err)
    assert "already in the log" in out, out
    unchanged(before, bob.dir)


# ============================================================================ 6: locked

@pytest.mark.parametrize("command", ["apply", "move"])
def test_locked(table, first, command):
    alice, bob = table["alice"], table["bob"]
    player = bob if command == "apply" else alice
    path = write(table.root / "first.toml", first)
    args = ["apply", str(path)] if command == "apply" else ["move", "note text=hi", "pass"]
    before = snapshot(player.dir)
    fd = os.open(player.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        line = one_error_line(player.cli(*args), 6)
        assert "locked" in line, line
        unchanged(before, player.dir)
    finally:
        os.close(fd)
    assert player.cli(*args)[0] == 0  # and once the lock is released it goes through


# ============================================================================ verify: stored logs

@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Three entries with two roll points; returns bob's game directory (alice: roll, bob: note and
    roll using both reveals, carol: counter and pass using both reveals)."""
    table = setup_game(tmp_path_factory.mktemp("played"))
    table.move("alice", ROLL)
    table.reveal_all()
    table.move("bob", [{"kind": "note", "text": "The guns open up"},
                       {"kind": "roll", "dice": "1d6+1", "purpose": "barrage"}])
    table.reveal_all()
    table.move("carol", [{"kind": "set", "counter": "vp", "add": 1}, {"kind": "pass"}])
    return table["bob"].dir


@pytest.fixture
def log(played, tmp_path):
    copy = tmp_path / "game"
    shutil.copytree(played, copy)
    return copy


def verify(directory: Path):
    before = snapshot(directory)
    result = run_cli(["verify"], directory)
    unchanged(before, directory)  # verify writes nothing
    return result


def test_verify_clean(log):
    rc, out, err = verify(log)
    assert (rc, err) == (0, ""), (rc, out, err)
    assert "3 entries" in out and "2 roll points" in out, out


HEX = "0123456789abcdef"
LOWER = "abcdefghijklmnopqrstuvwxyz"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _next(char: str, alphabet: str) -> str:
    return alphabet[(alphabet.index(char) + 1) % len(alphabet)]


def _flip_value(key: str, index, alphabet: str):
    """Change the character at `index` of the value on the `key = …` line into its neighbour in `alphabet`,
    so the field stays well-formed and only the signature (or a link) can catch it."""

    def flip(text: str) -> str:
        lines = text.split("\n")
        for n, line in enumerate(lines):
            if line.startswith(f"{key} = "):
                value_start = len(key) + 3
                position = value_start + (index(line[value_start:]) if callable(index) else index)
                lines[n] = line[:position] + _next(line[position], alphabet) + line[position + 1:]
                return "\n".join(lines)
        raise AssertionError(f"no {key} line")

    return flip


def _flip_armor(text: str) -> str:
    lines = text.split("\n")
    n = lines.index("# -----BEGIN SSH SIGNATURE-----") + 3
    lines[n] = lines[n][:40] + _next(lines[n][40], B64) + lines[n][41:]
    return "\n".join(lines)


def _flip_uses(text: str) -> str:
    lines = text.split("\n")
    n = lines.index("uses = [") + 1
    lines[n] = lines[n][:13] + _next(lines[n][13], HEX) + lines[n][14:]
    return "\n".join(lines)


FIELD_FLIPS = {
    "type": _flip_value("type", 4, LOWER),  # "move" -> "movf"
    "game": _flip_value("game", 2, LOWER),  # "err-game" -> "esr-game"
    "player": _flip_value("player", 2, LOWER),  # "bob" -> "bpb"
    "seq": _flip_value("seq", 0, "0123456789"),  # 2 -> 3
    "prev": _flip_value("prev", 10, HEX),
    "time": _flip_value("time", lambda v: len(v) - 2, "0123456789"),  # the seconds' last digit
    "salt": _flip_value("salt", 10, HEX),
    "state": _flip_value("state", 10, HEX),
    "uses": _flip_uses,
    "order-value": _flip_value("text", 6, LOWER),  # "The guns open up" -> "The gvns open up"
    "signature-armor": _flip_armor,
}


@pytest.mark.parametrize("field", list(FIELD_FLIPS))
def test_verify_flipped_byte(log, field):
    """One byte changed in one field of entry 2 of 3: exit 4, naming entry 2 (not 1, not 3)."""
    path = log / "entries" / "000002.toml"
    original = path.read_text()
    tampered = FIELD_FLIPS[field](original)
    assert tampered != original and len(tampered) == len(original)
    assert sum(a != b for a, b in zip(tampered, original, strict=True)) == 1
    path.write_text(tampered)
    line = one_error_line(verify(log), 4)
    if not ("seq 2" in line or "entries/000002.toml" in line):
        raise NotNamed(f"does not name entry 2: {line!r}")


@pytest.mark.parametrize("seq", [1, 2])
def test_verify_deleted_entry(log, seq):
    (log / "entries" / f"{seq:06d}.toml").unlink()
    line = one_error_line(verify(log), 4)
    assert f"seq {seq}" in line and "missing" in line, line


def test_verify_swapped_entries(log):
    one, two = log / "entries" / "000001.toml", log / "entries" / "000002.toml"
    first, second = one.read_bytes(), two.read_bytes()
    one.write_bytes(second)
    two.write_bytes(first)
    line = one_error_line(verify(log), 4)
    assert "seq 1" in line, line


def test_verify_deleted_used_reveal(log):
    """carol's reveal for seq 1, which entry 2 uses, is gone from side/."""
    (log / "side" / "reveal-carol-000001.toml").unlink()
    line = one_error_line(verify(log), 4)
    names(line, seq=2, player="bob", field="uses")


@pytest.mark.parametrize("what", ["reveal-value", "join-anchor"])
def test_verify_tampered_side_message(log, what):
    path = log / "side" / ("reveal-carol-000001.toml" if what == "reveal-value" else "join-alice.toml")
    text = path.read_text()
    key = "value" if what == "reveal-value" else "anchor"
    path.write_text(_flip_value(key, 10, HEX)(text))
    line = one_error_line(verify(log), 4)
    if what == "reveal-value":  # a new id: entry 2 now uses a reveal that is not in side/
        names(line, seq=2, player="bob", field="uses")
    else:
        names(line, player="alice", field="signature")
