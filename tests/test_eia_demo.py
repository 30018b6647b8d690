"""`pbem demo empires-in-arms` and its game, examples/empires-in-arms-demo: four players, the
sealed UMP Control Step before the game, a land phase with every kind of reaction and overrun, a
battle, and an Economic Phase sealing a subsidy, a cession and a landwehr. Each run of the demo
draws other dice; the assertions hold whatever they are."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from test_project import pbem

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "empires-in-arms-demo"


def test_the_demo_plays_every_step():
    result = pbem("demo", "empires-in-arms")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "refused alice: overture ump=austria subsidy=20" in out and "rule 14.3.1:" in out
    assert "dave: (no orders: abstains)" in out  # an empty seal
    assert re.search(r"dice: britain overture to austria \(14\.3\.1\.1\.1\): \d \d france overture to spain", out)
    assert re.search(r"interception by charles \(austria\) from vienna to bologna: rating 4, needs 4 or less; "
                     r"die [1-6]: (done|failed)", out)
    assert ("withdrawal by bagration (russia) from dresden to breslau: rating 6, needs 6 or less; no die needed: "
            "done") in out
    assert "overrun in dresden: 10 against 1, 5 to 1: swept (carol chose destroyed)" in out
    assert "cavalry withdrawal by au_cav (austria) from munich to vienna: cavalry alone" in out
    assert "overrun in amsterdam: 4 against 2, under 5 to 1" in out
    assert "refused alice: move units=fr_cav path=berlin" in out and "rule 12.3.7.4.2.2" in out
    assert re.search(r"battle in amsterdam: france \(4\) attacks russia \(2\); options probe against defend; "
                     r"attacker die \d tactics -1 failed overrun -1", out)
    assert "subsidy +2" in out and "cession +2" in out
    assert "prussia's landwehr activated by dave (2 PP, 12.11.3)" in out
    assert re.search(r"turkey \(instability\) economic loss: die \d", out)
    assert "verified in all 4 directories" in out


def test_the_example_game_verifies_and_shows(tmp_path):
    game = tmp_path / "game"
    shutil.copytree(EXAMPLE / "game", game)
    result = pbem("verify", "--game", str(game))
    assert result.returncode == 0, result.stderr
    assert "23 entries, 4 joins" in result.stdout
    land = json.loads(pbem("show", "land", "--json", "--game", str(game)).stdout)
    events = [event["event"] for event in land["last_phase"]["log"]]
    assert events == ["interception", "withdrawal", "overrun", "cavalry withdrawal", "overrun", "battle", "battle"]
    diplomacy = json.loads(pbem("show", "diplomacy", "--json", "--game", str(game)).stdout)
    assert diplomacy["last_economic"]["landwehr"] == [{"player": "dave", "power": "prussia", "active": True}]
    powers = json.loads(pbem("show", "powers", "--json", "--game", str(game)).stdout)["powers"]
    assert powers["prussia"]["pp"] == 6 and powers["spain"]["controller"] == "britain"
    assert powers["prussia"]["landwehr"] == "active"
    assert sorted(p.name for p in (EXAMPLE / "test-only-keys").iterdir()) == sorted(
        [f"{name}{ext}" for name in ("alice", "bob", "carol", "dave") for ext in ("", ".pub")])
