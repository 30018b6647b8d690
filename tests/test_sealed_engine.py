"""Simultaneous decisions in the engine (protocol §5), with freeform's sealed rounds (freeform.sealed).

alice opens a sealed round among the three players; each seals a `choose`; all unseal; alice, first
in roster order, collects them in the next entry, which may carry her own orders after. The engine
checks every seal's binding and every unseal against its seal, voids what cannot stand, and stays
as it was when it refuses an entry.
"""

from __future__ import annotations

import datetime as dt
import secrets

import pytest
from helpers import NAMES, setup_game

from pbem import chain, keys, ruleset
from pbem.charter import Charter, Member
from pbem.errors import BadSignature, ChainBroken, IllegalOrder, UnreadableInput
from pbem.game import join
from pbem.message import sign
from pbem.orders import sealed_text
from pbem.ruleset import Decision, Over

ROUND = {"kind": "sealed", "players": ["carol", "alice", "bob"], "purpose": "bids for Alsace"}


@pytest.fixture
def table(tmp_path):
    table = setup_game(tmp_path, dice="open")
    table.move("alice", [ROUND])
    return table


def seal_and_unseal(table, player: str, orders: list[dict], engine, *, key: bytes | None = None):
    key = key or secrets.token_bytes(32)
    text = sealed_text(orders)
    signer = table[player].signer
    bound = {"pbem": 1, "game": table.charter.game, "player": player, "for": engine.head_id,
             "seq": engine.head_seq}
    digest = chain.sealed_digest(table.charter.game, player, bytes.fromhex(engine.head_id), key, text)
    seal = sign({**bound, "type": "seal", "sealed": digest.hex()}, signer)
    unseal = sign({**bound, "type": "unseal", "key": key.hex(), "orders": text}, signer)
    return seal, unseal


def collect(table, engine, sides, orders, *, author: str = "alice"):
    """The collector's entry using `sides`, drafted against `engine` (a trial, not applied)."""
    fields = {"pbem": 1, "type": "move", "game": table.charter.game, "player": author,
              "seq": engine.head_seq + 1, "prev": engine.head_id,
              "time": dt.datetime.now(dt.UTC).replace(microsecond=0), "salt": secrets.token_hex(32),
              "state": "0" * 64, "uses": [m.id for m in sides]}
    if orders:
        fields["orders"] = orders
    by_id = {m.id: m for m in sides}
    trial = engine.clone()
    computed, _ = trial.apply_entry(sign(fields, table[author].signer), by_id.get, check_state=False)
    fields["state"] = computed
    return sign(fields, table[author].signer), by_id


def choices(table, engine, texts: dict[str, list[dict]]):
    sides = []
    for player in NAMES:  # roster order: seal, then unseal, per player
        sides.extend(seal_and_unseal(table, player, texts[player], engine))
    return sides


def test_a_sealed_round_is_pending_for_its_members_in_roster_order(table):
    engine = table["bob"].game().engine()
    assert engine.sealed_members() == ["alice", "bob", "carol"]
    assert engine.collector() == "alice"
    assert engine.pending().prompt == "a sealed choice: bids for Alsace (pbem seal 'choose text=…')"


def test_the_collector_applies_every_choice_together_then_her_own_orders(table):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {"alice": [{"kind": "choose", "text": "2"}],
                                    "bob": [{"kind": "choose", "text": "5"}], "carol": []})
    entry, by_id = collect(table, engine, sides, [{"kind": "note", "text": "bob wins Alsace"}])
    engine.apply_entry(entry, by_id.get)
    assert engine.state.last_sealed == {"purpose": "bids for Alsace", "by": "alice", "turn": 1, "voided": {},
                                        "choices": {"alice": "2", "bob": "5", "carol": None}}
    assert engine.pending().players == ("alice",)  # the opener's step goes on


