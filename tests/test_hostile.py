"""Messages a hostile or careless participant can send, through the real CLI (PROTOCOL.md §4-§6).

Each is refused in one line with its exit code, stalls nothing that could still go on, and keeps as
proof only what proves equivocation: malformed `uses`, a reveal that names another entry, a
reveal or entry that can never apply, and a rematch that reuses the game id.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from helpers import GAME_ID, changes, copy_game, forge, setup_game, snapshot, write

from pbem.game import utc_now
from pbem.message import sign

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


def entry(table, author: str, seq: int, prev: str, uses: list[str], orders=ROLL):
    """A signed entry with any uses, as a hostile author can make it."""
    fields = {"pbem": 1, "type": "move", "game": GAME_ID, "player": author, "seq": seq, "prev": prev,
              "time": utc_now(), "salt": secrets.token_hex(32), "state": "0" * 64, "uses": uses,
              "orders": orders}
    return forge(fields, {}, table[author].signer)


def two_rolls_behind_alice(table):
    """Seq 1 (alice) and 2 (bob) with their reveals, seen by bob and carol; alice has none of it."""
    m1, p1 = table.move("alice", ROLL, to=["bob", "carol"])
    rb1, pb1 = table.reveal("bob", to=["carol"])
    rc1, pc1 = table.reveal("carol", to=["bob"])
    m2, p2 = table.move("bob", ROLL, to=["carol"])
    rc2, pc2 = table.reveal("carol", to=["bob"])
    return (m1, rb1, rc1, m2, rc2), [p1, pb1, pc1, p2, pc2]


# ---------------------------------------------------------------------------- 1. malformed uses

def test_two_reveals_by_one_witness_in_uses_is_one_line_not_a_crash(table, tmp_path):
    """Hardening 1: the same witness's reveals for seq 1 and seq 2 in one entry's uses, mailed with the
    entries they belong to, to a player who is behind: once a StopIteration traceback."""
    (_m1, _rb1, rc1, m2, rc2), paths = two_rolls_behind_alice(table)
    bad = entry(table, "carol", 3, m2.id, [rc1.id, rc2.id])
    mail = write(tmp_path / "mail.txt", b"".join(Path(p).read_bytes() for p in paths) + bad.stored())
    before = snapshot(table["alice"].dir)
    err = one_line(table["alice"].cli("apply", str(mail)), 4)
    assert "seq 3" in err and "player carol" in err and "field 'uses'" in err
    assert "carol's reveal" in err and "for seq 1" in err
    assert changes(before, snapshot(table["alice"].dir)) == {"added": [], "removed": [], "changed": []}


# ---------------------------------------------------------------------------- 4. reveal twins

def forked_reveals(table, tmp_path):
    """alice signs X and Y at seq 1; bob's reveal for X is genuine, and so is one for Y (same value)."""
    other = table.draft("alice", NOTE)
    _first, _path = table.move("alice", ROLL, to=["bob", "carol"])
    for_first, _ = table.reveal("bob", to=[])
    for_other = sign({**for_first.fields, "for": other.id}, table["bob"].signer)
    return (write(tmp_path / "x.toml", for_first.stored()), write(tmp_path / "y.toml", for_other.stored()),
            for_first, for_other)


@pytest.mark.parametrize("order", ["named entry first", "other entry first", "both at once"])
def test_a_witness_revealing_for_two_entries_at_one_seq_is_proof_of_a_fork(table, tmp_path, order):
    """Hardening 4, §4 and §6: in any order of arrival, both reveals are kept and apply exits 4
    naming both entries; the game stops."""
    x_path, y_path, x, y = forked_reveals(table, tmp_path)
    carol = table["carol"]
    if order == "named entry first":
        assert carol.cli("apply", str(x_path))[0] == 0
        err = one_line(carol.cli("apply", str(y_path)), 4)
    elif order == "other entry first":
        one_line(carol.cli("apply", str(y_path)), 4)  # alone it proves nothing: refused, kept aside
        assert not (carol.dir / "forks").exists()
        err = one_line(carol.cli("apply", str(x_path)), 4)
    else:
        both = write(tmp_path / "both.txt", x_path.read_bytes() + y_path.read_bytes())
        err = one_line(carol.cli("apply", str(both)), 4)
    assert "fork: bob revealed for two entries at seq 1" in err
    assert x.fields["for"][:12] in err and y.fields["for"][:12] in err
    kept = sorted(p.read_bytes() for p in (carol.dir / "forks").iterdir())
    assert kept == sorted([x.stored(), y.stored()])
    assert carol.cli("verify")[0] == 4


