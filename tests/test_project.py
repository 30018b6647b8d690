"""The project as a player installs it: the wheel, the bundled example, the demo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pbem import ruleset
from pbem.game import Game
from pbem.message import parse

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "freeform-3p" / "game"


def measured() -> dict[str, str]:
    """coverage.py's own variables, when the suite runs under it (README, Quick start): the bare
    environments below pass them on so their `pbem` is measured too."""
    return {name: value for name, value in os.environ.items() if name.startswith("COVERAGE_")}


def pbem(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem.cli", *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", **measured()})


def test_rules_install_as_pbem_rules_in_this_install():
    freeform = ruleset.load("freeform")
    assert type(freeform).__module__ == "pbem.rules.freeform"
    assert freeform.version == "1"
    assert "freeform" in ruleset.available()


def test_wheel_carries_the_rules_package_and_its_data(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("pbem-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "pbem/rules/freeform/__init__.py" in names
    assert "pbem/rules/freeform/data/ruleset.toml" in names
    assert "pbem/rules/common/notation.py" in names
    assert {f"pbem/rules/paths_of_glory/data/{n}.toml"
            for n in ("map", "units", "setup_1914", "ruleset", "scenarios", "sequence", "calendar", "demo")} <= names
    assert not [n for n in names if "convert" in n or n.startswith("tools/")]  # the converter stays in the source
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "freeform = pbem.rules.freeform:ruleset" in text and "pbem = pbem.cli:main" in text


def test_bundled_example_verifies(tmp_path):
    result = pbem("verify", "--game", str(EXAMPLE), "--json")
    assert result.returncode == 0, result.stderr
    assert '"entries": 7' in result.stdout
    engine = Game(EXAMPLE).replay(keep_rolls=True)
    assert engine.head_seq == 7 and len(engine.rolls) == 4
    assert engine.ruleset.dump(engine.state)["result"] == "draw agreed after the barrage"


def test_bundled_example_holds_a_collected_sealed_round(tmp_path):
    """seq 5 opens a round among all three; alice's seq 6 uses every seal and unseal (protocol §5)."""
    shutil.copytree(EXAMPLE, tmp_path / "game", ignore=shutil.ignore_patterns("state.toml", ".lock"))
    result = pbem("show", "state", "--json", "--game", str(tmp_path / "game"))
    assert result.returncode == 0, result.stderr
    sealed = json.loads(result.stdout)["last_sealed"]
    assert sealed["purpose"] == "bids for the ridge" and sealed["by"] == "alice" and sealed["voided"] == {}
    assert sealed["choices"] == {"alice": "2 battalions", "bob": "3 battalions", "carol": None}
    side = {parse(p.read_bytes()).id: p.name for p in (EXAMPLE / "side").glob("*seal-*.toml")}
    collecting = parse((EXAMPLE / "entries" / "000006.toml").read_bytes())
    assert collecting.player == "alice" and [side.get(i) for i in collecting.uses] == [
        f"{kind}-{name}-000005.toml" for name in ("alice", "bob", "carol") for kind in ("seal", "unseal")]


def test_bundled_example_dealt_hidden_hands_that_the_audit_confirms(tmp_path):
    """seq 1 deals three cards to each player in private; at the end all three disclosed, and the
    audit derives every hand again from the disclosures alone (protocol §7)."""
    shutil.copytree(EXAMPLE, tmp_path / "game", ignore=shutil.ignore_patterns("state.toml", ".lock"))
    result = pbem("audit", "--json", "--game", str(tmp_path / "game"))
    assert result.returncode == 0, result.stderr
    audited = json.loads(result.stdout)
    assert sorted(audited) == ["alice", "bob", "carol"]
    assert all(len(item["view"]["hand"]) == 3 and item["upto"] == 7 for item in audited.values())
    state = json.loads(pbem("show", "state", "--json", "--game", str(tmp_path / "game")).stdout)
    assert state["cards"] == {name: {"hand": 3, "pile": 5} for name in ("alice", "bob", "carol")}


def test_demo_plays_and_verifies_a_three_player_game():
    result = pbem("demo")
    assert result.returncode == 0, result.stderr
    assert "verified in all 3 directories" in result.stdout
    assert "Game over: draw agreed after the barrage" in result.stdout


def test_help_teaches_every_command():
    result = pbem("--help")
    assert result.returncode == 0
    for command in ("key", "new", "join", "move", "apply", "status", "show", "log", "verify", "resign",
                    "report", "rules", "demo"):
        assert command in result.stdout


POG_EXAMPLE = ROOT / "examples" / "paths-of-glory-1914" / "game"


