"""Rule cases for Paths of Glory (our DATC): tests/cases/paths_of_glory/*.toml.

Each file holds [[case]] tables: id, rule (the rule number it tests, from the seeds or "base N"),
title, position (a compact position: see state.position_from_case), and per kind of case what to
do (orders, forced dice) and what to expect (the state after, or the error and its rule).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pbem.rules.paths_of_glory.data import variant_names
from pbem.rules.paths_of_glory.state import position_from_case

CASES = Path(__file__).parent / "cases" / "paths_of_glory"
DEFAULT_VARIANTS = frozenset({"vesting_holland", "italy_19_1"})  # on by default, as the seeds have them


def load_cases(pattern: str) -> list[tuple[str, dict]]:
    found = []
    for path in sorted(CASES.glob(pattern)):
        for case in tomllib.loads(path.read_text())["case"]:
            assert case.get("rule") and case.get("id"), f"{path.name}: every case names its id and rule"
            found.append((f"{path.stem}:{case['id']} [{case['rule']}]", case))
    return found


def position(case: dict):
    variants = frozenset(case.get("variants", DEFAULT_VARIANTS))
    assert variants <= set(variant_names()), variants
    return position_from_case(case.get("position", {}), variants)