def test_an_illegal_or_unreadable_sealed_order_is_voided_with_its_rule(table):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {"alice": [{"kind": "note", "text": "x"}],
                                    "bob": [{"kind": "choose", "text": "5"}, {"kind": "choose", "text": "6"}],
                                    "carol": [{"kind": "choose", "text": "1"}]})
    broken_key = secrets.token_bytes(32)
    carol = table["carol"].signer
    bound = {"pbem": 1, "game": table.charter.game, "player": "carol", "for": engine.head_id, "seq": 1}
    text = "orders = 5\n"
    digest = chain.sealed_digest(table.charter.game, "carol", bytes.fromhex(engine.head_id), broken_key, text)
    sides[4:] = [sign({**bound, "type": "seal", "sealed": digest.hex()}, carol),
                 sign({**bound, "type": "unseal", "key": broken_key.hex(), "orders": text}, carol)]
    entry, by_id = collect(table, engine, sides, [])
    engine.apply_entry(entry, by_id.get)
    voided = engine.state.last_sealed["voided"]
    assert voided == {"alice": "freeform.sealed: 'note' is not a sealed choice: choose text=…",
                      "bob": "freeform.sealed: a sealed round takes one choose order (or none, to abstain)",
                      "carol": "PROTOCOL §5: the unsealed text could not be read"}


def test_an_unseal_that_does_not_open_its_seal_refuses_the_entry_and_changes_nothing(table):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {p: [] for p in NAMES})
    other = seal_and_unseal(table, "bob", [{"kind": "choose", "text": "9"}], engine)
    sides[3] = other[1]  # bob's unseal of another seal
    before = engine.head_state, engine.head_id
    with pytest.raises(BadSignature, match="bob's unseal does not open his seal"):
        collect(table, engine, sides, [])
    assert (engine.head_state, engine.head_id) == before


@pytest.mark.parametrize("drop, says", [(1, "missing alice"), (4, "missing carol")])
def test_an_entry_lacking_a_seal_or_unseal_is_refused(table, drop, says):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {p: [] for p in NAMES})
    del sides[drop]
    with pytest.raises(UnreadableInput, match=says):
        collect(table, engine, sides, [])


def test_a_seal_bound_to_another_entry_is_refused(table):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {p: [] for p in NAMES})
    stale = engine.clone()
    stale.head_id, stale.head_seq = "ab" * 32, 1
    sides[2:4] = seal_and_unseal(table, "bob", [], stale)
    with pytest.raises(ChainBroken, match="bob's seal is for seq 1"):
        collect(table, engine, sides, [])


def test_only_the_collector_signs_and_no_one_moves_past_a_sealed_round(table):
    engine = table["bob"].game().engine()
    sides = choices(table, engine, {p: [] for p in NAMES})
    with pytest.raises(IllegalOrder, match="out of turn: the next entry is alice's"):
        collect(table, engine, sides, [], author="bob")
    with pytest.raises(IllegalOrder, match="made with 'pbem seal', then collected by alice"):
        collect(table, engine, [], [{"kind": "pass"}])


def test_a_choose_outside_a_sealed_round_and_a_round_of_one_are_illegal(tmp_path):
    table = setup_game(tmp_path, dice="open")
    with pytest.raises(IllegalOrder, match="choose is made in a sealed round"):
        table.move("alice", [{"kind": "choose", "text": "x"}])
    with pytest.raises(IllegalOrder, match="two players or more"):
        table.move("alice", [{"kind": "sealed", "players": ["bob"], "purpose": "x"}])
    with pytest.raises(IllegalOrder, match="follows a roll or another player's choice"):
        table.move("alice", [ROUND, {"kind": "pass"}])


# ---------------------------------------------------------------------------- bound to genesis