def test_paths_of_glory_demo_plays_the_whole_sequence():
    """Every run draws other dice (the players' keys are new each time): the script's positions
    make each combat take the same course and ask the same questions whatever they are."""
    result = pbem("demo", "paths-of-glory")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "refused bob" in out and "rule 15.2.1" in out and "(nothing signed)" in out
    assert re.search(r"siege of Liege: \d − 2 = −?\d, (not )?above 3: Liege (holds|falls) \(15\.3\.2\)", out)
    assert "RU Corps OOS5" in out
    # base 11.2.2, R83: the 2nd Army's entrench die comes after the movement, at the pass's roll point
    assert re.search(r"entrench unit=ge_2_army; pass .* dice: ge_2_army entrenches in Koblenz: \d [≤>] LF 3, "
                     r"(trench level 1|no trench)", out)
    # 16.5.2: the Allies' foreign policy roll, then the track it moves
    assert re.search(r"seq 11 alice: political policy=br_us_involvement .* AP foreign policy \(16\.5\.2\): \d ", out)
    assert re.search(r"BR entry / US involvement │ [01] \(us_neutral\)", out)
    # base 12.3: a flank attack pinned from Chateau-Thierry, +1 for each of the three other spaces
    assert "pinning=chateau_thierry" in out
    # base 4.3.1, R92: bob keeps Guns of August; both hands are dealt in private; his own he sees
    assert "seq 1 bob: offensives guns_of_august=true" in out
    hand = re.search(r"Your hand \(CP\): (.*?) AP: 7 cards in hand", out)
    assert hand and len(re.findall(r"cp\d\d", hand[1])) == 7, out
    assert all(f"{card} " in hand[1] for card in ("cp01", "cp03", "cp09")), hand[1]  # chosen, first_cards
    # R93: cards played as OPS pay for the activations
    assert "seq 2 bob: activate spaces=aachen,insterberg,koblenz card=cp01" in out
    assert "activate attack=chateau_thierry,sedan,brussels,calais card=cp09" in out
    # base 12.2.1, R87: the flank die first, then alice's card step, then the fire dice
    assert re.search(r"seq 13 bob: .* dice: flank attack at Cambrai \(base 12\.3\.3\): \d ", out)
    assert re.search(r"seq 14 alice: play_cards .* dice: attacker fire, combat at Cambrai", out)
    assert "seq 20 alice: play_cards cards=pleve" in out and "defender's combat cards: pleve" in out
    assert re.search(r"Central Powers cards kept in front +│ cp03 Von Francois", out)
    assert re.search(r"flank attack pinned from chateau_thierry: die \d\+3, succeeds "
                     r"\(Calais: \+1; Sedan: \+1; Brussels: \+1\)", out)
    # 12.4.4, R48: the reduced BEF army is eliminated and the BEF corps replaces it from the Reserve Box
    assert re.search(r"defender losses \([345]\): (br_bef_corps reduced, )?br_bef_army eliminated for good, "
                     r"br_bef_army replaced by br_bef_corps", out)
    # 12.5: the corps retreats two spaces, to Paris
    assert "seq 15 alice: retreat units=br_bef_corps path=amiens,paris" in out
    assert "the defenders retreat 2 space(s)" in out and "br_bef_corps retreat to Paris" in out
    # 17.1: 1 of the scenario's 2 French RPs rebuilds the French 6th Army
    assert "seq 17 alice: economic replace=fr_6_army" in out and "FR 1, IT 0" in out
    # 12.7.6, 15.1.1: the garrison of Riga gone, the two armies advance into its fort space and besiege it
    assert re.search(r"defender losses \([345]\): ru_corps_10 eliminated, ru_corps_3 eliminated, "
                     r"ru_corps_4 eliminated", out)
    assert "seq 21 bob: advance units=ge_8_army,ge_10_army path=riga; pass; pass" in out
    # 8.1.6: draws in private at the roll point (seq 6), and with a die after a card played as OPS (seq 16)
    assert "seq 6 bob: draw alice reveals for seq 6 drawn in private: draw CP cards" in out
    assert re.search(r"seq 16 bob: pass; pass; draw .* dice: CP draw: a die less 4 spaces activated "
                     r"\(8\.1\.6\.2\): \d", out)
    assert re.search(r"Space Riga \(riga\) .* Fort strength 3, besieged .* Units GE 10 Army GE 8 Army", out)
    assert "verified in all 2 directories" in out
    # September and Fall 1914: cards as RP, SR and events; 9.5.3 reinforcements; 13.1.12 SR from the Reserve Box
    assert "bob: rp card=cp12; draw" in out and "alice: sr card=ap10" in out
    assert "alice: event card=blockade; draw" in out and "bob: event card=cp07 place=ge_9_army:berlin" in out
    assert "redeploy unit=br_corps_5 to=amiens" in out
    # 8.2.4 and 8.2.2: each discard rolls at its roll point; a success gives the steps marked if_asked
    assert re.search(r"bob: extra card=\w+ .* dice: CP rolls for an extra action before the end of the turn: \d", out)
    assert re.search(r"dice: CP rolls for an additional action: \d, (taken|none) \(8\.2\.2\.1\)", out)
    # 16.1.3, 8.1.6.2: the Allies reach Limited War; a draw looks at two cards and keeps one in private
    assert re.search(r"Looking at \(keep one: keep card=\.\.\.\): ap\d\d [^:]*, ap\d\d ", out)
    assert re.search(r"alice: keep \(in alice's private record: card=ap\d\d\)", out)
    assert "commitment AP limited, CP mobilization" in out
    # R92: both disclose at the end; the audit finds every card they played in their hands
    assert "audit: alice's play matches the private draws" in out and "audit: bob's play matches" in out


