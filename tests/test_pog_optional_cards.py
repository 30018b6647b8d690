"""The optional cards by selection (base 2.3 note; R119), through the real CLI: before the deal each
player signs `select_cards`, whose cards stay in his entry's private record; his hand and pile are
then dealt from his own selection, the other player learns nothing of it, a selection that does not
match is refused before signing, and the audit passes once both disclose."""

from __future__ import annotations

import pytest
from pbem.rules.paths_of_glory import cards, draws
from test_pog_cli_refusals import PogTable
from test_pog_hands import hand, pog_disclose

from pbem.game import Game
from pbem.message import parse

BOB_PICK = "select_cards add=cp57 remove=cp06"  # Kaisertreu for Entrench: Mobilization, OPS 3, SR 4
ALICE_PICK = "select_cards add=ap56 remove=ap05"  # Paris Taxis for Putnik: Mobilization, OPS 2, SR 2


@pytest.fixture
def pog(tmp_path) -> PogTable:
    return PogTable(tmp_path, {"optional_cards": "selected"}, opened=False)


def selected_and_dealt(pog: PogTable) -> None:
    pog.waiting("bob", "Central Powers: before the deal, select the optional cards you add and the basic cards they "
                       "replace, in private (select_cards add=... remove=...; none: select_cards)")
    pog.play("bob", BOB_PICK)
    pog.play("alice", ALICE_PICK)
    pog.play("bob", "offensives")


def test_each_side_is_dealt_from_its_own_selection(pog):
    selected_and_dealt(pog)
    engine, _ = Game(pog.dir("bob"), home=pog.home("bob")).current()
    mine = engine.views["bob"]["sides"]["cp"]
    pile = draws.pile_of(engine.state, "cp", mine, [])
    basic = set(cards.deck("cp", "mobilization"))
    assert set(hand(pog, "bob")) | set(pile) == basic - {"cp06"} | {"cp57"}
    assert len(hand(pog, "bob")) == 7 and engine.state.hands["cp"]["pile"] == len(pile) == 7
    assert pog.json("bob", "show", "hand")["yours"]["cp"]["selection"] == {
        "add": ["cp57 Kaisertreu"], "remove": ["cp06 Entrench"]}


def test_the_other_player_learns_nothing_of_a_selection(pog):
    selected_and_dealt(pog)
    first = parse((pog.dir("alice") / "entries" / "000001.toml").read_bytes())
    assert first.fields["orders"] == [{"kind": "select_cards"}]
    assert "cp" not in pog.json("alice", "show", "hand")["yours"]
    assert "cp57" not in (pog.dir("alice") / "entries" / "000001.toml").read_text()


def test_a_selection_that_does_not_match_is_refused_before_signing(pog):
    line = pog.refuse("bob", "select_cards add=cp57 remove=cp02")  # Wireless Intercepts: OPS 2, SR 2
    assert "field 'orders[1].remove[0]', rule base 2.3: cp02 Wireless Intercepts does not match cp57 Kaisertreu" \
        in line, line
    line = pog.refuse("bob", "select_cards add=cp06 remove=cp07")
    assert "field 'orders[1].add[0]', rule base 2.3: cp06 Entrench is not an optional card" in line, line
    line = pog.refuse("bob", "select_cards add=cp57")
    assert "field 'orders[1].remove', rule base 2.3: name one basic card to remove for each optional card" in line


def test_guns_of_august_taken_out_is_not_chosen_for_the_hand(pog):
    pog.play("bob", "select_cards add=cp57 remove=cp01")  # Guns of August: Mobilization, OPS 3, SR 4
    pog.play("alice", "select_cards")
    line = pog.refuse("bob", "offensives guns_of_august=true")
    assert "field 'orders[1].guns_of_august', rule base 2.3: your selection took Guns of August out" in line, line


def test_the_audit_passes_on_selections(pog):
    selected_and_dealt(pog)
    pog_disclose(pog)
    for who, other in (("alice", "bob"), ("bob", "alice")):
        code, out, err = pog.cli(who, "audit", other)
        assert code == 0 and "consistent with the hidden draws" in out, err


def test_show_hand_names_the_selection(pog):
    selected_and_dealt(pog)
    code, out, err = pog.cli("alice", "show", "hand")
    assert code == 0 and "Your optional cards: ap56 Paris Taxis; out of the game for them: ap05 Putnik" in out, err


def test_a_selection_is_refused_with_fixed_first_cards():
    """The teaching scenario puts named cards in the first hands: a secret selection could take them
    out of the game, so the charter is refused (R119)."""
    from pog_cases import RULESET

    from pbem.errors import UsageError
    from pbem.ruleset import Seat, Setup

    roster = (Seat("alice", ("ap",), "player"), Seat("bob", ("cp",), "player"))
    with pytest.raises(UsageError, match="deals fixed first cards") as refused:
        RULESET.check_setup(Setup("demo_1914", roster, options={"optional_cards": "selected"}))
    assert refused.value.field == "optional_cards"
    RULESET.check_setup(Setup("august_1914", roster, options={"optional_cards": "selected"}))


ALL_TEN = ("select_cards add=ap56,ap57,ap58,ap59,ap60,ap61,ap62,ap63,ap64,ap65 "
           "remove=ap04,ap03,ap18,ap19,ap15,ap28,ap36,ap41,ap42,ap35")


def test_an_empty_selection_looks_like_any_other(pog):
    """Both entries carry a private record of one size, all ten cards or none: the size tells
    nothing (R119)."""
    pog.play("bob", "select_cards")
    pog.play("alice", ALL_TEN)
    sizes = {len(parse((pog.dir("alice") / "entries" / f"00000{seq}.toml").read_bytes()).fields["private"])
             for seq in (1, 2)}
    assert len(sizes) == 1
