"""Hidden hands (protocol §7) with freeform's deck (freeform.deck), through the real CLI.

alice deals three cards to everyone: each player's own copy of the charter's deck is shuffled by a
private draw of that entry's roll point, so only he knows his cards, and nobody (he included) could
steer them. The public state holds counts and the cards played; each client keeps its own player's
pile and hand in his app dir. A second machine with the same key derives the same hand.
"""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

import pytest
from helpers import NAMES, run_cli, setup_game, snapshot, write

DECK = {"deck": {"cards": [f"card_{n:02d}" for n in range(1, 21)]}}


def deliver_all(table, sender: str) -> None:
    for path in sorted((table[sender].dir / "outbox").glob("*.toml")):
        for name in table.others(sender):
            table[name].cli("apply", str(path))


@pytest.fixture
def dealt(tmp_path):
    table = setup_game(tmp_path, tables=DECK)
    code, _, err = table["alice"].cli("move", "deal count=3")
    assert code == 0, err
    table.deliver(table["alice"].dir / "outbox" / "000001-move-alice.toml", ["bob", "carol"])
    table.reveal_all()
    return table


def hand(table, name: str, **kw) -> dict:
    code, out, err = table[name].cli("show", "hand", "--json", **kw)
    assert code == 0, err
    return json.loads(out)


def test_each_player_sees_only_his_own_hand_and_everyone_the_counts(dealt):
    hands = {}
    for name in NAMES:
        data = hand(dealt, name)
        assert list(data["yours"]) == [name]
        hands[name] = data["yours"][name]["hand"]
        assert len(hands[name]) == 3 and data["yours"][name]["pile"] == 17
        assert data["counts"] == {p: {"hand": 3, "pile": 17} for p in NAMES}
    assert all(set(h) <= set(DECK["deck"]["cards"]) for h in hands.values())
    assert len({tuple(h) for h in hands.values()}) > 1  # three private shuffles


def test_no_card_of_a_hand_is_in_the_game_directory(dealt):
    """The charter lists the deck; nothing else there names a card (the log, side messages, state.toml)."""
    bob = hand(dealt, "bob")["yours"]["bob"]["hand"]
    for name in NAMES:
        files = {path: data for path, data in snapshot(dealt[name].dir).items() if path != "game.toml"}
        text = b"".join(files.values()).decode("utf-8", "replace")
        assert not [card for card in bob if card in text], name


def test_a_new_machine_derives_the_same_hand_from_the_key(dealt, tmp_path):
    before = hand(dealt, "bob")["yours"]["bob"]
    laptop = tmp_path / "laptop"
    shutil.copytree(dealt["bob"].dir, laptop / "game")
    fresh_home = tmp_path / "fresh-home"
    code, out, err = run_cli(["show", "hand", "--json"], laptop / "game", home=fresh_home)
    assert code == 0, err
    assert json.loads(out)["yours"]["bob"] == before


def test_a_card_not_held_is_refused_before_signing(dealt):
    held = hand(dealt, "bob")["yours"]["bob"]["hand"]
    other = next(c for c in DECK["deck"]["cards"] if c not in held)
    dealt["alice"].cli("move", "pass")
    deliver_all(dealt, "alice")
    before = snapshot(dealt["bob"].dir)
    code, _, err = dealt["bob"].cli("move", f"play card={other}")
    assert code == 1 and f"rule freeform.deck: you do not hold '{other}'" in err, err
    assert snapshot(dealt["bob"].dir) == before
    code, _, err = dealt["bob"].cli("move", f"play card={held[0]}", "draw count=2")
    assert code == 0, err
    after = hand(dealt, "bob")
    assert held[0] not in after["yours"]["bob"]["hand"] and len(after["yours"]["bob"]["hand"]) == 4
    assert after["counts"]["bob"] == {"hand": 4, "pile": 15}
    assert after["played"] == [{"player": "bob", "card": held[0], "turn": 1}]


