"""A sealed round played through the real CLI by three players in separate directories and
PBEM_HOMEs (protocol §5, freeform.sealed): seal, unseal, collect; and every way it can go wrong.

alice opens a round among all three with `pbem move 'sealed …'`. Each member runs `pbem seal
'choose text=…'`; his key k and the orders' text stay in his PBEM_HOME. Once all seals are here,
each runs `pbem unseal` (or `pbem apply --unseal`). alice, first in roster order, collects them
with her next `pbem move`, and everyone sees every choice.
"""

from __future__ import annotations

import json
import secrets
import tomllib
from pathlib import Path

import pytest
from helpers import NAMES, changes, setup_game, snapshot, write

from pbem import chain
from pbem.message import parse, sign

OPEN = 'sealed players=alice,bob,carol purpose="bids for Alsace"'


def mail(table, sender: str, path, to=None) -> list[tuple[int, str, str]]:
    """`pbem apply PATH` in each recipient's directory (default: everyone but the sender)."""
    return [table[name].cli("apply", str(path)) for name in (to or table.others(sender))]


def outbox_file(table, name: str, kind: str) -> str:
    files = sorted((table[name].dir / "outbox").glob(f"*{kind}-{name}*.toml"))
    assert files, f"no {kind} of {name}'s in outbox/"
    return str(files[-1])


@pytest.fixture
def opened(tmp_path):
    table = setup_game(tmp_path, dice="open")
    code, _, err = table["alice"].cli("move", OPEN)
    assert code == 0, err
    for result in mail(table, "alice", table["alice"].dir / "outbox" / "000001-move-alice.toml"):
        assert result[0] == 0, result
    return table


def seal(table, name: str, *orders: str) -> str:
    code, _, err = table[name].cli("seal", *orders)
    assert code == 0, err
    path = outbox_file(table, name, "seal")
    for result in mail(table, name, path):
        assert result[0] == 0, result
    return path


def test_status_names_who_owes_a_seal(opened):
    code, out, err = opened["bob"].cli("status", "--json")
    assert code == 0, err
    step = json.loads(out)["step"]
    assert (step["kind"], step["seals_from"], step["collector"]) == ("sealed", ["alice", "bob", "carol"], "alice")
    _, out, _ = opened["bob"].cli("status")
    assert "a sealed choice: bids for Alsace" in out and "Waiting for the seals of alice, bob, carol" in out


def test_the_whole_round_through_the_cli(opened):
    table = opened
    bob_seal = seal(table, "bob", 'choose text="5 points"')
    assert "5 points" not in Path(bob_seal).read_text()  # the seal carries only a digest
    assert not list((table["bob"].dir).rglob("sealed.toml"))  # k and the text stay in the app dir
    assert list((table["bob"].home).rglob("sealed.toml"))
    code, _, err = table["bob"].cli("unseal")
    assert code == 5 and "waiting for the seal of alice, carol" in err, err
    seal(table, "alice", 'choose text="2 points"')
    seal(table, "carol")  # no orders: carol abstains
    for name in NAMES:
        code, _, err = table[name].cli("apply", "--unseal")
        assert code == 0, err
        for result in mail(table, name, outbox_file(table, name, "unseal")):
            assert result[0] == 0, result
    code, out, err = table["alice"].cli("move", 'note text="bob takes Alsace"')
    assert code == 0, err
    for result in mail(table, "alice", table["alice"].dir / "outbox" / "000002-move-alice.toml"):
        assert result[0] == 0, result
    code, out, err = table["carol"].cli("log", "--json")
    assert json.loads(out)[1]["unsealed"] == {"alice": ['choose text="2 points"'], "bob": ['choose text="5 points"'],
                                              "carol": []}
    code, out, err = table["carol"].cli("log")
    assert 'unsealed: alice choose text="2 points" | bob choose text="5 points" | carol (no orders); note' in out
    _, out, _ = table["bob"].cli("show", "state")
    assert "Last sealed round: bids for Alsace: alice 2 points · bob 5 points · carol abstains" in out
    for name in NAMES:
        code, out, err = table[name].cli("show", "state", "--json")
        assert json.loads(out)["last_sealed"]["choices"] == {"alice": "2 points", "bob": "5 points", "carol": None}
        assert table[name].cli("verify")[0] == 0


def test_an_illegal_sealed_order_is_refused_before_signing_and_changes_nothing(opened):
    before = snapshot(opened["bob"].dir), snapshot(opened["bob"].home)
    code, _, err = opened["bob"].cli("seal", "note text=x")
    assert code == 1 and "rule freeform.sealed: 'note' is not a sealed choice" in err, err
    assert changes(before[0], snapshot(opened["bob"].dir)) == {"added": [], "removed": [], "changed": []}
    assert snapshot(opened["bob"].home) == before[1]


