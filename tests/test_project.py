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
    result = pbem("demo", "paths-of-glory")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "refused bob" in out and "rule 15.2.1" in out and "(nothing signed)" in out
    assert re.search(r"siege of Liege: \d − 2 = −?\d, (not )?above 3: Liege (holds|falls) \(15\.3\.2\)", out)
    assert "RU Corps OOS5" in out
    assert "verified in all 2 directories" in out


def test_paths_of_glory_example_verifies_and_holds_the_demo_results():
    result = pbem("verify", "--game", str(POG_EXAMPLE), "--json")
    assert result.returncode == 0, result.stderr
    engine = Game(POG_EXAMPLE).replay(keep_rolls=True)
    state = engine.state
    assert engine.head_seq == 8 and [r.seq for r in engine.rolls] == [1, 4]
    assert state.units["ge_1_army"].space == "liege"
    assert state.units["ge_8_army"].space == "szawli" and state.control["szawli"] == "cp"
    assert state.units["ru_corps_9"].space == "ap_eliminated"  # 14.3.5: OOS5, then eliminated
    assert state.control["libau"] == "cp"  # 14.3.6: attrition
    die = engine.rolls[1].draws[0].result
    assert state.forts["liege"] == ("destroyed" if die - 2 > 3 else "besieged")  # 15.3.3: -2 in Aug 1914


@pytest.mark.skipif(not shutil.which("script"), reason="needs util-linux 'script' for a pseudo-terminal")
def test_long_replays_show_a_progress_bar_on_a_terminal_only():
    command = f"{sys.executable} -m pbem.cli verify --game {EXAMPLE}"
    on_tty = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "100", **measured()})
    assert on_tty.returncode == 0
    assert "Verifying" in on_tty.stdout and "100%" in on_tty.stdout
    piped = pbem("verify", "--game", str(EXAMPLE))
    assert piped.returncode == 0 and "Verifying" not in piped.stdout and "Verified" in piped.stdout
