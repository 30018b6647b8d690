"""`pbem demo world-in-flames` and its game, examples/world-in-flames-demo: three players,
`dice = "opponents"`; a supply path cut by a ZOC and opened by a friendly unit, an overseas path,
an HQ chain across the join, emergency supply, an overstacking order refused and an unavoidable
overstack resolved by the hex's owner. The demo's combat table makes every attack a retreat, so
the assertions hold whatever the die."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from test_project import pbem

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "world-in-flames-demo"


def test_the_demo_plays_every_step():
    result = pbem("demo", "world-in-flames")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "ger_3: OUT OF SUPPLY" in out and "ger_south: emergency supply" in out
    assert ("west_europe:2-4 casablanca (basic, counts 0) cape_st_vincent (basic, at sea) western_mediterranean "
            "(basic, at sea) west_europe:9-1 genoa (basic, counts 1) <- primary source") in out
    assert re.search(r"dice: attack on east_europe:5-2 \(11\.16\): \d+", out)
    assert "refused carol: retreat unit=sov_front hex=east_europe:4-2" in out and "rule 11.16.5" in out
    assert "stacking (2.3.1): land 3 of 2" in out
    assert "refused carol: destroy unit=sov_odessa_2" in out and "face-up units before face-down ones" in out
    assert ("ger_3: in supply east_europe:4-1 (basic, counts 0) east_europe:3-1 (basic, counts 1) east_europe:2-1 "
            "(basic, counts 1) east_europe:1-1 berlin (basic, counts 1) <- primary source") in out
    assert "refused alice: move unit=ger_5" in out and "3 land units in east_europe:4-1: the limit is 2" in out
    assert ("ind_1: in supply east_europe:7-2 (basic, counts 0) asia:0-2 (basic, counts 3) <- secondary source "
            "asia:1-2 tehran (railway, counts 0)") in out and "asia:5-3 delhi (railway, counts 0) <- primary" in out
    assert "open to overseas supply for: allies (2.4.2)" in out
    assert "verified in all 3 directories" in out


def test_the_example_game_verifies_and_shows(tmp_path):
    game = tmp_path / "game"
    shutil.copytree(EXAMPLE / "game", game)
    result = pbem("verify", "--game", str(game))
    assert result.returncode == 0, result.stderr
    assert "8 entries, 3 joins, 1 roll point" in result.stdout
    impulse = json.loads(pbem("show", "impulse", "--json", "--game", str(game)).stdout)
    assert impulse["destroyed"] == ["sov_front"] and impulse["impulse"] == 3
    assert impulse["units"]["ger_hq"]["face_up"] is False  # face-down after giving emergency supply
    assert impulse["units"]["ger_2"]["where"] == "east_europe:3-1"
    odessa = json.loads(pbem("show", "hex", "odessa", "--json", "--game", str(game)).stdout)
    assert odessa["units"] == ["sov_odessa_1", "sov_odessa_2"]
    charter = (game / "game.toml").read_text()
    assert 'dice = "opponents"' in charter and "option_13_emergency = true" in charter
    assert sorted(p.name for p in (EXAMPLE / "test-only-keys").iterdir()) == sorted(
        [f"{name}{ext}" for name in ("alice", "bob", "carol") for ext in ("", ".pub")])
