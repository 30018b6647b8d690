"""The World in Flames map picture (Ruleset.picture): hexes by terrain outlined by who controls
them, units as counters, ZOC dots, the supply path of the unit that acted last; deterministic,
a window around `focus`; and through the CLI on a copy of examples/world-in-flames-demo."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import pbem_on
from pbem.rules.world_in_flames.picture import PATH, RAIL, SIDE_COLOUR, TERRAIN
from test_wif_play import RULESET, play, start

from pbem.errors import UsageError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "world-in-flames-demo" / "game"


def shapes(svg: str) -> dict[str, ET.Element]:
    return {element.get("id", ""): element for element in ET.fromstring(svg).iter() if element.get("id")}


def test_hexes_units_zoc_and_the_last_supply_path():
    state = start({})
    play(state, {"player": "alice", "order": "move unit=ger_2 path=east_europe:3-1"})
    svg = RULESET.picture(state)
    found = shapes(svg)
    berlin, moscow = found["hex-east_europe:1-1"], found["hex-east_europe:6-0"]
    assert berlin.get("fill") == TERRAIN["clear"] and berlin.get("stroke") == SIDE_COLOUR["axis"]
    assert moscow.get("fill") == TERRAIN["forest"] and moscow.get("stroke") == SIDE_COLOUR["allies"]
    assert found["hex-east_europe:5-3"].tag.endswith("circle")  # a hex-dot
    assert found["unit-ger_2"].get("fill") == SIDE_COLOUR["axis"]
    assert found["unit-sov_odessa_2"].get("opacity") == "0.45"  # face-down
    assert "zoc-allies-east_europe:3-1" in found and "zoc-axis-east_europe:2-1" in found  # ger_2's beside it
    assert "zoc-allies-east_europe:1-1" not in found
    lines = [found[f"supply-{k}"] for k in range(2)]  # ger_2: 3-1 to 2-1 to Berlin, a basic path
    assert [line.get("stroke") for line in lines] == [PATH, PATH] and "supply-2" not in found
    assert "last-unit" in found
    assert RULESET.picture(state) == svg  # deterministic


def test_a_railway_path_is_grey():
    state = start({"weather": {"temperate": "fine"}})
    play(state, {"player": "alice", "order": "pass"})
    play(state, {"player": "bob", "order": "move unit=ind_1 path=east_europe:7-1"})
    found = shapes(RULESET.picture(state))
    strokes = [found[key].get("stroke") for key in sorted(found) if key.startswith("supply-")]
    assert strokes[0] == PATH and RAIL in strokes[1:]  # to the HQ, then its railway path to Delhi


def test_a_focus_draws_a_window_and_an_unknown_hex_is_named():
    state = start({})
    whole, window = shapes(RULESET.picture(state)), shapes(RULESET.picture(state, "odessa"))
    assert "hex-east_europe:6-2" in window and "hex-west_europe:0-0" not in window
    assert len(window) < len(whole)
    with pytest.raises(UsageError, match="did you mean odessa"):
        RULESET.picture(state, "odesa")


def test_the_picture_through_the_cli(tmp_path):
    import cairosvg
    from PIL import Image

    game = tmp_path / "game"
    shutil.copytree(EXAMPLE, game)
    code, _, err = pbem_on(game, "show", "picture", "--out", str(tmp_path / "map.svg"))
    assert code == 0, err
    svg = (tmp_path / "map.svg").read_text()
    assert "impulse 2 of 2" in svg and len(svg) < 80_000
    cairosvg.svg2png(bytestring=svg.encode(), write_to=str(tmp_path / "map.png"))
    assert Image.open(tmp_path / "map.png").size[0] > 1000
    code, _, err = pbem_on(game, "report", "--svg", str(tmp_path / "report.svg"))
    assert code == 0, err
    assert 'id="hex-east_europe:6-2"' in (tmp_path / "report.svg").read_text(encoding="utf-8")
