"""The Empires in Arms map picture (Ruleset.picture): areas filled by who holds them, units under
them, the last reaction or overrun on top; deterministic, bounded by `focus`, and through the CLI
on a copy of examples/empires-in-arms-demo (`pbem show picture`, `pbem report --svg`)."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import pbem_on
from pbem.rules.empires_in_arms.picture import COLOURS, DONE, FAILED, FREE
from test_eia_land import overrun_in_munich, play, start

from pbem import ruleset as rulesets
from pbem.errors import UsageError

SVG = "{http://www.w3.org/2000/svg}"
RULESET = rulesets.load("empires_in_arms")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "empires-in-arms-demo" / "game"


def shapes(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {element.get("id", ""): element for element in root.iter() if element.get("id")}


def test_areas_by_holder_units_and_an_interception():
    """Charles intercepts fr_1 from Vienna into Munich: a green arrow from Vienna to Munich; Paris is
    France's blue, Munich (Bavaria, a free minor) grey; fr_1 and au_1 are written under Munich."""
    state = start({"position": {"removed": ["au_cav"]}})
    play(state, [{"player": "alice", "kind": "move", "units": ["fr_1"], "path": ["munich"]},
                 {"player": "bob", "kind": "react", "corps": ["au_1"], "to": "munich", "leader": "charles",
                  "dice": [1]}])
    svg = RULESET.picture(state)
    found = shapes(svg)
    assert found["area-paris"].get("fill") == COLOURS["france"] and found["area-munich"].get("fill") == FREE
    arrow = found["last-reaction"]
    assert arrow.get("stroke") == DONE
    assert (arrow.get("x1"), arrow.get("y1"), arrow.get("x2"), arrow.get("y2")) == (
        found["area-vienna"].get("cx"), found["area-vienna"].get("cy"), found["area-munich"].get("cx"),
        found["area-munich"].get("cy"))
    texts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert "fr_1 8" in texts and "au_1 8" in texts and "charles" in texts
    assert svg == RULESET.picture(state)  # deterministic


def test_a_failed_overrun_is_ringed_red_and_focus_draws_a_window():
    state = overrun_in_munich(14)
    whole, window = RULESET.picture(state), RULESET.picture(state, "Munich")
    assert shapes(whole)["last-overrun"].get("stroke") == FAILED
    drawn = {key for key in shapes(window) if key.startswith("area-")}
    assert drawn == {"area-munich", "area-paris", "area-milan", "area-vienna", "area-prague", "area-dresden"}
    width = float(ET.fromstring(window).get("width", 0))
    assert 0 < width < float(ET.fromstring(whole).get("width", 0))
    with pytest.raises(UsageError, match="did you mean munich"):
        RULESET.picture(state, "Munic")


def test_the_picture_through_the_cli(tmp_path):
    game = tmp_path / "game"
    shutil.copytree(EXAMPLE, game)
    code, out, err = pbem_on(game, "show", "picture", "--out", str(tmp_path / "map.svg"))
    assert "map.svg" in out + err
    assert code == 0, err
    found = shapes((tmp_path / "map.svg").read_text(encoding="utf-8"))
    assert found["area-amsterdam"].get("fill") == COLOURS["france"]
    assert found["last-overrun"].get("stroke") == FAILED  # the demo's last overrun, Amsterdam, failed
    code, _, err = pbem_on(game, "report", "--svg", str(tmp_path / "report.svg"))
    assert code == 0, err
    assert "Empires in Arms · turn 2, 1805-04" in (tmp_path / "report.svg").read_text(encoding="utf-8")