def test_paths_of_glory_example_verifies_and_audits():
    result = pbem("verify", "--game", str(POG_EXAMPLE), "--json")
    assert result.returncode == 0, result.stderr
    last = len(list((POG_EXAMPLE / "entries").iterdir()))
    audited = pbem("audit", "--game", str(POG_EXAMPLE))  # R92: both disclosed; every card played was held
    assert audited.returncode == 0 and f"alice: every order up to seq {last} is consistent" in audited.stdout, audited


def test_paths_of_glory_example_holds_the_first_turns_results(tmp_path):
    """August 1914 up to the Allies' sixth action (seq 21), as the demo script plays it."""
    from helpers import POG_FIRST_TURN_SEQ, copy_pog_example

    engine = Game(copy_pog_example(tmp_path, upto=POG_FIRST_TURN_SEQ)).replay(keep_rolls=True)
    state = engine.state
    assert engine.head_seq == 21 and [r.seq for r in engine.rolls] == [1, 2, 5, 6, 11, 13, 14, 16, 17, 20]
    rolls = {roll.seq: roll for roll in engine.rolls}
    assert state.units["ge_1_army"].space == "liege"
    # base 11.2.2, R83: the 2nd Army's entrench die, drawn after the movement of seq 2, at or under its LF 3
    entrench = rolls[2].draws[0]
    assert entrench.purpose.startswith("ge_2_army entrenches in Koblenz")
    assert state.trenches.get("koblenz", 0) == (1 if entrench.result <= 3 else 0)
    assert state.control["szawli"] == "cp"
    assert state.units["ru_corps_9"].space == "ap_eliminated"  # 14.3.5: OOS5, then eliminated
    assert state.control["libau"] == "cp"  # 14.3.6: attrition
    die = rolls[5].draws[0].result
    assert state.forts["liege"] == ("destroyed" if die - 2 > 3 else "besieged")  # 15.3.3: -2 in Aug 1914
    # 16.5.2: a die of 1-3 moves BR Entry / US Involvement one step the Allies' way (a 6 one step
    # back, but the track is held at 0)
    policy = rolls[11].draws[0]
    assert policy.purpose == "AP foreign policy"
    assert state.tracks.get("br_us_involvement", 0) == (1 if policy.result <= 3 else 0)
    cambrai, riga = state.combats
    # base 12.3: the flank attack from four spaces, pinned from Chateau-Thierry, always succeeds
    assert cambrai["space"] == "cambrai" and cambrai["pinning"] == "chateau_thierry"
    assert cambrai["attack_spaces"] == ["calais", "chateau_thierry", "sedan", "brussels"]
    assert cambrai["flank"]["drm"] == 3 and cambrai["flank"]["success"]
    assert cambrai["fire_order"] == ["attacker", "defender"]
    # R87: the flank die alone at seq 13; no card at Cambrai; at Riga one from each hand (R92)
    assert [d.purpose for d in rolls[13].draws] == ["flank attack at Cambrai"]
    assert "cards" not in cambrai and riga["cards"] == {"attacker": ["von_francois"], "defender": ["pleve"]}
    assert state.cards["removed"] == ["ap04"] and state.cards["cp_front"] == ["cp03"]  # Pleve is starred
    # R93: Guns of August (OPS 3) and Reichstag Truce (OPS 4) paid for two activations; Von Francois
    # and Pleve were combat cards: the CP hand is three smaller, the Allied one. 8.1.6.2: bob drew
    # one card after his economic action (seq 6, in private) and one more after Reichstag Truce if
    # the die less its 4 spaces came to 0 or more (seq 16)
    assert rolls[6].private == [{"player": "bob", "purpose": "draw CP cards", "rule": "8.1.6.2"}]
    drew = 1 + (rolls[16].draws[0].result >= 4)
    assert state.hands == {"ap": {"hand": 6, "pile": 7, "limit": 7, "optional": 0, "decks": 1},
                           "cp": {"hand": 4 + drew, "pile": 7 - drew, "limit": 7, "optional": 0, "decks": 1}}
    assert state.cards["cp_discard"] == ["cp01", "cp09"]
    # 12.4.4, R48: the BEF army is gone for good, the BEF corps from the Reserve Box replaced it
    assert cambrai["replacements"] == {"br_bef_army": "br_bef_corps"}
    assert state.units["br_bef_army"].space == "ap_eliminated" and "br_bef_army" in state.removed
    # 12.5: it retreated two spaces, through Amiens to Paris; bob did not advance
    assert cambrai["retreat_paths"] == {"br_bef_corps": ["amiens", "paris"]} and "advanced" not in cambrai
    assert state.units["br_bef_corps"].space == "paris" and state.control["cambrai"] == "ap"
    # 17.1: 1 of the scenario's 2 French RPs brought the French 6th Army back to full strength
    assert state.units["fr_6_army"].space == "paris" and not state.units["fr_6_army"].reduced
    assert state.tracks["rp_fr"] == 1
    # 12.7.6, 15.1.1: Riga's garrison eliminated, the 8th and 10th Armies advanced into it and besiege it
    assert riga["space"] == "riga" and riga["advanced"] == ["ge_8_army", "ge_10_army"]
    assert {state.units[u].space for u in ("ru_corps_3", "ru_corps_4", "ru_corps_10")} == {"ap_eliminated"}
    assert state.units["ge_8_army"].space == state.units["ge_10_army"].space == "riga"
    assert state.forts["riga"] == "besieged" and state.control["riga"] == "ap"
    assert state.active == "ap" and state.action == {}  # alice is to act next