def test_a_lone_reveal_naming_another_entry_stops_nothing(table, tmp_path):
    """A reveal whose value is not on the witness's chain, naming an entry this log does not hold, is
    refused (exit 3: it does not check) and nothing is kept: the real reveals still complete the roll."""
    table.move("alice", ROLL)
    real, real_path = table.reveal("bob", to=[])
    odd = sign({**real.fields, "for": "ab" * 32, "value": "cd" * 32}, table["bob"].signer)
    carol = table["carol"]
    before = snapshot(carol.dir)
    err = one_line(carol.cli("apply", str(write(tmp_path / "odd.toml", odd.stored()))), 3)
    assert "not on bob's reveal chain for seq 1" in err and "field 'value'" in err
    assert changes(before, snapshot(carol.dir)) == {"added": [], "removed": [], "changed": []}
    assert carol.cli("apply", str(real_path))[0] == 0


# ---------------------------------------------------------------------------- 5. never valid

def seq_2_revealed(table):
    """Seq 1 and 2 rolled, every witness revealed for both: seq 2, alice's reveal for it, and carol's
    reveal for seq 1 (which seq 2 consumed)."""
    table.move("alice", ROLL)
    table.reveal_all()
    m2, _ = table.move("bob", ROLL)
    alice_reveal = table.reveal("alice")[0]
    table.reveal("carol")
    carol_dir = table["carol"].game().dir
    return m2, alice_reveal, carol_dir.read_message(carol_dir.reveal_path("carol", 1))


def test_a_reveal_beyond_the_seq_cap_is_refused_not_held(table, tmp_path):
    """Hardening 5: a reveal for a seq no game reaches (§8: 65,535 entries) can never apply."""
    table.move("alice", ROLL)
    real, _ = table.reveal("bob", to=[])
    far = sign({**real.fields, "seq": 70000}, table["bob"].signer)
    carol = table["carol"]
    before = snapshot(carol.dir)
    err = one_line(carol.cli("apply", str(write(tmp_path / "far.toml", far.stored()))), 2)
    assert "seq 70000" in err and "field 'seq'" in err
    assert changes(before, snapshot(carol.dir)) == {"added": [], "removed": [], "changed": []}


def test_an_entry_using_a_consumed_reveal_is_refused_not_held(table, tmp_path):
    """Hardening 5: the uses of seq 3 name carol's reveal for seq 1, which seq 2 consumed; every
    witness of seq 2 has revealed, so no arrival could make it valid."""
    m2, alice_reveal, stale = seq_2_revealed(table)
    bad = entry(table, "carol", 3, m2.id, [alice_reveal.id, stale.id])
    alice = table["alice"]
    before = snapshot(alice.dir)
    err = one_line(alice.cli("apply", str(write(tmp_path / "bad.toml", bad.stored()))), 4)
    assert "seq 3" in err and "field 'uses'" in err and "for seq 1" in err
    assert changes(before, snapshot(alice.dir)) == {"added": [], "removed": [], "changed": []}


# ---------------------------------------------------------------------------- 6. rematch

def test_a_rematch_reusing_the_game_id_stops_nothing(template, tmp_path):
    """Hardening 6: a new charter with the same game id and players; its seq 1 reaches the live game.
    It is not of this game (exit 4): nothing kept, the live game goes on."""
    (tmp_path / "live").mkdir()
    live = copy_game(template, tmp_path / "live")
    _first, _ = live.move("alice", ROLL)
    rematch = setup_game(tmp_path / "rematch")  # same id, same keys, a fresh nonce
    theirs = rematch.draft("alice", NOTE)
    bob = live["bob"]
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", str(write(tmp_path / "stray.toml", theirs.stored()))), 4)
    assert "not of this game" in err and "prev" in err and "seq 1" in err
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}
    assert bob.cli("apply", "--reveal")[0] == 0  # the live game goes on


def test_two_entries_by_different_players_at_one_seq_are_not_a_fork(table, tmp_path):
    """Equivocation is one author's two entries on one prev; another player's entry there is refused."""
    _first, _ = table.move("alice", ROLL)
    genesis = table["bob"].game().engine().genesis
    intruder = entry(table, "bob", 1, genesis, [], NOTE)
    err = one_line(table["carol"].cli("apply", str(write(tmp_path / "bob.toml", intruder.stored()))), 4)
    assert "seq 1 already holds alice's entry" in err
    assert not (table["carol"].dir / "forks").exists()


def test_new_warns_when_a_game_id_is_reused_nearby(table, tmp_path):
    """`pbem new` with the id of a game in the same directory tree warns (a rematch should get a new id)."""
    from helpers import run_cli

    alice = table["alice"]
    rc, out, err = run_cli(["new", GAME_ID, "--player", f"alice={alice.key}.pub", "--player",
                            f"bob={table['bob'].key}.pub", "--out", str(tmp_path / "rematch.toml")],
                           tmp_path, home=alice.home)
    assert rc == 0, err
    assert f"game id {GAME_ID} is already used" in out and "alice" in out