def test_a_non_member_cannot_seal(tmp_path):
    table = setup_game(tmp_path, dice="open")
    table["alice"].cli("move", 'sealed players=alice,bob purpose="x"')
    mail(table, "alice", table["alice"].dir / "outbox" / "000001-move-alice.toml")
    code, _, err = table["carol"].cli("seal", 'choose text="me too"')
    assert code == 2 and "no simultaneous decision of carol's is open" in err, err


def test_an_unseal_before_its_seal_is_held(opened):
    table = opened
    for name in NAMES:
        table[name].cli("seal", f'choose text="{name}"')
    carol_seal = outbox_file(table, "carol", "seal")
    for name in ("alice", "bob"):
        mail(table, name, outbox_file(table, name, "seal"))
    mail(table, "carol", carol_seal, to=["alice"])
    assert table["carol"].cli("unseal")[0] == 0
    code, out, err = mail(table, "carol", outbox_file(table, "carol", "unseal"), to=["bob"])[0]
    assert code == 5 and "carol's unseal arrived before his seal" in out + err, (out, err)
    assert mail(table, "carol", carol_seal, to=["bob"])[0][0] == 0  # the held unseal applies with it


def test_two_seals_by_one_member_are_equivocation_and_both_are_kept(opened):
    table = opened
    first = seal(table, "bob", 'choose text="5"')
    engine = table["bob"].game().engine()
    other = sign({"pbem": 1, "type": "seal", "game": table.charter.game, "player": "bob", "for": engine.head_id,
                  "seq": 1, "sealed": secrets.token_hex(32)}, table["bob"].signer)
    code, _, err = table["alice"].cli("apply", str(write(table.root / "second.toml", other)))
    assert code == 4 and "equivocation: two seal messages by bob" in err, err
    kept = {parse(p.read_bytes()).id for p in (table["alice"].dir / "forks").glob("*.toml")}
    assert kept == {parse(Path(first).read_bytes()).id, other.id}


def test_an_unseal_that_does_not_open_its_seal_is_exit_3(opened):
    table = opened
    seal(table, "bob", 'choose text="5"')
    engine = table["bob"].game().engine()
    forged = sign({"pbem": 1, "type": "unseal", "game": table.charter.game, "player": "bob", "for": engine.head_id,
                   "seq": 1, "key": secrets.token_hex(32), "orders": '[[orders]]\nkind = "choose"\ntext = "9"\n'},
                  table["bob"].signer)
    before = snapshot(table["alice"].dir)
    code, _, err = table["alice"].cli("apply", str(write(table.root / "forged.toml", forged)))
    assert code == 3 and "bob's unseal does not open his seal" in err, err
    assert snapshot(table["alice"].dir) == before


def test_a_seal_copied_from_another_player_cannot_be_opened_by_the_copier(opened):
    """The digest binds the sealer's name: carol cannot take bob's seal as hers, even once bob's key
    and text are public."""
    table = opened
    bob_seal = parse(Path(seal(table, "bob", 'choose text="5"')).read_bytes())
    engine = table["carol"].game().engine()
    bound = {"pbem": 1, "game": table.charter.game, "player": "carol", "for": engine.head_id, "seq": 1}
    copied = sign({**bound, "type": "seal", "sealed": bob_seal.fields["sealed"]}, table["carol"].signer)
    assert mail(table, "carol", write(table.root / "copied.toml", copied), to=["alice"])[0][0] == 0
    kept = next(iter(table["bob"].home.rglob("sealed.toml"))).read_text()
    record = tomllib.loads(kept)["sealed"][0]
    replay = sign({**bound, "type": "unseal", "key": record["key"], "orders": record["orders"]},
                  table["carol"].signer)
    code, _, err = table["alice"].cli("apply", str(write(table.root / "replay.toml", replay)))
    assert code == 3 and "carol's unseal does not open his seal" in err, err
    assert chain.sealed_digest(table.charter.game, "bob", bytes.fromhex(engine.head_id),
                               bytes.fromhex(record["key"]), record["orders"]).hex() == bob_seal.fields["sealed"]


def test_a_seal_for_another_entry_is_refused_as_not_of_this_game(opened):
    table = opened
    stray = sign({"pbem": 1, "type": "seal", "game": table.charter.game, "player": "bob", "for": "ab" * 32,
                  "seq": 1, "sealed": secrets.token_hex(32)}, table["bob"].signer)
    code, _, err = table["alice"].cli("apply", str(write(table.root / "stray.toml", stray)))
    assert code == 4 and "seal names entry abababababab at seq 1" in err, err


def test_a_member_who_resigns_sends_an_empty_seal_and_its_unseal(opened):
    table = opened
    code, _, err = table["carol"].cli("resign", "--reason", "called away")
    assert code == 0, err
    sent = sorted(p.name for p in (table["carol"].dir / "outbox").glob("*carol*.toml"))
    assert any("seal-carol" in n for n in sent) and any("unseal-carol" in n for n in sent), sent


# ---------------------------------------------------------------------------- after review

