"""`Engine.apply_entry` is all or nothing (PROTOCOL §5.7): an entry refused at any step leaves the
engine exactly as it was, though the refusal comes after the roll, the resigns or some orders were
applied to a trial. Each case is refused on a real game's engine, then the right entry still applies.

Most cases use test_engine's `duel` (initiative is drawn at game start, each attack rolls), so the
open roll point resolves inside the refused entry; the Paths of Glory cases run on the shipped
example, whose state the ruleset's own `copy` protects.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from test_engine import Duel, make, signer_for

from pbem import chain, keys, ruleset
from pbem.charter import Charter, Member
from pbem.engine import Engine, canonical_json
from pbem.errors import BadSignature, ChainBroken, IllegalOrder, PbemError, UsageError
from pbem.game import Game
from pbem.message import Message, sign
from pbem.ruleset import Chance

POG_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "paths-of-glory-1914"


@pytest.fixture(autouse=True)
def duel_installed():
    ruleset.register(Duel())
    yield
    ruleset.unregister("duel")


def snapshot(engine: Engine) -> dict:
    """Everything of the engine an entry may change, as plain values."""
    return {
        "state": canonical_json(engine.ruleset.dump(engine.state)),
        "state object": id(engine.state),
        "head": (engine.head_seq, engine.head_id, engine.head_time, engine.head_player, engine.head_state),
        "roll": engine.roll,
        "resigned": dict(engine.resigned),
        "last reveals": {player: m.id for player, m in engine.last_reveal.items()},
        "rolls": list(engine.rolls),
        "joins": {player: dict(join) for player, join in engine.joins.items()},
        "genesis": engine.genesis,
        "fields": sorted(vars(engine)),
    }


def refused_without_trace(engine: Engine, entry: Message, side: list[Message], error: type[PbemError],
                          match: str) -> None:
    before = snapshot(engine)
    with pytest.raises(error, match=match):
        engine.apply_entry(entry, {m.id: m for m in side}.get)
    assert snapshot(engine) == before


# ---------------------------------------------------------------------------- duel: the roll resolves first

class OpenRoll:
    """A duel after alice's binder and bob's reveal: seq 1's roll point is open, its reveal at hand."""

    def __init__(self, tmp_path: Path) -> None:
        roster = [("alice", [], "player"), ("bob", [], "player"), ("eve", [], "observer")]
        self.games, self.signers = make(tmp_path, roster)
        alice, bob = self.games["alice"], self.games["bob"]
        self.binder, _ = alice.move("alice", [], self.signers["alice"])
        bob.accept([self.binder])
        self.reveal, _ = bob.reveal("bob", lambda: self.signers["bob"])
        alice.accept([self.reveal])
        self.engine = alice.engine()
        self.engine.keep_rolls = True
        rolled = self.engine.clone()
        rolled.resolve_with({"bob": self.reveal})
        self.first = rolled.state["next"]  # who the initiative roll names
        self.second = "bob" if self.first == "alice" else "alice"

    def entry(self, player: str, orders: list[dict], uses: list[Message] | None = None, state: str | None = None
              ) -> Message:
        uses = [self.reveal] if uses is None else uses
        fields = {"pbem": 1, "type": "move", "game": "test-game", "player": player, "seq": 2,
                  "prev": self.binder.id, "time": dt.datetime(2026, 11, 22, tzinfo=dt.UTC), "salt": "00" * 32,
                  "state": state or "0" * 64, "uses": [m.id for m in uses], "orders": orders}
        return sign(fields, self.signers[player])

    def right_hash(self, orders: list[dict]) -> str:
        computed, _ = self.engine.clone().apply_entry(self.entry(self.first, orders), {self.reveal.id: self.reveal}.get,
                                                      check_state=False)
        return computed


@pytest.fixture
def duel(tmp_path) -> OpenRoll:
    return OpenRoll(tmp_path)


def test_an_entry_out_of_turn_leaves_the_roll_point_open(duel):
    entry = duel.entry(duel.second, [{"kind": "attack"}])
    refused_without_trace(duel.engine, entry, [duel.reveal], IllegalOrder, "out of turn")
    assert duel.engine.roll is not None and isinstance(duel.engine.pending(), Chance)


def test_an_order_the_ruleset_refuses_leaves_the_roll_and_the_state_alone(duel):
    entry = duel.entry(duel.first, [{"kind": "defend"}], state=duel.right_hash([{"kind": "attack"}]))
    refused_without_trace(duel.engine, entry, [duel.reveal], IllegalOrder, "duel knows only attack")


def test_an_order_after_a_roll_it_cannot_know_undoes_the_orders_before_it(duel):
    entry = duel.entry(duel.first, [{"kind": "attack"}, {"kind": "attack"}])
    refused_without_trace(duel.engine, entry, [duel.reveal], IllegalOrder, "order 2 follows a roll")


def test_a_state_hash_mismatch_leaves_everything_before_the_hash(duel):
    entry = duel.entry(duel.first, [{"kind": "attack"}], state="ab" * 32)
    refused_without_trace(duel.engine, entry, [duel.reveal], ChainBroken, "state hash mismatch")


def test_a_resign_that_cannot_be_used_undoes_the_roll_it_followed(duel):
    resign = sign({"pbem": 1, "type": "resign", "game": "test-game", "player": "eve", "at": duel.binder.id},
                  duel.signers["eve"])
    entry = duel.entry(duel.first, [{"kind": "attack"}], uses=[duel.reveal, resign])
    refused_without_trace(duel.engine, entry, [duel.reveal, resign], IllegalOrder, "only participants can resign")


