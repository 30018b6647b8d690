"""bench/verify_log.py --sealed: the log it builds (seven players, a sealed round every ten entries)
is a valid game, and the benchmark runs on it.

The script is part of the source tree, not of the package, so it is loaded from its file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pbem.game import Game

ENTRIES = 60  # rounds opened at seq 5, 15, …, 55, each collected in the next entry


def load_bench():
    path = Path(__file__).resolve().parents[1] / "bench" / "verify_log.py"
    spec = importlib.util.spec_from_file_location("verify_log", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return load_bench()


@pytest.fixture(scope="module")
def built(bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("sealed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PBEM_HOME", str(root / "pbem-home"))  # never the user's own pbem directory
        yield bench.build(root, ENTRIES, sealed=True)


def test_the_sealed_log_verifies_with_every_round_collected(built):
    engine = Game(built["root"]).verify()
    assert (engine.head_seq, engine.head_id) == (ENTRIES, built["head"])
    last = engine.state.last_sealed
    assert last["purpose"] == "bench bids at seq 55" and not last["voided"]
    assert len(last["choices"]) == 7 and None in last["choices"].values()  # some abstain
    assert engine.state.sealed is None
    side = built["root"] / "side"
    rounds = ENTRIES // 10
    assert len(list(side.glob("seal-*.toml"))) == len(list(side.glob("unseal-*.toml"))) == 7 * rounds
    assert built["seals"] == built["unseals"] == 7 * rounds


def test_the_collector_uses_each_seal_then_unseal_in_roster_order(built):
    game = Game(built["root"])
    opening, collecting = game.dir.entry(45), game.dir.entry(46)
    assert opening.orders[0]["kind"] == "sealed" and len(opening.orders[0]["players"]) == 7
    assert collecting.player == game.charter.players[0].id
    expected = [game.dir.read_message(game.dir.sealed_path(kind, member.id, 45)).id
                for member in game.charter.players for kind in ("seal", "unseal")]
    assert collecting.uses == expected


def test_the_benchmark_reports_sealed_verify_without_failures(bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "pbem-home"))  # main sets it; this restores it after
    assert bench.main(["--sealed", "--entries", str(ENTRIES), "--keep", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "sealed verify: pbem verify" in out and "seals and unseals" in out
    assert "failures" not in out and "aborted" not in out
