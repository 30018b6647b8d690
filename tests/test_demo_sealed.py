"""`pbem demo` (freeform) plays a sealed round (protocol §5, freeform.sealed): each member seals, then
unseals, and alice collects them in her next entry. Its output shows only digests until then, and
stays whole in 80 columns.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from helpers import NAMES, run_cli
from rich.console import Console
from rich.theme import Theme

from pbem import demo
from pbem import ruleset as rulesets
from pbem.console import THEME
from pbem.errors import UsageError
from pbem.message import parse

CHOICES = {"alice": "2 battalions", "bob": "3 battalions", "carol": None}


def played(keep=None) -> str:
    """The demo's output as `pbem demo` prints it on an 80-column terminal."""
    console = Console(file=io.StringIO(), width=80, color_system=None, theme=Theme(THEME), highlight=False,
                      emoji=False)
    for item in demo.run("freeform", keep):
        console.print(item)
    return console.file.getvalue()


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    return root, played(root)


def test_the_demo_names_each_seal_by_its_digest_and_each_unseal_by_the_seal_it_opens(kept):
    root, out = kept
    for name in NAMES:
        seal = parse((root / "carol" / "game" / "side" / f"seal-{name}-000005.toml").read_bytes())
        digest = seal.fields["sealed"][:16]
        assert f"   {name} seals for seq 5: digest {digest}…\n" in out
        assert f"   {name} unseals: opens {digest}…\n" in out


def test_the_collector_shows_every_choice_and_none_is_shown_before(kept):
    _, out = kept
    collected = out.index("   collects the seals and unseals of seq 5:\n")
    assert out.index("seq 6 alice: roll dice=d10 purpose=weather") < collected
    assert '     alice: choose text="2 battalions"\n' in out
    assert '     bob: choose text="3 battalions"\n' in out
    assert "     carol: (no orders: abstains)\n" in out
    assert min(out.index("2 battalions"), out.index("3 battalions"), out.index("abstains")) > collected
    assert "verified in all 3 directories" in out


def test_every_directory_holds_the_collected_round(kept):
    root, _ = kept
    for name in NAMES:
        code, out, err = run_cli(["show", "state", "--json"], cwd=root / name / "game", home=root / name / "home")
        assert code == 0, err
        sealed = json.loads(out)["last_sealed"]
        assert (sealed["purpose"], sealed["choices"], sealed["voided"]) == ("bids for the ridge", CHOICES, {})


def test_the_sealed_round_fits_80_columns_without_wrapping(kept):
    _, out = kept
    lines = [line for line in out.splitlines() if re.match(r"   (\w+ (seals|unseals)|collects)\b", line)]
    assert len(lines) == 7 and all(line.endswith(("…", "seq 5:")) for line in lines), lines


def test_a_script_that_seals_for_others_than_the_round_open_is_refused(monkeypatch):
    freeform = rulesets.load("freeform")
    script = freeform.demo_script()
    steps = [dict(step) for step in script["steps"]]
    sealed_step = next(step for step in steps if "sealed" in step)
    sealed_step["sealed"] = {"alice": [], "bob": []}
    monkeypatch.setattr(type(freeform), "demo_script", lambda self: {**script, "steps": steps})
    with pytest.raises(UsageError, match="the demo seals for alice, bob, but the sealed round open is among "
                                         "alice, bob, carol"):
        played()