def test_paths_of_glory_example_reaches_limited_war_in_fall_1914():
    """From seq 22: Blockade and both British Reinforcements cards as events, an RP card, an SR
    card from the Reserve Box, the additional actions of 8.2.4 and 8.2.2, the Allies' rise to
    Limited War and a look-ahead card kept in a private record."""
    engine = Game(POG_EXAMPLE).replay(keep_rolls=True)
    state = engine.state
    assert state.turn == 3 and state.commitment == {"ap": "limited", "cp": "mobilization"}
    assert state.war_status["ap"] == 4 and "blockade" in state.events  # 2 + 1 + 1 (9.5.1.3, 16.1.3)
    assert state.hands["ap"]["decks"] == 2  # the Limited War deck shuffled in (16.1.3)
    assert {"ap01", "ap02", "ap04", "ap14", "cp07"} <= set(state.cards["removed"])  # starred events
    assert state.units["ge_9_army"].space == "berlin"
    assert state.units["br_2_army"].space == state.units["br_1_army"].space == "london"
    assert state.units["br_corps_5"].space == state.units["br_bef_corps"].space == "amiens"  # SR, 13.1.12
    purposes = [draw.purpose for roll in engine.rolls for draw in roll.draws]
    assert any("extra action before the end of the turn" in p for p in purposes)  # 8.2.4
    assert any("additional action" in p for p in purposes)  # 8.2.2
    entries = [parse(path.read_bytes()) for path in sorted((POG_EXAMPLE / "entries").iterdir())]
    kept = [entry for entry in entries if entry.fields["orders"][0]["kind"] == "keep"]
    assert [entry.fields["orders"] for entry in kept] == [[{"kind": "keep"}]]  # the card: a private record (8.1.6.2)
    assert state.active == "ap" and state.action == {}  # alice is to act next


@pytest.mark.skipif(not shutil.which("script"), reason="needs util-linux 'script' for a pseudo-terminal")
def test_long_replays_show_a_progress_bar_on_a_terminal_only():
    command = f"{sys.executable} -m pbem.cli verify --game {EXAMPLE}"
    on_tty = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "100", **measured()})
    assert on_tty.returncode == 0
    assert "Verifying" in on_tty.stdout and "100%" in on_tty.stdout
    piped = pbem("verify", "--game", str(EXAMPLE))
    assert piped.returncode == 0 and "Verifying" not in piped.stdout and "Verified" in piped.stdout
