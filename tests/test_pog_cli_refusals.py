"""Refused Paths of Glory orders as a player meets them at the command line.

Two players, alice (ap) and bob (cp), each in his own game directory with his own PBEM_HOME, play a
real game through `pbem` run in process (`run_cli`): `pbem move` signs, `pbem apply` passes the
entry to the other player, `pbem apply --reveal` answers a roll and the reveal goes back. Each
refusal must be one line on stderr naming the entry, the player, the field and the rule, exit 1,
and sign nothing: both game directories (and both app dirs) stay byte for byte as they were, and
a correct order right after it is accepted.

The dice of a combat come from the witness's reveal and the entry's id, and every entry carries a
fresh random salt and its time: the same orders do not give the same dice twice. So each combat
here is one whose step is forced for all 36 rolls of its two fire dice (checked against the
combat tables when these tests were written), and where a side may have to choose its losses the
tests answer with an order legal for every roll; every choice they make is asserted to be
accepted, so a change in the rules shows up as a failure naming the step, not as a flaky test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import changes, open_pog_game, run_cli, snapshot, write_key

from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.game import join

SIDES = {"alice": "ap", "bob": "cp"}
OTHER = {"alice": "bob", "bob": "alice"}


class PogTable:
    """A started Paths of Glory game (august_1914) whose first turn's offensives are rolled, as
    test_contract.py's `pog_game` sets it up; every later step goes through the CLI."""

    def __init__(self, root: Path, options: dict | None = None, opened: bool = True) -> None:
        self.root = root
        signers = {name: write_key(root / "keys" / name, bytes([seed]) * 32, name)
                   for seed, name in enumerate(SIDES, 21)}
        charter = Charter.create(
            game="pog-refusals", ruleset="paths_of_glory", version=rulesets.load("paths_of_glory").version,
            scenario="august_1914", dice="all", reveal_hours=24, move_hours=72, options=options or {}, tables={},
            players=[Member(name, (side,), signers[name].public, "player") for name, side in SIDES.items()])
        (root / "game.toml").write_text(charter.text)
        games: dict = {}
        joins: list = []
        for name in SIDES:
            games[name], message = join(root / "game.toml", self.dir(name), signers[name], home=self.home(name),
                                        key_path=str(root / "keys" / name))
            joins.append(message)
        for game in games.values():
            game.accept(joins)
        if opened:
            open_pog_game(games, signers)

    def dir(self, who: str) -> Path:
        return self.root / who

    def home(self, who: str) -> Path:
        return self.root / "home" / who

    def cli(self, who: str, *args: str) -> tuple[int, str, str]:
        return run_cli(list(args), self.dir(who), home=self.home(who))

    def json(self, who: str, *args: str):
        code, out, err = self.cli(who, *args, "--json")
        assert code == 0, (args, err)
        return json.loads(out)

    def status(self, who: str = "bob") -> dict:
        return self.json(who, "status")

    def step(self, who: str = "bob") -> dict:
        return self.status(who)["step"]

    def combat(self) -> dict:
        return self.json("bob", "show", "combat")

    def ops_card(self, who: str, ops: int) -> str:
        """A card of `who`'s hand worth at least `ops` OPS (every CP Mobilization card gives 2)."""
        from pbem.rules.paths_of_glory import cards

        side = SIDES[who]
        held = [label.split()[0] for label in self.json(who, "show", "hand")["yours"][side]["hand"]]
        return next(card for card in held if cards.catalogue()[card]["ops"] >= ops)

    def units_in(self, space: str) -> dict[str, dict]:
        return {unit["id"]: unit for unit in self.json("bob", "show", "space", space)["units"]}

    def play(self, who: str, *orders: str) -> str:
        """`who` signs his next entry; the other player applies it and, if it opened a roll, reveals
        and sends the reveal back. Returns what `pbem move` printed."""
        seq = self.status(who)["head_seq"] + 1
        code, out, err = self.cli(who, "move", *orders)
        assert code == 0, (orders, err)
        entry = self.dir(who) / "outbox" / f"{seq:06d}-move-{who}.toml"
        other = OTHER[who]
        code, _, err = self.cli(other, "apply", str(entry))
        assert code == 0, (orders, err)
        step = self.step(other)
        if step["kind"] == "reveal" and other in step["waiting_for"]:
            code, _, err = self.cli(other, "apply", "--reveal")
            assert code == 0, err
            code, _, err = self.cli(who, "apply", str(self.dir(other) / "outbox" / f"{seq:06d}-reveal-{other}.toml"))
            assert code == 0, err
        assert self.status("alice")["head_id"] == self.status("bob")["head_id"]
        return out

    def refuse(self, who: str, *orders: str) -> str:
        """`pbem move ORDERS` by `who` is refused: exit 1, nothing on stdout, one line on stderr naming
        the entry it would have been; nothing is signed and no directory changes. Returns the line."""
        seq = self.status(who)["head_seq"] + 1
        places = [self.dir(name) for name in SIDES] + [self.home(name) for name in SIDES]
        entries = self.entry_names(who)
        before = [snapshot(place) for place in places]
        code, out, err = self.cli(who, "move", *orders)
        assert code == 1, (orders, code, out, err)
        assert out == "", out
        assert err.endswith("\n") and err.count("\n") == 1, err
        assert re.match(rf"error: move [0-9a-f]{{12}} \(seq {seq}\), player {who}, field '", err), err
        assert self.entry_names(who) == entries
        for place, was in zip(places, before, strict=True):
            assert snapshot(place) == was, (place, changes(was, snapshot(place)))
        return err

    def entry_names(self, who: str) -> list[str]:
        folder = self.dir(who) / "entries"
        return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []

    def waiting(self, who: str, prompt: str) -> None:
        step = self.step()
        assert (step["kind"], step["waiting_for"], step["prompt"]) == ("decision", [who], prompt), step


