"""state.toml is a cache: trusted only for what it names and the log confirms (DESIGN, PROTOCOL §4).

A changed charter stops every command before anything is trusted or signed; a cache edited in any
field is replayed over, never believed; and with open dice a roll at the head no longer defeats it.
"""

from __future__ import annotations

import json
import tomllib

import pytest
import tomli_w
from helpers import changes, copy_game, setup_game, snapshot, write

from pbem.game import Game
from pbem.message import sign

ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "assault"}]


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


@pytest.mark.parametrize("command", [["status"], ["show"], ["apply"], ["resign"], ["move", "pass"],
                                     ["log"], ["verify"]])
def test_a_charter_changed_by_one_byte_stops_every_command(table, command):
    """Hardening 2: after one byte of game.toml changes, no command carries on, and none signs."""
    table.move("alice", ROLL)
    table.reveal_all()
    bob = table["bob"]
    assert bob.cli("status")[0] == 0  # the cache is written and matches
    charter = bob.dir / "game.toml"
    charter.write_text(charter.read_text().replace("reveal_hours = 24", "reveal_hours = 25"))
    before = snapshot(bob.dir)
    err = one_line(bob.cli(*command), 4)
    assert "game.toml has changed since" in err and "field 'charter'" in err
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


def tamper(path, **edits):
    data = tomllib.loads(path.read_text())
    for key, value in edits.items():
        data[key] = value(data[key]) if callable(value) else value
    path.write_text(tomli_w.dumps(data))


@pytest.mark.parametrize("field,edit", [
    ("joins", lambda joins: {p: "ab" * 32 for p in joins}),
    ("head_id", "cd" * 32),
    ("head_seq", 1),
    ("last_reveal", lambda last: {p: [s, "ef" * 32] for p, (s, _) in last.items()}),
    ("resigned", {"carol": "12" * 32}),
    ("state", lambda state: state.replace('"vp":2', '"vp":20')),
    ("charter", "00" * 32),
])
def test_a_cache_edited_in_any_field_is_replayed_over(table, field, edit):
    """Hardening 2: every field of state.toml is checked against the log; an edited one is ignored."""
    table.move("alice", [{"kind": "set", "counter": "vp", "value": 2}, *ROLL])
    table.reveal_all()
    table.move("bob", ROLL)
    bob = table["bob"]
    honest = bob.cli("status", "--json")
    cache = bob.dir / "state.toml"
    tamper(cache, **{field: edit})
    assert bob.cli("status", "--json") == honest
    assert bob.cli("show", "--json")[1] == table["carol"].cli("show", "--json")[1]


def test_a_reveal_off_the_witness_chain_is_refused_whatever_the_cache_says(table, tmp_path):
    """Hardening 2: the cache holds no anchors any more; an edited one could once make apply store a
    reveal that is not on the witness's chain."""
    _first, _ = table.move("alice", ROLL)
    bob = table["bob"]
    assert bob.cli("status")[0] == 0
    cache = bob.dir / "state.toml"
    assert "anchor" not in cache.read_text()
    real, _ = table.reveal("carol", to=[])
    fake = sign({**real.fields, "value": "77" * 32}, table["carol"].signer)
    before = snapshot(bob.dir)
    err = one_line(bob.cli("apply", str(write(tmp_path / "fake.toml", fake.stored()))), 3)
    assert "field 'value'" in err and "player carol" in err
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


@pytest.mark.parametrize("dice", ["open", "all"])
def test_the_cache_serves_a_head_that_opened_a_roll(tmp_path, monkeypatch, dice):
    """Hardening 14: with open dice the head's own roll resolved at once, so the cache never matched
    and every command replayed the whole log. Now a command at a head that rolled replays nothing."""
    table = setup_game(tmp_path, dice=dice)
    table.move("alice", ROLL)
    if dice == "all":
        table.reveal_all()
    table.move("bob", ROLL)
    bob = table["bob"]
    replayed, _ = Game(bob.dir, home=bob.home).current()  # replays once and writes the cache
    expected = replayed.ruleset.dump(replayed.state)

    def no_replay(self, **kw):
        raise AssertionError("replayed the whole log")

    monkeypatch.setattr(Game, "replay", no_replay)
    engine, _ = Game(bob.dir, home=bob.home).current()
    assert engine.head_seq == 2
    assert engine.ruleset.dump(engine.state) == expected
    if dice == "open":
        assert engine.roll is None and json.dumps(expected).count("2d6") >= 1


def test_a_cache_that_forgets_a_used_resign_is_not_trusted(table):
    """Audit of hardening 2: carol's resign is used by seq 1; bob's cache then claims nobody resigned.
    A move must not use the resign again: the cache is replayed over."""
    resign, _ = table["carol"].game().resign("carol", table["carol"].signer, "moving house")
    table.deliver(table["carol"].outbox(resign), ["alice", "bob"])
    table.move("alice", [{"kind": "note", "text": "so be it"}, {"kind": "pass"}], to=["bob"])
    bob = table["bob"]
    assert bob.cli("status")[0] == 0
    tamper(bob.dir / "state.toml", resigned={})
    rc, _out, err = bob.cli("move", "note text=onward", "pass")
    assert rc == 0, err
    entry = bob.game().dir.entry(2)
    assert resign.id not in entry.uses
    assert table["alice"].cli("apply", str(bob.dir / "outbox" / "000002-move-bob.toml"))[0] == 0


def test_the_cache_keeps_any_state_text_it_is_given():
    """state.toml holds the state in a literal string, or in a basic one when the state's JSON
    holds three quotes or a control character: either way it reads back as written."""
    import tomllib

    from pbem.game import _cache_text

    for state in ('{"note": "plain"}', '{"note": "it' + "'''" + 's"}', '{"note": "tab\there"}'):
        cache = {"charter": "ab" * 32, "head_seq": 3, "joins": {"alice": "cd" * 32}, "state": state}
        assert tomllib.loads(_cache_text(cache)) == cache