class Council(ruleset.Ruleset[dict]):
    """The game opens with a sealed decision of every player; once collected it is over."""

    id = "council"

    def declaration(self):
        return {"version": "1", "title": "a sealed council", "scenarios": {"default": {"title": "council"}},
                "orders": {"pick": {"rule": "council.1", "help": "a pick", "fields": {"text": {"type": "text"}}}}}

    def new_state(self, setup):
        return {"players": setup.players, "picks": None}

    def pending(self, state):
        return Over("picked") if state["picks"] is not None else Decision(tuple(state["players"]), "pick")

    def check_together(self, state, player, orders):
        if len(orders) > 1 or any(o.get("kind") != "pick" for o in orders):
            raise IllegalOrder("one pick", rule="council.1")

    def apply_together(self, state, orders):
        state["picks"] = {p: (o[0]["text"] if o else None) for p, o in orders.items()}
        return state

    def dump(self, state):
        return dict(state)

    def load(self, data, setup):
        return dict(data)


@pytest.fixture
def council(tmp_path):
    ruleset.register(Council())
    signers = {name: keys.FileSigner.from_seed(bytes([i + 40]) * 32, name) for i, name in enumerate(NAMES)}
    charter = Charter.create(game="council-game", ruleset="council", version="1", scenario="default", dice="all",
                             reveal_hours=24, move_hours=72, options={}, tables={},
                             players=[Member(n, (), signers[n].public, "player") for n in NAMES])
    (tmp_path / "game.toml").write_text(charter.text)
    games, joins = {}, []
    for name in NAMES:
        games[name], message = join(tmp_path / "game.toml", tmp_path / name, signers[name],
                                    home=tmp_path / "home" / name)
        joins.append(message)
    for game in games.values():
        game.accept(joins)
    yield games, signers
    ruleset.unregister("council")


def everyone(games, message):
    for game in games.values():
        game.accept([message])


def test_a_decision_open_before_seq_1_binds_to_genesis_and_is_collected_at_seq_1(council):
    games, signers = council
    engine = games["bob"].engine()
    assert engine.head_seq == 0 and engine.sealed_members() == list(NAMES)
    for name in NAMES:
        seal, _ = games[name].seal(name, [{"kind": "pick", "text": name.upper()}], signers[name])
        assert (seal.fields["seq"], seal.fields["for"]) == (0, engine.genesis)
        everyone(games, seal)
    for name in NAMES:
        unseal, _ = games[name].unseal(name, signers[name])
        everyone(games, unseal)
    with pytest.raises(IllegalOrder, match="out of turn: the next entry is alice's"):
        games["bob"].move("bob", [], signers["bob"])
    entry, _ = games["alice"].move("alice", [], signers["alice"])  # only uses: the council is over
    assert entry.fields["seq"] == 1 and len(entry.uses) == 6
    everyone(games, entry)
    for game in games.values():
        assert game.verify().state["picks"] == {"alice": "ALICE", "bob": "BOB", "carol": "CAROL"}


def test_a_seal_bound_to_genesis_is_held_where_the_game_has_not_started(tmp_path):
    ruleset.register(Council())
    try:
        signers = {name: keys.FileSigner.from_seed(bytes([i + 50]) * 32, name) for i, name in enumerate(NAMES)}
        charter = Charter.create(game="council-2", ruleset="council", version="1", scenario="default", dice="all",
                                 reveal_hours=24, move_hours=72, options={}, tables={},
                                 players=[Member(n, (), signers[n].public, "player") for n in NAMES])
        (tmp_path / "game.toml").write_text(charter.text)
        games, joins = {}, {}
        for name in NAMES:
            games[name], joins[name] = join(tmp_path / "game.toml", tmp_path / name, signers[name],
                                            home=tmp_path / "home" / name)
        for name in ("alice", "bob"):
            games[name].accept(list(joins.values()))
        games["carol"].accept([joins["alice"]])  # bob's join has not reached carol
        seal, _ = games["alice"].seal("alice", [], signers["alice"])
        report = games["carol"].accept([seal])
        assert [o.status for o in report.outcomes] == ["held"]
        games["carol"].accept([joins["bob"]])  # the game starts at carol's, and the held seal applies
        assert games["carol"].dir.sealed_path("seal", "alice", 0).exists()
    finally:
        ruleset.unregister("council")