@pytest.fixture
def pog(tmp_path) -> PogTable:
    return PogTable(tmp_path)


# ---------------------------------------------------------------------------------- combats with a forced course

SEDAN_ARMIES = "ge_2_army,ge_3_army,ge_4_army,ge_5_army"  # Koblenz and Metz


def attack_sedan(pog: PogTable, units: str) -> str:
    """The CP attack the lone FR 5th Army in Sedan (forest, no trench, no fort) with four or five
    armies from Koblenz and Metz: the attacker fires on the army table's 16+ column, whose least
    loss number (5) beats the defender's greatest (4, from one army of strength 3), so the defenders
    retreat whatever the dice: after the CP's losses, if they have a choice, it is the retreat
    step. Returns the unit that retreats (the FR 5th Army, or the corps that replaced it)."""
    pog.play("bob", f"activate spaces= attack=metz,koblenz card={pog.ops_card('bob', 2)}",
             f"attack units={units} space=sedan")
    play_no_cards(pog, "alice", "Sedan")
    if pog.combat()["step"] == "losses":  # a loss of 3 or 4 reduces any one army, as the CP like
        pog.waiting("bob", "combat at Sedan: the attacker takes losses (losses steps=...)")
        pog.play("bob", "losses steps=ge_5_army")
    pog.waiting("alice", "combat at Sedan: the defender retreats (retreat units=... path=...) or stands")
    (unit,) = pog.units_in("sedan")
    return unit


def play_no_cards(pog: PogTable, who: str, space: str) -> None:
    """base 12.2.6, R87: the defender's card step comes before the fire dice; he plays none."""
    pog.waiting(who, f"combat at {space}: the defender may play combat cards (play_cards cards=... from the hand "
                     "and/or front=... kept in front, or play_cards alone for none)")
    pog.play(who, "play_cards")


def retreat_from_sedan(pog: PogTable, unit: str) -> list[str]:
    """The retreat the rules allow (base 12.5.2, 12.5.5): one space if the loss numbers differ by
    one, else two, through friendly Chateau Thierry (on to Paris)."""
    combat = pog.combat()
    one = combat["attacker_fire"]["loss_number"] - combat["defender_fire"]["loss_number"] == 1
    path = ["chateau_thierry"] if one else ["chateau_thierry", "paris"]
    pog.play("alice", f"retreat units={unit} path={','.join(path)}")
    return path


# ---------------------------------------------------------------------------------- the refusals

def test_a_second_attack_on_a_space_in_one_action_is_refused(pog):
    """base 12.1.6: a space is attacked once an action. GE 6th Army attacks Nancy (two FR armies,
    fort): it cannot win, so no retreat; then the armies in Metz may not attack Nancy too, but may
    attack Verdun."""
    pog.play("bob", f"activate spaces= attack=strasbourg,metz card={pog.ops_card('bob', 2)}",
             "attack units=ge_6_army space=nancy")
    play_no_cards(pog, "alice", "Nancy")
    if pog.combat()["step"] == "losses":  # a loss of 3 reduces one of two FR armies: the AP choose
        pog.waiting("alice", "combat at Nancy: the defender takes losses (losses steps=...)")
        pog.play("alice", "losses steps=fr_1_army")
    assert pog.combat()["step"] == "done"
    pog.waiting("bob", "Central Powers, turn 1 round 1: attack from the spaces activated for attack or pass")

    line = pog.refuse("bob", "attack units=ge_4_army,ge_5_army space=nancy")
    assert line.endswith("player bob, field 'orders[1].space', rule base 12.1.6: "
                         "Nancy has already been attacked in this action\n"), line

    pog.play("bob", "attack units=ge_4_army,ge_5_army space=verdun")
    combat = pog.combat()
    assert (combat["number"], combat["space"], combat["attackers"]) == (2, "verdun", ["ge_4_army", "ge_5_army"])