def test_a_reveal_not_on_its_chain_is_refused_without_trace(duel):
    made_up = sign({"pbem": 1, "type": "reveal", "game": "test-game", "player": "bob", "for": duel.binder.id,
                    "seq": 1, "value": "cd" * 32}, duel.signers["bob"])
    entry = duel.entry(duel.first, [{"kind": "attack"}], uses=[made_up])
    refused_without_trace(duel.engine, entry, [made_up], BadSignature, "not on bob's reveal chain")


def test_after_every_refusal_the_right_entry_applies_as_on_a_fresh_replay(duel):
    for entry in (duel.entry(duel.second, [{"kind": "attack"}]),
                  duel.entry(duel.first, [{"kind": "attack"}, {"kind": "attack"}]),
                  duel.entry(duel.first, [{"kind": "attack"}], state="ab" * 32)):
        with pytest.raises(PbemError):
            duel.engine.apply_entry(entry, {duel.reveal.id: duel.reveal}.get)
    orders = [{"kind": "attack"}]
    right = duel.entry(duel.first, orders, state=duel.right_hash(orders))
    fresh = duel.games["alice"].replay(keep_rolls=True)
    for engine in (duel.engine, fresh):
        engine.apply_entry(right, {duel.reveal.id: duel.reveal}.get)
    assert snapshot(duel.engine) | {"state object": 0} == snapshot(fresh) | {"state object": 0}
    assert [r.seq for r in duel.engine.rolls] == [1]


# ---------------------------------------------------------------------------- a join the ruleset refuses

class Refusing(ruleset.Ruleset[dict]):
    """A ruleset that can start no game."""

    id = "refusing"

    def declaration(self):
        return {"version": "1", "title": "test ruleset", "scenarios": {"default": {"title": "none"}}}

    def new_state(self, setup):
        raise UsageError("this charter cannot be played", field="scenario")


def snapshot_unstarted(engine: Engine) -> dict:
    return {"joins": {p: dict(j) for p, j in engine.joins.items()}, "genesis": engine.genesis,
            "head": engine.head_id, "state": engine.state}


def test_a_join_that_completes_an_unplayable_game_changes_nothing():
    """The last join starts the game; if the ruleset cannot start it, the join is not kept either."""
    signers = {name: signer_for(i, name) for i, name in enumerate(("alice", "bob"))}
    charter = Charter.create(game="test-game", ruleset="refusing", version="1", scenario="default", dice="all",
                             reveal_hours=1, move_hours=1, options={}, tables={},
                             players=[Member(n, (), s.public, "player") for n, s in signers.items()])
    engine = Engine(charter, Refusing())
    joins = [sign({"pbem": 1, "type": "join", "game": "test-game", "player": name, "charter": charter.digest,
                   "anchor": "ab" * 32, "hcommit": "cd" * 32, "chain_length": chain.CHAIN_LENGTH}, signer)
             for name, signer in signers.items()]
    engine.accept_join(joins[0])
    before = snapshot_unstarted(engine)
    with pytest.raises(UsageError, match="cannot be played"):
        engine.accept_join(joins[1])
    assert snapshot_unstarted(engine) == before and not engine.started


# ---------------------------------------------------------------------------- Paths of Glory: its own copy

@pytest.fixture
def pog(tmp_path) -> Game:
    shutil.copytree(POG_EXAMPLE / "game", tmp_path / "game", ignore=shutil.ignore_patterns("state.toml", ".lock"))
    return Game(tmp_path / "game")


def pog_entry(game: Game, engine: Engine, player: str, orders: list[dict], state: str = "0" * 64) -> Message:
    return sign({"pbem": 1, "type": "move", "game": game.charter.game, "player": player, "seq": engine.head_seq + 1,
                 "prev": engine.head_id, "time": dt.datetime(2026, 11, 22, tzinfo=dt.UTC), "salt": "00" * 32,
                 "state": state, "orders": orders}, keys.FileSigner.load(POG_EXAMPLE / "test-only-keys" / player))


def test_a_paths_of_glory_move_refused_half_way_leaves_the_position(pog):
    """alice (Allied Powers) is on move at the example's head: her activation and first move reach
    the trial's position, then her second move is refused."""
    engine = pog.engine()
    orders = [{"kind": "activate", "spaces": ["melun"]}, {"kind": "move", "units": ["fr_3_army"], "path": ["orleans"]},
              {"kind": "move", "units": ["fr_3_army"], "path": ["berlin"]}]
    refused_without_trace(engine, pog_entry(pog, engine, "alice", orders), [], IllegalOrder, r"orders\[3\]")
    assert engine.state.units["fr_3_army"].space == "melun" and engine.state.action == {}


def test_a_paths_of_glory_state_mismatch_and_an_entry_out_of_turn_leave_the_position(pog):
    engine = pog.engine()
    refused_without_trace(engine, pog_entry(pog, engine, "bob", [{"kind": "pass"}]), [], IllegalOrder, "out of turn")
    activate = [{"kind": "activate", "spaces": ["melun"]}]
    refused_without_trace(engine, pog_entry(pog, engine, "alice", activate, state="ab" * 32), [], ChainBroken,
                          "state hash mismatch")
    computed, _ = engine.clone().apply_entry(pog_entry(pog, engine, "alice", activate), {}.get, check_state=False)
    engine.apply_entry(pog_entry(pog, engine, "alice", activate, state=computed), {}.get)
    assert engine.state.action["kind"] == "movement"
