"""The draw step's private side (8.1.6; R99, R100): what each player's own client knows.

The public side (sizes, zones, who acts) is in tests/cases/paths_of_glory/draws.toml. Here:
through the real CLI, a card drawn at a roll point joins its player's hand only, is unknown to him
before that roll point, is derived again from his key on a new machine, and passes the audit once
both have disclosed. Through the ruleset with a real hidden chain (a game at Limited War needs two
turns of play, which the full-game test gives): a look at two cards and the private `keep`, and a
pile that runs out, whose discards the player's view must forget.
"""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import run_cli
from pbem.rules.paths_of_glory import cards, draws, hands
from pbem.rules.paths_of_glory.state import position_from_case
from pog_cases import RULESET
from test_pog_cli_refusals import PogTable
from test_pog_hands import hand, pog_disclose

from pbem.errors import IllegalOrder
from pbem.hidden import HiddenChain, PrivateDraws


@pytest.fixture
def pog(tmp_path) -> PogTable:
    return PogTable(tmp_path)


def rp_then_draw(pog: PogTable) -> tuple[list[str], str]:
    """bob plays a card of his hand as RP and draws in the same entry; returns his hand before and
    the card played."""
    before = hand(pog, "bob")
    played = next(card for card in before if cards.catalogue()[card]["rp"].get("ge"))
    pog.play("bob", f"rp card={played}", "draw")
    return before, played


def test_a_drawn_card_joins_its_players_hand_alone(pog):
    before, played = rp_then_draw(pog)
    after = hand(pog, "bob")
    new = set(after) - set(before)
    assert set(before) - set(after) == {played} and len(new) == 1 and len(after) == 7
    assert new <= set(cards.deck("cp", "mobilization"))
    alice_sees = pog.json("alice", "show", "hand")
    assert "cp" not in alice_sees["yours"]
    assert alice_sees["counts"]["cp"] == {"hand": 7, "pile": 6, "limit": 7, "optional": 0, "decks": 1}
    assert not [card for card in new if card in json.dumps(pog.json("alice", "show", "cards"))]


def test_the_card_is_unknown_until_the_roll_point(pog):
    """R99: signed, the draw is only asked for; the card comes with the other player's reveal."""
    before = hand(pog, "bob")
    played = next(card for card in before if cards.catalogue()[card]["rp"].get("ge"))
    code, _, err = pog.cli("bob", "move", f"rp card={played}", "draw")
    assert code == 0, err
    assert sorted(hand(pog, "bob")) == sorted(set(before) - {played})


def test_a_new_machine_draws_the_same_card_from_the_key(pog, tmp_path):
    rp_then_draw(pog)
    laptop = tmp_path / "laptop"
    shutil.copytree(pog.dir("bob"), laptop / "game")
    code, out, err = run_cli(["show", "hand", "--json"], laptop / "game", home=tmp_path / "fresh-home")
    assert code == 0, err
    assert [label.split()[0] for label in json.loads(out)["yours"]["cp"]["hand"]] == hand(pog, "bob")


def test_the_audit_passes_on_draws(pog):
    rp_then_draw(pog)
    pog_disclose(pog)
    code, out, err = pog.cli("alice", "audit", "bob")
    assert code == 0 and "consistent with the hidden draws" in out, err


def test_recycling_sends_the_card_to_the_public_discard_pile(pog):
    held = hand(pog, "bob")
    recycled = held[-1]
    pog.play("bob", "rp rp=ge", f"recycle card={recycled}")
    assert cards.label(recycled) in json.dumps(pog.json("alice", "show", "cards"))
    assert recycled not in hand(pog, "bob") and len(hand(pog, "bob")) == 7


# ---------------------------------------------------------------------------------- the view, through the ruleset

def at_the_draw(commitment: str, hand_cards: list[str], pile: int, zones: dict | None = None) -> tuple:
    """A Central Powers position after the automatic RP 1, asking to draw; their view and private
    draws from a real hidden chain."""
    state = position_from_case({"commitment": {"cp": commitment}, "cards": zones or {},
                                "hands": {"cp": {"hand": len(hand_cards), "pile": pile},
                                          "ap": {"hand": 7, "pile": 7}}}, frozenset())
    view = {"sides": {"cp": {"hand": list(hand_cards)}}}
    RULESET.apply(state, "cp", {"kind": "rp", "rp": "ge"})
    RULESET.apply(state, "cp", {"kind": "draw"})
    private = PrivateDraws(7, bytes(32), {"cp": HiddenChain(b"hidden seed of cp".ljust(32, b"."))}, {"cp": view})
    return state, view, private


LIMITED_HAND = ["cp02", "cp03", "cp04", "cp05", "cp06", "cp07"]