def test_verify_explains_a_deal_as_hidden(dealt):
    code, out, err = dealt["carol"].cli("verify", "--roll", "1", "--json")
    assert code == 0, err
    shown = [p["shown"] for p in json.loads(out)["private"]]
    assert shown == [f"deal 3 to {p} (freeform.deck): hidden until {p} discloses" for p in NAMES]


def test_a_deck_that_cannot_be_dealt_is_refused_by_pbem_new(tmp_path):
    from pbem import ruleset as rulesets
    from pbem.errors import UsageError
    from pbem.ruleset import Seat, Setup

    setup = Setup("default", tuple(Seat(n, (), "player") for n in NAMES), {}, {"deck": {"cards": []}})
    with pytest.raises(UsageError, match=r"rule freeform\.deck"):
        rulesets.load("freeform").check_setup(setup)


def test_the_hidden_chain_and_private_stream_match_the_vectors(vectors):
    """h_{L-s} and the private stream of the [hidden] vector, through what the engine uses."""
    from pbem import chain
    from pbem.hidden import HiddenChain, PrivateDraws

    d = vectors["dice"]
    h, rs = d["hidden"], d["roll_seed"]
    hidden = HiddenChain(bytes.fromhex(h["hidden_seed"]))
    assert hidden.value(h["seq"]).hex() == h["h_for_seq"]
    assert hidden.commitment() == chain.hash_forward(bytes.fromhex(h["hidden_seed"]), chain.CHAIN_LENGTH)
    public = chain.roll_seed(rs["game"], rs["seq"], bytes.fromhex(rs["entry_id"]),
                             [bytes.fromhex(d["chain"][name]) for name in rs["witness_values"]])
    dice = PrivateDraws(h["seq"], public, {"alice": hidden}).dice("alice", "deal", "9.1")
    assert dice is not None and [dice.uniform(40, "deal", "9.1") for _ in range(5)] == h["private_below_40_x5"]


# ---------------------------------------------------------------------------- disclose and audit

def play_and_deliver(table, name: str, *orders: str, cwd=None, home=None) -> None:
    args = ["move", *orders]
    code, _, err = run_cli(args, cwd or table[name].dir, home=home or table[name].home)
    assert code == 0, err
    outbox = Path(cwd or table[name].dir) / "outbox"
    newest = sorted(outbox.glob(f"*-move-{name}.toml"))[-1]
    for other in table.others(name):
        assert table[other].cli("apply", str(newest))[0] == 0
    if name == "bob" and cwd is not None:  # bob's own directory learns of what his laptop signed
        assert table["bob"].cli("apply", str(newest))[0] == 0


def disclose_all(table) -> None:
    for name in NAMES:
        code, out, err = table[name].cli("disclose", "--json")
        assert code == 0, err
        path = table[name].dir / json.loads(out)["outbox"]
        for other in table.others(name):
            assert table[other].cli("apply", str(path))[0] == 0


def test_everyone_discloses_at_the_end_and_the_audit_passes(dealt):
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    play_and_deliver(table, "bob", f"play card={held[1]}", "pass")
    play_and_deliver(table, "carol", 'end result="bob shows his card"')
    code, out, err = table["alice"].cli("status", "--json")
    assert json.loads(out)["step"]["disclosures_from"] == list(NAMES)
    disclose_all(table)
    code, out, err = table["carol"].cli("audit", "--json")
    assert code == 0, err
    audited = json.loads(out)
    assert set(audited) == set(NAMES) and held[1] not in audited["bob"]["view"]["hand"]
    assert audited["bob"]["view"]["hand"] == [c for c in held if c != held[1]]
    assert "disclosures_from" not in json.loads(table["alice"].cli("status", "--json")[1])["step"]


