"""PROTOCOL §5 step by step with real games on disk: the seq-1 binder, witness policies, closing
entries, solitaire dice, deadlines and join equivocation.

A small test ruleset, `duel`, exercises what freeform never does: chance at game start (initiative)
and a roll that can end the game.
"""

from __future__ import annotations

import datetime as dt

import pytest

from pbem import chain, dice, keys, ruleset
from pbem.charter import Charter, Member
from pbem.errors import BadSignature, ChainBroken, Held, IllegalOrder
from pbem.game import Game, join, status
from pbem.message import Message, sign
from pbem.ruleset import Chance, Decision, Over


class Duel(ruleset.Ruleset[dict]):
    """Initiative is drawn at game start; each attack rolls a d6 and a 6 ends the game."""

    id = "duel"

    def declaration(self):
        return {"version": "1", "title": "test ruleset", "scenarios": {"default": {"title": "duel"}},
                "orders": {"attack": {"rule": "duel.1", "help": "attack the other player"}}}

    def new_state(self, setup):
        return {"players": setup.players, "next": None, "attack": None, "hits": {}, "over": None}

    def pending(self, state):
        if state["over"]:
            return Over(state["over"])
        if state["next"] is None or state["attack"]:
            return Chance()
        return Decision((state["next"],))

    def apply(self, state, player, order):
        if order["kind"] != "attack":
            raise IllegalOrder("duel knows only attack", rule="duel.1", field="kind")
        state["attack"] = player
        return state

    def resolve(self, state, dice, private):
        players = state["players"]
        if state["next"] is None:
            state["next"] = players[dice.uniform(len(players), "initiative", "duel.1")]
            return state
        roll = dice.roll(6, "attack", "duel.2")
        attacker = state["attack"]
        state["hits"][attacker] = state["hits"].get(attacker, 0) + (roll >= 4)
        if roll == 6:
            state["over"] = f"{attacker} wins"
        state["attack"] = None
        state["next"] = players[(players.index(attacker) + 1) % len(players)]
        return state

    def resign(self, state, player):
        state["over"] = f"{player} resigned"
        return state

    def dump(self, state):
        return {k: v for k, v in state.items()}

    def load(self, data, setup):
        return dict(data)


@pytest.fixture(autouse=True)
def duel_installed():
    ruleset.register(Duel())
    yield
    ruleset.unregister("duel")


def signer_for(index: int, name: str):
    return keys.FileSigner.from_seed(bytes([index + 1]) * 32, name)


def make(tmp_path, roster, *, rules="duel", dice_policy="all", move_hours=72, version="1"):
    """roster: (name, sides, role). Every participant joins in his own directory; joins exchanged."""
    signers = {name: signer_for(i, name) for i, (name, _, _) in enumerate(roster)}
    charter = Charter.create(
        game="test-game", ruleset=rules, version=version, scenario="default", dice=dice_policy,
        reveal_hours=24, move_hours=move_hours, options={}, tables={},
        players=[Member(name, tuple(sides), signers[name].public, role) for name, sides, role in roster],
    )
    (tmp_path / "game.toml").write_text(charter.text)
    games, joins = {}, []
    for name, _, _ in roster:
        game, message = join(tmp_path / "game.toml", tmp_path / name, signers[name], home=tmp_path / "home" / name)
        games[name] = game
        if message is not None:
            joins.append(message)
    for game in games.values():
        game.accept(joins)
    return games, signers


def broadcast(games, message, sender):
    for name, game in games.items():
        if name != sender:
            game.accept([message])


def reveal_all(games, signers):
    for name, game in games.items():
        if game.owed_reveal(name) is not None:
            message, _ = game.reveal(name, lambda name=name: signers[name])
            broadcast(games, message, name)


