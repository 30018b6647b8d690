"""Fuzzing the reader and Game.accept with mutated signed messages (in-process).

The target is carol's directory after alice's seq 1 (a roll) and carol's own reveal for it. The
messages mutated are either new to it (bob's reveal for seq 1, bob's seq 2 that uses both reveals,
or both in one mail) or already stored in it (alice's seq 1, carol's reveal). Mutations: byte flips,
bytes retyped as hex digits, truncations, insertions, duplicated or dropped lines, and changes
normalisation removes (trailing white space, CRLF). Properties: nothing but a PbemError is ever
raised; a refused message leaves the directory byte for byte as it was; and whatever is accepted
has the id of an original message (so a mutation can only be harmless: one that normalisation
undoes, or one in the armor's wrapping).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import changes, setup_game, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.errors import PbemError
from pbem.game import Game, read_messages

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class World:
    """The target directory (a pristine copy to reset from), the messages, and their ids."""

    def __init__(self, root: Path) -> None:
        table = setup_game(root / "players")
        table.move("alice", [{"kind": "set", "counter": "vp", "value": 2},
                             {"kind": "roll", "dice": "2d6", "purpose": "morale", "table": "morale"}])
        table.reveal("carol")
        bob_reveal, bob_reveal_path = table.reveal("bob", to=["alice"])  # carol has not seen it
        bob_move = table.draft("bob", [{"kind": "note", "text": "The guns open up"},
                                       {"kind": "roll", "dice": "1d6+1", "purpose": "barrage"}])
        carol = table["carol"]
        self.home = carol.home
        self.pristine = root / "pristine"
        shutil.copytree(carol.dir, self.pristine)
        (self.pristine / ".lock").unlink(missing_ok=True)
        self.work = root / "work"
        self.sources = {
            "new-reveal": bob_reveal_path.read_bytes(),
            "new-move": bob_move.stored(),
            "new-reveal-and-move": bob_reveal_path.read_bytes() + b"\n" + bob_move.stored(),
            "stored-entry": (carol.dir / "entries" / "000001.toml").read_bytes(),
            "stored-reveal": (carol.dir / "side" / "reveal-carol-000001.toml").read_bytes(),
        }
        self.ids = {bob_reveal.id, bob_move.id}
        for name in ("stored-entry", "stored-reveal"):
            self.ids |= {m.id for m in read_messages(self.sources[name].decode(), name)}

    def reset(self) -> Game:
        if self.work.exists():
            shutil.rmtree(self.work)
        shutil.copytree(self.pristine, self.work)
        return Game(self.work, home=self.home)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("fuzz"))


# ------------------------------------------------------------------------------ mutations

position = st.integers(min_value=0, max_value=2**16)
mutation = st.one_of(
    st.tuples(st.just("flip"), position, st.integers(min_value=1, max_value=255)),
    st.tuples(st.just("retype"), position, st.sampled_from(b"0123456789abcdef")),  # often still parseable
    st.tuples(st.just("truncate"), position),
    st.tuples(st.just("insert"), position, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("insert-text"), position,
              st.sampled_from([b"\n", b" ", b"#", b"=", b'"', b"[", b"0", b"a", b"\r\n", b"\\", b"\t"])),
    st.tuples(st.just("duplicate-line"), position),
    st.tuples(st.just("drop-line"), position),
    st.tuples(st.just("trailing-space"), position, st.sampled_from([b" ", b"\t", b"  \t"])),
    st.tuples(st.just("crlf")),
)
mutations = st.lists(mutation, min_size=1, max_size=3)


def mutate(data: bytes, ops) -> bytes:
    for op in ops:
        kind = op[0]
        if kind == "crlf":
            data = data.replace(b"\n", b"\r\n")
            continue
        if kind in ("duplicate-line", "drop-line", "trailing-space"):
            lines = data.split(b"\n")
            n = op[1] % len(lines)
            if kind == "duplicate-line":
                lines.insert(n, lines[n])
            elif kind == "drop-line":
                del lines[n]
            else:
                lines[n] += op[2]
            data = b"\n".join(lines)
            continue
        if not data:
            continue
        at = op[1] % (len(data) + (kind not in ("flip", "retype")))
        if kind == "flip":
            data = data[:at] + bytes([data[at] ^ op[2]]) + data[at + 1:]
        elif kind == "retype":
            data = data[:at] + bytes([op[2]]) + data[at + 1:]
        elif kind == "truncate":
            data = data[:at]
        else:
            data = data[:at] + op[2] + data[at:]
    return data


def check(world: World, source: str, ops) -> None:
    data = mutate(world.sources[source], ops)
    text = data.decode("utf-8", "replace")
    game = world.reset()
    before = snapshot(world.work)
    try:
        messages = read_messages(text, "fuzz")
        game.accept(messages)
    except PbemError:
        after = snapshot(world.work)
        assert after == before, changes(before, after)
        return
    accepted = {m.id for m in messages}
    assert accepted <= world.ids, f"a mutated message was accepted: {sorted(accepted - world.ids)}"


# ------------------------------------------------------------------------------ tests

def test_originals(world):
    """The harness: the new messages apply, the stored ones are duplicates, normalisation is harmless."""
    for source in ("new-reveal-and-move", "stored-entry", "stored-reveal"):
        check(world, source, [])
    game = world.reset()
    report = game.accept(read_messages(world.sources["new-reveal-and-move"].decode(), "fuzz"))
    assert sorted(o.status for o in report.outcomes) == ["applied", "applied"]
    assert game.engine().head_seq == 2
    game = world.reset()
    noisy = mutate(world.sources["new-reveal"], [("trailing-space", 3, b" \t"), ("crlf",)])  # "bob" \t\r\n
    report = game.accept(read_messages(noisy.decode(), "fuzz"))
    assert [o.status for o in report.outcomes] == ["applied"]


@SETTINGS
@given(source=st.sampled_from(["new-reveal", "new-move", "new-reveal-and-move"]), ops=mutations)
def test_mutated_new_messages(world, source, ops):
    check(world, source, ops)


@SETTINGS
@given(source=st.sampled_from(["stored-entry", "stored-reveal"]), ops=mutations)
def test_mutated_stored_messages(world, source, ops):
    """Regression: an altered copy of a stored message used to count as a fork (forks/ written)."""
    check(world, source, ops)