def test_a_card_played_that_was_not_held_is_caught_by_the_audit(dealt, tmp_path):
    """bob signs on a machine that never derived his hand (his client cannot refuse); once he has
    disclosed, the audit names the entry and the rule."""
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    other = next(c for c in DECK["deck"]["cards"] if c not in held)
    play_and_deliver(table, "alice", "pass")
    laptop = tmp_path / "laptop"
    shutil.copytree(table["bob"].dir, laptop)
    play_and_deliver(table, "bob", f"play card={other}", "pass", cwd=laptop, home=tmp_path / "bare-home")
    disclose_all(table)
    code, _, err = table["alice"].cli("audit", "bob")
    assert code == 4 and f"player bob, field 'orders[1].card', rule freeform.deck: audit: you do not hold '{other}'" \
        in err, err


def test_a_disclosure_that_does_not_lead_to_the_join_is_exit_3(dealt):
    from pbem.message import sign

    forged = sign({"pbem": 1, "type": "disclose", "game": dealt.charter.game, "player": "bob", "upto": 1,
                   "hidden": secrets.token_hex(32)}, dealt["bob"].signer)
    before = snapshot(dealt["alice"].dir)
    code, _, err = dealt["alice"].cli("apply", str(write(dealt.root / "forged.toml", forged)))
    assert code == 3 and "bob's disclosed value does not lead to the hcommit of his join" in err, err
    assert snapshot(dealt["alice"].dir) == before


# ---------------------------------------------------------------------------- private records

def test_a_card_discarded_face_down_is_sealed_in_the_entry_and_audited(dealt):
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    play_and_deliver(table, "bob", f"discard card={held[2]}", "pass")
    entry = (table["bob"].dir / "entries" / "000003.toml").read_text()
    assert held[2] not in entry and "private = " in entry  # the card travels only encrypted
    assert held[2] not in hand(table, "bob")["yours"]["bob"]["hand"]
    assert hand(table, "alice")["counts"]["bob"] == {"hand": 2, "pile": 17}
    play_and_deliver(table, "carol", 'end result="over"')
    disclose_all(table)
    code, out, err = table["alice"].cli("audit", "bob", "--json")
    assert code == 0, err
    assert json.loads(out)["bob"]["view"]["hand"] == held[:2]


def test_a_card_not_held_cannot_be_discarded(dealt):
    held = hand(dealt, "bob")["yours"]["bob"]["hand"]
    other = next(c for c in DECK["deck"]["cards"] if c not in held)
    play_and_deliver(dealt, "alice", "pass")
    code, _, err = dealt["bob"].cli("move", f"discard card={other}")
    assert code == 1 and f"you do not hold '{other}'" in err, err


def test_a_tampered_private_record_is_rejected_by_its_owner_and_by_the_audit(dealt):
    from pbem.message import parse, sign

    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    signed = sign({**_fields_of(table, "bob", held[0]), "private": secrets.token_hex(40)}, table["bob"].signer)
    path = write(table.root / "tampered.toml", signed)
    code, _, err = table["bob"].cli("apply", str(path))  # his own client opens it: it does not
    assert code == 4 and "the private record does not open" in err, err
    assert parse(path.read_bytes()).id == signed.id


def test_a_private_record_of_the_wrong_type_is_refused_not_misread(dealt):
    """A record sealed with bob's own hidden value, whose card is a number: his client opens it and
    finds the record defective, by the field's declared type (exit 4, as a record that does not
    open), in one line."""
    from pbem.hidden import HiddenChain, seal_record
    from pbem.message import sign

    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    fields = _fields_of(table, "bob", held[0])
    game = table["bob"].game()
    hidden = HiddenChain(game.seed_store("bob").seeds(lambda: table["bob"].signer)["hidden"])
    fields["private"] = seal_record(hidden, fields["seq"], fields["salt"], fields["prev"], {1: {"card": 5}})
    path = write(table.root / "typed.toml", sign(fields, table["bob"].signer))
    code, _, err = table["bob"].cli("apply", str(path))
    assert code == 4 and "field 'orders[1].private.card'" in err and "must be text" in err, err
    assert err.count("\n") == 1