def test_game_start_chance_is_bound_by_the_first_player_at_seq_1(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")])
    alice, bob = games["alice"], games["bob"]
    assert isinstance(alice.engine().pending(), Chance)
    with pytest.raises(IllegalOrder, match="out of turn: the next entry is alice's"):
        bob.draft("bob", [], signers["bob"])
    with pytest.raises(IllegalOrder, match="only uses"):
        alice.draft("alice", [{"kind": "attack"}], signers["alice"])
    binder, _ = alice.move("alice", [], signers["alice"])
    assert binder.seq == 1 and binder.orders == [] and binder.uses == []
    broadcast(games, binder, "alice")
    assert status(bob)["step"]["waiting_for"] == ["bob"]  # bob witnesses alice's binder
    reveal_all(games, signers)
    engine, record = bob.current()
    value = chain.chain_value(bob.seed_store("bob").load()["chain"], 1)
    seed = chain.roll_seed("test-game", 1, bytes.fromhex(binder.id), [value])
    assert record.seed == seed.hex()
    assert engine.state["next"] == ["alice", "bob"][dice.Stream(seed).uniform(2)]


def test_a_roll_that_ends_the_game_needs_a_closing_entry(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")])
    binder, _ = games["alice"].move("alice", [], signers["alice"])
    broadcast(games, binder, "alice")
    reveal_all(games, signers)
    for _ in range(60):
        engine, _ = games["alice"].current()
        if isinstance(engine.pending(), Over):
            break
        mover = engine.pending().players[0]
        message, _ = games[mover].move(mover, [{"kind": "attack"}], signers[mover])
        broadcast(games, message, mover)
        reveal_all(games, signers)
    else:
        pytest.fail("no 6 in 60 attacks")
    result = engine.pending().result
    assert status(games["bob"])["step"] == {"kind": "over", "result": result, "closing_entry_by": "alice"}
    with pytest.raises(IllegalOrder, match="only uses"):
        games["alice"].draft("alice", [{"kind": "attack"}], signers["alice"])
    with pytest.raises(IllegalOrder, match="out of turn"):
        games["bob"].draft("bob", [], signers["bob"])
    closing, _ = games["alice"].move("alice", [], signers["alice"])
    assert closing.orders == [] and len(closing.uses) == 1  # bob's reveal fixes the result
    broadcast(games, closing, "alice")
    with pytest.raises(IllegalOrder, match="the game is over"):
        games["bob"].draft("bob", [], signers["bob"])
    heads = {name: game.replay().head_id for name, game in games.items()}
    assert set(heads.values()) == {closing.id}


def test_referee_policy_sends_every_roll_to_the_referee(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player"), ("ref", [], "referee")],
                          rules="freeform", dice_policy="referee")
    message, _ = games["alice"].move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"])
    broadcast(games, message, "alice")
    assert games["bob"].engine().roll.witnesses == ["ref"]
    assert games["bob"].owed_reveal("bob") is None and games["ref"].owed_reveal("ref") is not None


def test_opponents_policy_falls_back_to_everyone_when_nobody_is_an_opponent(tmp_path):
    games, signers = make(tmp_path, [("alice", ["allies"], "player"), ("bob", ["allies"], "player")],
                          rules="freeform", dice_policy="opponents")
    message, _ = games["alice"].move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"])
    broadcast(games, message, "alice")
    assert games["bob"].engine().roll.witnesses == ["bob"]


def test_solitaire_rolls_resolve_at_once_from_the_entry_alone(tmp_path):
    games, signers = make(tmp_path, [("solo", [], "player")], rules="freeform")
    message, report = games["solo"].move("solo", [{"kind": "roll", "dice": "2d6", "purpose": "x"}],
                                         signers["solo"])
    seed = chain.roll_seed("test-game", 1, bytes.fromhex(message.id), [])
    stream = dice.Stream(seed)
    assert report.rolls[0].seed == seed.hex()
    assert games["solo"].engine().state.last_roll["faces"] == [stream.die(6), stream.die(6)]


def test_observers_neither_join_nor_witness(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player"), ("eve", [], "observer")],
                          rules="freeform")
    assert games["eve"].engine().started and sorted(games["eve"].engine().joins) == ["alice", "bob"]
    message, _ = games["alice"].move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"])
    broadcast(games, message, "alice")
    assert games["eve"].engine().roll.witnesses == ["bob"]


def test_status_reports_an_overdue_reveal_and_its_witness(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    long_ago = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
    message, _ = games["alice"].move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"],
                                     now=long_ago)
    broadcast(games, message, "alice")
    step = status(games["bob"])["step"]
    assert step == {"kind": "reveal", "seq": 1, "entry": message.id, "author": "alice", "witnesses": ["bob"],
                    "waiting_for": ["bob"], "since": "2026-01-01T12:00:00Z", "due": "2026-01-02T12:00:00Z",
                    "overdue": True}


def test_a_second_join_by_one_player_is_equivocation(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    charter = games["bob"].charter
    forged = sign({"pbem": 1, "type": "join", "game": charter.game, "player": "alice", "charter": charter.digest,
                   "anchor": "ab" * 32, "hcommit": "cd" * 32, "chain_length": chain.CHAIN_LENGTH}, signers["alice"])
    log_before = sorted(p.name for p in (games["bob"].dir.root / "side").iterdir())
    with pytest.raises(ChainBroken, match="equivocation: two join messages by alice") as caught:
        games["bob"].accept([forged])
    assert caught.value.exit_code == 4 and forged.id in caught.value.proof
    assert sorted(p.name for p in (games["bob"].dir.root / "side").iterdir()) == log_before
    assert len(games["bob"].dir.forks()) == 2


def test_an_entry_waits_until_every_join_is_in(tmp_path):
    signers = {name: signer_for(i, name) for i, name in enumerate(("alice", "bob"))}
    charter = Charter.create(game="test-game", ruleset="freeform", version="1", scenario="default", dice="all",
                             reveal_hours=1, move_hours=1, options={}, tables={},
                             players=[Member(n, (), s.public, "player") for n, s in signers.items()])
    (tmp_path / "game.toml").write_text(charter.text)
    alice, _ = join(tmp_path / "game.toml", tmp_path / "alice", signers["alice"], home=tmp_path / "h")
    with pytest.raises(Held, match="waiting for joins from bob"):
        alice.draft("alice", [{"kind": "pass"}], signers["alice"])


def test_a_charter_pins_its_ruleset_version(tmp_path):
    from pbem.errors import UsageError

    with pytest.raises(UsageError, match="will not re-adjudicate"):
        make(tmp_path, [("alice", [], "player")], rules="freeform", version="0")


def test_a_cached_state_that_does_not_match_the_log_is_not_trusted(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    _message, _ = games["alice"].move("alice", [{"kind": "set", "counter": "vp", "value": 5}, {"kind": "pass"}],
                                     signers["alice"])
    cache = games["alice"].dir.root / "state.toml"
    tampered = cache.read_text().replace('"vp":5', '"vp":50')  # the state's JSON, as state.toml holds it
    assert tampered != cache.read_text()
    cache.write_text(tampered)
    assert Game(games["alice"].dir.root).engine().state.counters == {"vp": 5}


def forge_entry(game: Game, signer, player: str, seq: int, prev: str, uses: list[str], orders: list[dict],
                salt: str) -> Message:
    return sign({"pbem": 1, "type": "move", "game": game.charter.game, "player": player, "seq": seq,
                 "prev": prev, "time": dt.datetime(2026, 11, 22, tzinfo=dt.UTC), "salt": salt,
                 "state": "0" * 64, "uses": uses, "orders": orders}, signer)


def test_a_bad_held_entry_never_blocks_the_real_one(tmp_path):
    games, signers = make(tmp_path, [(n, [], "player") for n in ("alice", "bob", "carol")], rules="freeform")
    alice, bob = games["alice"], games["bob"]
    first, _ = alice.move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"])
    for name in ("bob", "carol"):
        games[name].accept([first])
    bob_reveal, _ = bob.reveal("bob", lambda: signers["bob"])
    carol_reveal, _ = games["carol"].reveal("carol", lambda: signers["carol"])
    bob.accept([carol_reveal])
    real = bob.draft("bob", [{"kind": "pass"}], signers["bob"])
    # carol, not on move, forges seq 2 with both reveals; its id sorts before bob's real entry.
    for attempt in range(500):
        fake = forge_entry(games["carol"], signers["carol"], "carol", 2, first.id,
                           sorted([bob_reveal.id, carol_reveal.id], key=lambda i: i != bob_reveal.id),
                           [{"kind": "pass"}], f"{attempt:064x}")
        if fake.id < real.id:
            break
    alice.accept([carol_reveal])
    held = alice.accept([fake])
    assert held.held and held.held[0].message.id == fake.id  # bob's reveal has not arrived yet
    report = alice.accept([bob_reveal, real])
    assert {o.message.id: o.status for o in report.outcomes} == {bob_reveal.id: "applied", real.id: "applied"}
    assert alice.engine().head_id == real.id and not alice.dir.held()
    assert any("out of turn" in line for line in report.dropped)


def test_a_reveal_for_an_unknown_entry_is_refused_not_a_fork(tmp_path):
    """§4: it can never apply (this log's seq 1 is fixed), and alone it proves nothing."""
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    alice = games["alice"]
    _first, _ = alice.move("alice", [{"kind": "roll", "dice": "d6", "purpose": "x"}], signers["alice"])
    odd = sign({"pbem": 1, "type": "reveal", "game": "test-game", "player": "bob", "for": "ab" * 32, "seq": 1,
                "value": "cd" * 32}, signers["bob"])
    with pytest.raises(BadSignature, match="not on bob's reveal chain for seq 1") as caught:
        alice.accept([odd])  # its value is checked first: made up, so it is not even evidence
    assert caught.value.exit_code == 3
    assert not alice.dir.forks() and not alice.dir.held() and not alice.dir.strays("bob", 1)
    assert status(alice)["forks"] == []


def test_a_fork_that_arrives_while_held_is_kept_as_proof(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    alice, bob = games["alice"], games["bob"]
    first, _ = alice.move("alice", [{"kind": "set", "counter": "a", "value": 1}], signers["alice"])
    one = alice.draft("alice", [{"kind": "note", "text": "one"}, {"kind": "pass"}], signers["alice"])
    other = alice.draft("alice", [{"kind": "note", "text": "other"}, {"kind": "pass"}], signers["alice"])
    assert bob.accept([other]).held  # seq 1 has not reached bob yet
    with pytest.raises(ChainBroken, match="fork: alice signed two entries at seq 2") as caught:
        bob.accept([first, one])
    assert caught.value.exit_code == 4
    kept = sorted(p.read_bytes() for p in bob.dir.forks())
    assert kept == sorted([one.stored(), other.stored()])


def test_a_resign_by_the_player_not_on_move_ends_a_two_player_game(tmp_path):
    games, signers = make(tmp_path, [("alice", [], "player"), ("bob", [], "player")], rules="freeform")
    alice, bob = games["alice"], games["bob"]
    passed, _ = alice.move("alice", [{"kind": "pass"}], signers["alice"])
    bob.accept([passed])
    resigned, _ = alice.resign("alice", signers["alice"], "work")
    bob.accept([resigned])
    closing, _ = bob.move("bob", [], signers["bob"])
    assert closing.uses == [resigned.id] and closing.orders == []
    assert status(bob)["step"] == {"kind": "over", "result": "bob wins: alice resigned"}