def test_limited_war_shows_two_cards_of_the_pile_and_keeps_the_chosen_one():
    state, view, private = at_the_draw("limited", LIMITED_HAND, 28)
    RULESET.resolve(state, None, private)
    looking = view["sides"]["cp"]["looking"]
    pile = set(cards.deck("cp", "mobilization")) | set(cards.deck("cp", "limited"))
    assert len(set(looking)) == 2 and set(looking) <= pile - set(LIMITED_HAND)
    with pytest.raises(IllegalOrder) as refused:
        RULESET.check_private(view, "cp", {"kind": "keep", "card": "cp08" if "cp08" not in looking else "cp09"}, state)
    assert refused.value.rule == "8.1.6" and refused.value.field == "card"
    RULESET.check_private(view, "cp", {"kind": "keep", "card": looking[1]}, state)
    RULESET.apply(state, "cp", {"kind": "keep"})
    RULESET.apply_private(view, "cp", {"kind": "keep", "card": looking[1]})
    assert view["sides"]["cp"] == {"hand": [*LIMITED_HAND, looking[1]], "looking": []}
    assert state.hands["cp"]["hand"] == 7 and state.hands["cp"]["pile"] == 27
    assert len(draws.pile_of(state, "cp", view["sides"]["cp"], [])) == 27


def test_the_discards_back_in_the_pile_leave_the_view():
    """Guns of August was played (it is in the discard pile) but the view still lists it as dealt;
    the pile runs out, the discards come back into it, and the view forgets it: it may be drawn
    again, and is not taken for held meanwhile."""
    dealt = ["cp01", "cp02", "cp03", "cp04", "cp05", "cp06", "cp07"]
    gone = ["cp08", "cp09", "cp10", "cp11", "cp12", "cp13"]  # so that Austria (cp14) is the pile's last card
    state, view, private = at_the_draw("mobilization", dealt[1:], 1, {"cp_discard": ["cp01"], "removed": gone})
    view["sides"]["cp"]["hand"] = list(dealt)
    RULESET.resolve(state, None, private)
    mine = view["sides"]["cp"]
    assert mine["hand"] == [*dealt[1:], "cp14"]
    assert state.hands["cp"] == {"hand": 7, "pile": 1, "limit": 7, "optional": 0, "decks": 1}
    assert "cp01" in hands.unseen(state, "cp")
    assert len(draws.pile_of(state, "cp", mine, [])) == state.hands["cp"]["pile"]


def test_a_card_of_the_pile_cannot_be_recycled(pog):
    """R92: a card the Central Powers could hold but bob does not (it is in his pile) is refused by
    his own client before signing; the public check alone would let it through."""
    held = hand(pog, "bob")
    unheld = next(card for card in cards.deck("cp", "mobilization") if card not in held)
    line = pog.refuse("bob", "rp rp=ge", f"recycle card={unheld}")
    assert line.endswith(f"field 'orders[2].card', rule R92: you do not hold {cards.label(unheld)}\n"), line


@pytest.mark.parametrize("kind", ["recycle", "extra", "initiative"])
def test_every_card_given_up_from_the_hand_is_checked_against_the_view(kind):
    """The audit and the player's own client check each card an order takes from the hand."""
    view = {"sides": {"cp": {"hand": ["cp03"]}, "ap": {"hand": ["ap03"]}}}
    card = "cp05" if kind != "initiative" else "ap05"
    with pytest.raises(IllegalOrder) as refused:
        RULESET.check_private(view, "bob", {"kind": kind, "card": card}, position_from_case({}, frozenset()))
    assert refused.value.rule == "R92" and refused.value.field == "card"


def test_a_hand_shown_must_be_the_hand_held():
    """R106: after Mata Hari the Allies' hand is listed in the clear; everyone checks its size, and
    the player's own client and the audit that it is the hand his view holds."""
    state = position_from_case({"commitment": {"cp": "limited"},
                                "hands": {"cp": {"hand": 7, "pile": 27}, "ap": {"hand": 3, "pile": 11}}}, frozenset())
    RULESET.apply(state, "cp", {"kind": "event", "card": "mata_hari"})
    view = {"sides": {"ap": {"hand": ["ap01", "ap02", "ap03"]}}}
    RULESET.check_private(view, "alice", {"kind": "show_hand", "cards": ["ap03", "ap01", "ap02"]}, state)
    with pytest.raises(IllegalOrder) as refused:
        RULESET.check_private(view, "alice", {"kind": "show_hand", "cards": ["ap01", "ap02", "ap04"]}, state)
    assert (refused.value.rule, refused.value.field) == ("R106", "cards")
    assert "ap03 Russian Reinforcements" in str(refused.value)