def test_a_seal_that_failed_to_sign_leaves_no_key_that_blocks_the_unseal(opened):
    table = opened
    code, _, err = table["bob"].cli("seal", "--key", str(table["carol"].key), 'choose text="first"')
    assert code != 0, err
    for name in NAMES:
        seal(table, name, f'choose text="{name}"')
    code, _, err = table["bob"].cli("unseal")
    assert code == 0, err


def test_a_second_unseal_that_opens_nothing_is_exit_3_whatever_arrived_first(opened):
    table = opened
    for name in NAMES:
        seal(table, name)
    assert table["bob"].cli("unseal")[0] == 0
    good = outbox_file(table, "bob", "unseal")
    engine = table["bob"].game().engine()
    bad = sign({"pbem": 1, "type": "unseal", "game": table.charter.game, "player": "bob", "for": engine.head_id,
                "seq": 1, "key": secrets.token_hex(32), "orders": ""}, table["bob"].signer)
    bad_path = write(table.root / "bad-unseal.toml", bad)
    assert table["alice"].cli("apply", good)[0] == 0
    code, _, err = table["alice"].cli("apply", str(bad_path))
    assert code == 3 and "bob's unseal does not open his seal" in err, err
    assert not list((table["alice"].dir / "forks").glob("*.toml"))


def test_the_collector_passes_over_a_member_who_resigned(opened):
    table = opened
    code, _, err = table["alice"].cli("resign")
    assert code == 0, err
    for path in sorted((table["alice"].dir / "outbox").glob("*alice*.toml"))[1:]:  # her resign, seal, unseal
        mail(table, "alice", path)
    for name in ("bob", "carol"):
        seal(table, name)
    for name in ("bob", "carol"):
        assert table[name].cli("unseal")[0] == 0
        mail(table, name, outbox_file(table, name, "unseal"))
    code, out, err = table["carol"].cli("status", "--json")
    assert json.loads(out)["step"]["collector"] == "bob", out
    code, _, err = table["alice"].cli("move")
    assert code == 1 and "out of turn: the next entry is bob's" in err, err
    code, _, err = table["bob"].cli("move")
    assert code == 0, err


@pytest.mark.parametrize("when", ["collected", "no decision"])
def test_a_seal_that_can_never_be_used_is_refused(tmp_path, when):
    table = setup_game(tmp_path, dice="open")
    if when == "collected":
        table["alice"].cli("move", 'sealed players=alice,bob purpose="x"')
        mail(table, "alice", table["alice"].dir / "outbox" / "000001-move-alice.toml")
        for name in ("alice", "bob"):
            seal(table, name)
        for name in ("alice", "bob"):
            table[name].cli("unseal")
            mail(table, name, outbox_file(table, name, "unseal"))
        assert table["alice"].cli("move", "pass")[0] == 0
        mail(table, "alice", table["alice"].dir / "outbox" / "000002-move-alice.toml")
        bound = table["carol"].game().dir.entry(1).id
    else:
        bound = table["carol"].game().engine().head_id
    seq = 1 if when == "collected" else 0
    stray = sign({"pbem": 1, "type": "seal", "game": table.charter.game, "player": "carol", "for": bound,
                  "seq": seq, "sealed": secrets.token_hex(32)}, table["carol"].signer)
    code, _, err = table["bob"].cli("apply", str(write(table.root / "stray.toml", stray)))
    assert code == 1 and "rule PROTOCOL §5" in err, err
    assert not list((table["bob"].dir / "side").glob("seal-carol-*.toml"))


def test_verify_checks_the_seals_and_unseals_waiting_at_the_head(opened):
    table = opened
    for name in NAMES:
        seal(table, name)
    engine = table["alice"].game().engine()
    bad = sign({"pbem": 1, "type": "unseal", "game": table.charter.game, "player": "bob", "for": engine.head_id,
                "seq": 1, "key": secrets.token_hex(32), "orders": ""}, table["bob"].signer)
    write(table["alice"].dir / "side" / "unseal-bob-000001.toml", bad)
    code, _, err = table["alice"].cli("verify")
    assert code == 4 and "bob's unseal does not open his seal" in err, err


def test_seal_and_unseal_speak_json(opened):
    table = opened
    code, out, err = table["bob"].cli("seal", 'choose text="x"', "--json")
    assert code == 0, err
    sealed = json.loads(out)
    assert (sealed["type"], sealed["seq"]) == ("seal", 1) and sealed["outbox"].endswith("000001-seal-bob.toml")
    mail(table, "bob", table["bob"].dir / sealed["outbox"])
    for name in ("alice", "carol"):
        seal(table, name)
    code, out, err = table["bob"].cli("apply", "--unseal", "--json")
    assert code == 0, err
    assert json.loads(out)["unseal"].endswith("000001-unseal-bob.toml")


def test_the_sealed_text_is_the_orders_tables_of_an_entry(vectors):
    from pbem.orders import sealed_text

    text = vectors["dice"]["sealed"]["text"]  # the [sealed] vector's orders, as protocol §5 writes them
    assert sealed_text([{"kind": "overture", "ump": "prussia", "points": 2}]) == text