def test_a_rematch_join_is_not_of_this_game(template, tmp_path):
    """§4's order: a join for another charter (same id, new nonce) is refused before its slot is
    compared, so it is never taken for equivocation."""
    (tmp_path / "live").mkdir()
    live = copy_game(template, tmp_path / "live")
    rematch = setup_game(tmp_path / "rematch")
    join = rematch["alice"].dir / "outbox" / "join-alice.toml"
    bob = live["bob"]
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", str(join)), 4)
    assert "join is for charter" in err and "field 'charter'" in err
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}
    live.move("alice", ROLL)  # the live game goes on


def test_a_rematch_resign_waits_and_never_proves_anything(template, tmp_path):
    """A resign bound to a head of another history is held; the player's real resign still applies
    and nothing lands in forks/."""
    (tmp_path / "live").mkdir()
    live = copy_game(template, tmp_path / "live")
    rematch = setup_game(tmp_path / "rematch")
    _stray, _stray_path = rematch.move("alice", ROLL, to=[])
    theirs, _ = rematch["alice"].game().resign("alice", rematch["alice"].signer, "bored")
    bob = live["bob"]
    assert bob.cli("apply", str(rematch["alice"].outbox(theirs)))[0] == 5
    real, _ = live["alice"].game().resign("alice", live["alice"].signer, "work")
    assert bob.cli("apply", str(live["alice"].outbox(real)))[0] == 0
    assert not (bob.dir / "forks").exists()


def test_twin_reveals_for_entries_not_yet_here_are_held_not_proof(table, tmp_path):
    """Two genuine reveals by one witness for a seq beyond the head, naming made-up entries, prove
    nothing yet: held (exit 5), and the game goes on."""
    game = table["carol"].game()
    from pbem import chain

    seeds = game.seed_store("carol").load()
    value = chain.chain_value(seeds["chain"], 500).hex()
    twins = [sign({"pbem": 1, "type": "reveal", "game": GAME_ID, "player": "carol", "for": name * 32,
                   "seq": 500, "value": value}, table["carol"].signer) for name in ("ab", "cd")]
    bob = table["bob"]
    both = write(tmp_path / "twins.txt", b"".join(m.stored() for m in twins))
    assert bob.cli("apply", str(both))[0] == 5
    assert not (bob.dir / "forks").exists()
    table.move("alice", ROLL)


def test_a_made_up_reveal_far_ahead_is_refused_at_once(table, tmp_path):
    """§4: a message no later arrival could make valid is refused, never held: a value for seq
    65,000 that is not on the witness's chain is checked against his anchor now (exit 3)."""
    junk = sign({"pbem": 1, "type": "reveal", "game": GAME_ID, "player": "carol", "for": "ab" * 32,
                 "seq": 65000, "value": "cd" * 32}, table["carol"].signer)
    bob = table["bob"]
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", str(write(tmp_path / "junk.toml", junk.stored()))), 3)
    assert "not on carol's reveal chain for seq 65000" in err
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


def test_resigning_twice_is_refused_not_proof_against_oneself(table):
    alice = table["alice"]
    assert alice.cli("resign", "--reason", "work")[0] == 0
    before = snapshot(alice.dir)
    err = one_line(alice.cli("resign", "--reason", "really"), 2)
    assert "you have already resigned" in err and "outbox/resign-alice.toml" in err
    assert changes(before, snapshot(alice.dir)) == {"added": [], "removed": [], "changed": []}


def test_an_entry_is_refused_for_a_consumed_reveal_even_beside_an_unknown_id(table, tmp_path):
    """Audit of hardening 5: the id that has not arrived no longer hides one that never can be used."""
    m2, alice_reveal, stale = seq_2_revealed(table)
    bad = entry(table, "carol", 3, m2.id, [alice_reveal.id, "ab" * 32, stale.id])
    err = one_line(table["alice"].cli("apply", str(write(tmp_path / "bad.toml", bad.stored()))), 4)
    assert "for seq 1" in err and "field 'uses'" in err


def test_an_entry_naming_an_entry_in_its_uses_is_refused(table, tmp_path):
    m1, _ = table.move("alice", [{"kind": "note", "text": "x"}, {"kind": "pass"}])
    bad = entry(table, "bob", 2, m1.id, [m1.id], [{"kind": "pass"}])
    err = one_line(table["carol"].cli("apply", str(write(tmp_path / "bad.toml", bad.stored()))), 2)
    assert "no entry consumes a move message" in err