def test_an_advance_by_a_reduced_unit_is_refused(pog):
    """base 12.7.1: only full-strength attackers advance. The reduced GE 7th Army joins the armies in
    Metz, the CP win at Sedan with it, the defenders retreat; it may not advance, GE 2nd Army may."""
    pog.play("bob", "activate spaces=mulhouse", "move units=ge_7_army path=strasbourg,metz", "pass", "pass")
    pog.play("alice", "pass", "pass")  # a pass action, then no recycle in the draw step (8.1.6)
    unit = attack_sedan(pog, f"{SEDAN_ARMIES},ge_7_army")
    retreat_from_sedan(pog, unit)
    pog.waiting("bob", "combat at Sedan: the attacker advances (advance units=... path=...) or passes")
    attackers = pog.combat()["attackers"]  # with the corps that replaced an eliminated army
    on_the_map = {**pog.units_in("metz"), **pog.units_in("koblenz")}
    reduced = [u for u in attackers if u in on_the_map and on_the_map[u]["reduced"]]
    assert reduced, on_the_map  # GE 7th Army, or the corps that replaced it
    assert not on_the_map["ge_2_army"]["reduced"]

    line = pog.refuse("bob", f"advance units={reduced[0]} path=sedan")
    assert line.endswith(f"player bob, field 'orders[1].units[0]', rule base 12.7.1: {reduced[0]} may not advance: "
                         "only full-strength attackers that have not advanced\n"), line

    pog.play("bob", "advance units=ge_2_army path=sedan")
    assert set(pog.units_in("sedan")) == {"ge_2_army"}
    assert reduced[0] in {**pog.units_in("metz"), **pog.units_in("koblenz")}


def test_a_retreat_into_an_enemy_occupied_space_is_refused(pog):
    """base 12.5.5: a retreat never enters a space holding enemy units. Beaten at Sedan, the FR 5th
    Army may not fall back into Metz (GE 4th and 5th Armies), only into a free space."""
    unit = attack_sedan(pog, SEDAN_ARMIES)
    assert set(pog.units_in("metz")) == {"ge_4_army", "ge_5_army"}

    line = pog.refuse("alice", f"retreat units={unit} path=metz")
    assert re.search(rf"player alice, field 'orders\[1\]\.path\[0\]', rule base 12\.5\.5: {unit} may not retreat "
                     r"into Metz: it may go to .*Chateau Thierry", line), line
    assert "Metz" not in line.split("it may go to")[1], line

    path = retreat_from_sedan(pog, unit)
    assert unit in pog.units_in(path[-1]) and not pog.units_in("sedan")
    pog.waiting("bob", "combat at Sedan: the attacker advances (advance units=... path=...) or passes")


def test_a_peace_offer_out_of_range_is_refused(pog):
    """16.5.3.1: the CP offer peace terms at VP 11 or more; at the 1914 level of 10 a political action
    with peace=true is refused, and the same action with foreign policy instead is played."""
    assert pog.json("bob", "show", "tracks")["vp"] == 10

    line = pog.refuse("bob", "political peace=true")
    assert re.search(r"player bob, field 'orders\[1\]\.peace', rule 16\.5\.3\.1: "
                     r"VP 10 is outside CP's range for peace terms\n$", line), line

    pog.play("bob", "political policy=russian_turmoil")
    pog.play("bob", "pass")  # the draw step after the roll: a hand of seven draws nothing (8.1.6.2)
    pog.waiting("alice", "Allied Powers, turn 1 round 1: activate, sr, rp, event, economic, political or pass")


# ---------------------------------------------------------------------------------- card plays (R92-R97)

