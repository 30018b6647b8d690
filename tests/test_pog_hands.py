"""Paths of Glory hidden hands (base 4.3, 9.5.4; R92) through the real CLI.

The game's first entry (bob's `offensives`) deals both hands at its roll point, each by a private
draw of its own player: each client keeps its player's cards in his app dir, the public state only
the sizes. A second machine with the same key derives the same hand; a card not held is refused
before signing, and one signed anyway is caught by the audit once both have disclosed.
"""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import run_cli, snapshot
from pbem.rules.paths_of_glory import cards
from test_pog_cli_refusals import PogTable


@pytest.fixture
def pog(tmp_path) -> PogTable:
    return PogTable(tmp_path)


def dealt_until(tmp_path, wanted) -> PogTable:
    """A new game until alice's first hand satisfies `wanted`: each deal is a fresh private draw, so
    a case that needs her to hold (or lack) a card waits for such a deal (half of them, for one card;
    twenty tries fail once in a million)."""
    for attempt in range(20):
        table = PogTable(tmp_path / f"deal-{attempt}")
        if wanted(hand(table, "alice")):
            return table
    raise AssertionError("twenty deals without the hand the test needs")


def hand(pog: PogTable, who: str) -> list[str]:
    """The card ids of `who`'s hand, as his own client shows it."""
    data = pog.json(who, "show", "hand")
    side = {"alice": "ap", "bob": "cp"}[who]
    assert list(data["yours"]) == [side]
    return [label.split()[0] for label in data["yours"][side]["hand"]]


def test_each_side_is_dealt_seven_mobilization_cards_it_alone_sees(pog):
    mine = {who: hand(pog, who) for who in ("alice", "bob")}
    for who, side in (("alice", "ap"), ("bob", "cp")):
        assert len(mine[who]) == 7 and len(set(mine[who])) == 7
        assert set(mine[who]) <= set(cards.deck(side, "mobilization"))
    counts = pog.json("alice", "show", "hand")["counts"]
    assert counts == {side: {"hand": 7, "pile": 7, "limit": 7, "optional": 0, "decks": 1} for side in ("ap", "cp")}
    state = json.dumps(pog.json("alice", "show", "cards"))
    assert not [card for card in mine["bob"] if card in state]  # the public zones hold none of them


def test_a_new_machine_derives_the_same_hand_from_the_key(pog, tmp_path):
    before = hand(pog, "bob")
    laptop = tmp_path / "laptop"
    shutil.copytree(pog.dir("bob"), laptop / "game")
    code, out, err = run_cli(["show", "hand", "--json"], laptop / "game", home=tmp_path / "fresh-home")
    assert code == 0, err
    assert [label.split()[0] for label in json.loads(out)["yours"]["cp"]["hand"]] == before


def attack_sedan(pog: PogTable) -> None:
    pog.play("bob", f"activate spaces= attack=metz,koblenz card={pog.ops_card('bob', 2)}",
             "attack units=ge_2_army,ge_3_army,ge_4_army,ge_5_army space=sedan")


def test_a_combat_card_not_held_is_refused_before_signing(tmp_path):
    """R92: Withdrawal is the one Allied Mobilization card that fits the defence of Sedan; alice's
    own client refuses it when it is not in her hand, and nothing is signed."""
    pog = dealt_until(tmp_path, lambda held: "ap06" not in held)
    attack_sedan(pog)
    before = snapshot(pog.dir("alice"))
    code, out, err = pog.cli("alice", "move", "play_cards cards=ap_withdrawal")
    assert code == 1 and out == "", out
    assert err.endswith("field 'orders[1].cards[0]', rule R92: you do not hold ap06 Withdrawal\n"), err
    assert snapshot(pog.dir("alice")) == before


def test_a_card_signed_without_the_hand_is_caught_by_the_audit(tmp_path):
    """alice signs on a machine that never derived her hand, playing Withdrawal she does not hold;
    once both have disclosed, the audit names her entry, the field and the rule."""
    pog = dealt_until(tmp_path, lambda held: "ap06" not in held)
    attack_sedan(pog)
    laptop = tmp_path / "laptop"
    shutil.copytree(pog.dir("alice"), laptop)
    code, _, err = run_cli(["move", "play_cards cards=ap_withdrawal"], laptop, home=tmp_path / "bare-home")
    assert code == 0, err
    entry = sorted((laptop / "outbox").glob("*-move-alice.toml"))[-1]
    for who in ("alice", "bob"):
        assert pog.cli(who, "apply", str(entry))[0] == 0, who
    pog_disclose(pog)
    code, _, err = pog.cli("bob", "audit", "alice")
    assert code == 4 and "player alice, field 'orders[1].cards[0]', rule R92: audit: you do not hold " \
        "ap06 Withdrawal" in err, err


def pog_disclose(pog: PogTable) -> None:
    for who, other in (("alice", "bob"), ("bob", "alice")):
        code, out, err = pog.cli(who, "disclose", "--json")
        assert code == 0, err
        assert pog.cli(other, "apply", str(pog.dir(who) / json.loads(out)["outbox"]))[0] == 0


def test_the_defender_plays_a_card_he_holds(tmp_path):
    """R92: a combat card from the hand leaves it (the count drops by one) and is used for the round."""
    pog = dealt_until(tmp_path, lambda held: "ap06" in held)
    attack_sedan(pog)
    pog.play("alice", "play_cards cards=ap_withdrawal")
    assert pog.json("bob", "show", "hand")["counts"]["ap"]["hand"] == 6
    assert "ap06" not in hand(pog, "alice")
    assert "ap06 Withdrawal" in pog.json("bob", "show", "cards")["used_this_round"]
    assert pog.combat()["cards"] == {"defender": ["ap_withdrawal"]}