def test_an_order_with_private_fields_always_seals_a_record_of_one_size(dealt):
    """Whatever it holds, a record is padded to whole blocks of 1,024 bytes (protocol §7.3)."""
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    first = _fields_of(table, "bob", held[0])["private"]
    other = _fields_of(table, "bob", held[1])["private"]
    assert len(first) == len(other) and len(bytes.fromhex(first)) % 1024 == 16  # 16: the tag


def _fields_of(table, name: str, card: str) -> dict:
    """An entry of `name`'s discarding `card`, drafted as his client would, its fields to alter."""
    message = table[name].game().draft(name, [{"kind": "discard", "card": card}, {"kind": "pass"}],
                                       table[name].signer)
    return {key: value for key, value in message.fields.items()}


def test_keep_is_a_private_choice_among_the_next_cards(dealt):
    table = dealt
    play_and_deliver(table, "alice", "pass")
    laptop_view = hand(table, "bob")["yours"]["bob"]
    assert laptop_view["pile"] == 17
    pile = _bob_pile(table)
    code, _, err = table["bob"].cli("move", f"keep count=2 card={pile[5]}")
    assert code == 1 and "is not among the next 2 cards of your pile" in err, err
    play_and_deliver(table, "bob", f"keep count=2 card={pile[1]}", "pass")
    after = hand(table, "bob")
    assert pile[1] in after["yours"]["bob"]["hand"] and after["counts"]["bob"] == {"hand": 4, "pile": 16}
    assert _bob_pile(table)[-1] == pile[0]  # the card looked at and left goes to the bottom
    assert pile[1] not in (table["bob"].dir / "entries" / "000003.toml").read_text()


def _bob_pile(table) -> list[str]:
    engine, _ = table["bob"].game().current()
    return list(engine.views["bob"]["pile"])


def test_another_player_cannot_open_a_private_record(dealt):
    from pbem.hidden import HiddenChain, open_record

    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    play_and_deliver(table, "bob", f"discard card={held[0]}", "pass")
    entry = table["alice"].game().dir.entry(3)
    alice_seeds = table["alice"].game().seed_store("alice").load()
    with pytest.raises(ValueError, match="does not open"):
        open_record(HiddenChain(alice_seeds["hidden"]), 3, entry.fields["salt"], entry.fields["prev"],
                    entry.fields["private"])
    engine, _ = table["alice"].game().current()
    assert "bob" not in engine.views  # alice's client holds no view of bob's


def test_a_card_shown_twice_is_refused_by_everyone(dealt):
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    play_and_deliver(table, "bob", f"play card={held[0]}", "pass", cwd=None)
    play_and_deliver(table, "carol", "pass")
    play_and_deliver(table, "alice", "pass")
    engine, _ = table["alice"].game().current()
    from pbem.errors import IllegalOrder

    with pytest.raises(IllegalOrder, match="shown every copy"):
        table["alice"].game().ruleset.apply(engine.state, "bob", {"kind": "play", "card": held[0]})


def test_a_disputed_entry_is_named_until_its_author_discloses_up_to_it(dealt):
    table = dealt
    held = hand(table, "bob")["yours"]["bob"]["hand"]
    play_and_deliver(table, "alice", "pass")
    play_and_deliver(table, "bob", f"play card={held[0]}", "pass")
    code, out, err = table["alice"].cli("dispute", "3")
    assert code == 0 and "ask bob to run 'pbem disclose --upto 3'" in out, err
    code, out, _ = table["alice"].cli("status")
    assert "You dispute seq 3: bob owes a disclosure up to it" in out
    code, out, err = table["bob"].cli("disclose", "--upto", "3", "--json")
    assert code == 0, err
    assert table["alice"].cli("apply", str(table["bob"].dir / json.loads(out)["outbox"]))[0] == 0
    assert json.loads(table["alice"].cli("status", "--json")[1])["disputes"] == []
    code, out, err = table["alice"].cli("audit", "bob", "--json")
    assert code == 0 and json.loads(out)["bob"]["upto"] == 3, err
    code, _, err = table["alice"].cli("dispute", "9")
    assert code == 2 and "there is no entry 9" in err, err