def test_card_plays_refused_at_the_command_line_sign_nothing(pog):
    """Each kind of card play refused names its entry, field and rule in one line and signs nothing:
    an event from bob's hand not playable now (a combat card, base 9.5.4.1; a reinforcement in
    August 1914, base 9.5.3.1; Guns of August after the first round, base 9.5.1), the automatic RP 1 of a
    neutral nation (9.4.1), a redeployment into an enemy space (13.1.5), a card of the other deck
    played as OPS (9.2.1). A legal order is then accepted."""
    from pbem.rules.paths_of_glory import cards

    held = [label.split()[0] for label in pog.json("bob", "show", "hand")["yours"]["cp"]["hand"]]

    def refusal(card: str) -> str | None:
        """Why this Mobilization card's event is refused in August 1914: a combat card or a
        reinforcement."""
        facts = cards.catalogue()[card]
        return "base 9.5.4.1" if facts.get("combat_card") else "base 9.5.3.1" if "reinforcements" in facts else None

    card = next((c for c in held if refusal(c)), "cp07")  # a hand without one is rare: then a card not held
    rule = refusal(card) if card in held else "R92"
    line = pog.refuse("bob", f"event card={card}")
    assert f"field 'orders[1].card', rule {rule}: " in line, line
    line = pog.refuse("bob", "rp rp=bu")
    assert "field 'orders[1].rp', rule base 9.4.1: no bu RP may be recorded now" in line, line
    line = pog.refuse("bob", "sr", "redeploy unit=ge_corps_1 to=liege")
    assert "field 'orders[2].to', rule base 13.1.5: Liege is not a friendly space in supply" in line, line
    line = pog.refuse("bob", "activate spaces=metz card=ap01")
    assert "field 'orders[1].card', rule 9.2.1: 'ap01' is not a card of your deck" in line, line
    pog.play("bob", "rp rp=ge", "pass")
    pog.waiting("alice", "Allied Powers, turn 1 round 1: activate, sr, rp, event, economic, political or pass")


def test_orders_of_each_class_refused_at_the_command_line_sign_nothing(pog):
    """Item 11's classes, each refused in one line naming its field and rule, nothing signed: an
    entry out of turn (protocol §5), a card not held (R92), an order of a step not open (8.1.4:
    keep, answer_event), an additional action before Fall 1914 (8.2.2), a second SR card in a row
    (base 9.3.3). The legal orders between them are accepted."""
    from pbem.rules.paths_of_glory import cards

    held = [label.split()[0] for label in pog.json("bob", "show", "hand")["yours"]["cp"]["hand"]]
    unheld = next(card for card, facts in cards.catalogue().items()
                  if facts["side"] == "cp" and facts["commitment"] == "mobilization" and card not in held)
    line = pog.refuse("alice", "pass")
    assert "field 'player', rule PROTOCOL §5: out of turn: the next entry is bob's" in line, line
    line = pog.refuse("bob", f"activate spaces=metz card={unheld}")
    assert f"field 'orders[1].card', rule R92: you do not hold {cards.label(unheld)}" in line, line
    for order in (f"keep card={held[0]}", "answer_event"):
        line = pog.refuse("bob", order)
        assert f"field 'orders[1].kind', rule 8.1.4: {order.split()[0]} is not an order now" in line, line
    line = pog.refuse("bob", f"extra card={held[0]}")
    assert "field 'orders[1].kind', rule 8.2.2: " in line, line
    first, second = held[0], held[1]
    pog.play("bob", f"sr card={first}", "redeploy unit=ge_corps_1 to=berlin", "pass")
    pog.play("bob", "pass")  # his draw step: he draws nothing
    pog.play("alice", "pass", "pass")
    line = pog.refuse("bob", f"sr card={second}")
    assert "field 'orders[1].card', rule base 9.3.3: " in line, line
    pog.play("bob", f"rp card={second}", "pass")
    pog.waiting("alice", "Allied Powers, turn 1 round 2: activate, sr, rp, event, economic, political or pass")


def test_a_second_near_east_space_activated_for_combat_is_refused(pog):
    """9.2.7: the Allies activate one space on the Near East map for combat per action; Kars and
    Erivan both hold Russian corps there. Refused in one line, nothing signed; one is accepted."""
    pog.play("bob", "pass", "pass")
    card = pog.ops_card("alice", 2)
    line = pog.refuse("alice", f"activate spaces= attack=kars,erivan card={card}")
    assert "field 'orders[1].attack', rule 9.2.7: the Allies activate one space on the Near East map for combat" \
        in line, line
    pog.play("alice", f"activate spaces= attack=kars card={card}", "pass")
    assert pog.step("alice")["prompt"].startswith("Allied Powers, draw step")
