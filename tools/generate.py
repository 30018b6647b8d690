#!/usr/bin/env python
"""A deterministic synthetic World in Flames world of any size, in the layout of
rules/world_in_flames/data/world.toml, with a front line of units across it: for benchmarks
(bench/wif_supply.py) and for trying the rules on a map the size of the real one.

The map is one European-scale map of `width` x `height` hexes. An ocean of hex-dots runs down its
west edge, cut into sea areas of 24 rows, each with a port on its coast; lakes of hex-dots are
scattered inland. The west half is Axis Alpha's home country, the east half Allied Beta's, with a
minor country controlled by each in its south-west and south-east corners; cities every 12 hexes,
railways along every 8th row and every 16th column. Terrain is drawn from random.Random(seed).

Units stand along the front in the middle column: an Axis corps west of it and an Allied corps
east of it on every row, an HQ every 8 rows behind each side, a few pockets cut off beyond it.

    python tools/generate.py --width 359 --height 194 --out /tmp/world.toml
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

TERRAIN = {"c": "clear", "f": "forest", "m": "mountain", "d": "desert", "D": "desert_mountain", "s": "swamp",
           ".": "hexdot", "o": "large_hexdot", "-": "none"}
OCEAN, SEA_ROWS, CITY_EVERY, RAIL_ROWS, RAIL_COLUMNS = 3, 24, 12, 8, 16


def run_length(cells: list[str]) -> str:
    out, k = [], 0
    while k < len(cells):
        j = k
        while j < len(cells) and cells[j] == cells[k]:
            j += 1
        out.append(f"{j - k if j - k > 1 else ''}{cells[k]}")
        k = j
    return "".join(out)


def _terrain(width: int, height: int, seed: int) -> list[list[str]]:
    draw = random.Random(seed)
    rows = [[draw.choices("cfmdDs", weights=(70, 12, 7, 6, 2, 3))[0] for _ in range(width)] for _ in range(height)]
    for cells in rows:
        cells[:OCEAN] = ["."] * OCEAN
    for _ in range(width * height // 2000):  # lakes of hex-dots
        col, row = draw.randrange(OCEAN + 4, width - 4), draw.randrange(2, height - 2)
        rows[row][col] = "."
    return rows


def _country(col: int, row: int, width: int, height: int) -> str:
    west = col < width // 2
    if row > height * 3 // 4 and (col < width // 6 + OCEAN or col > width - width // 6):
        return "G" if west else "H"  # the minors
    return "A" if west else "B"


def world_data(width: int, height: int, seed: int = 1) -> dict:
    rows = _terrain(width, height, seed)
    seas = sorted({row // SEA_ROWS for row in range(height)})
    lakes = {"name": "Lakes", "code": "l"}
    sea_tables = {f"sea_{k}": {"name": f"Sea {k}", "code": _sea_letter(k),
                               "borders": [f"sea_{j}" for j in (k - 1, k + 1) if j in seas]} for k in seas}
    name = "generated"
    cities = [f"{name}:{c}-{r}" for r in range(3, height, CITY_EVERY) for c in range(OCEAN + 3, width, CITY_EVERY)
              if rows[r][c] != "."]
    ports = [f"{name}:{OCEAN}-{r}" for r in range(SEA_ROWS // 2, height, SEA_ROWS)]
    return {
        "format_version": 1, "terrain": TERRAIN,
        "maps": {name: {"name": "Generated", "scale": 1, "zone": "temperate",
                        "rows": [run_length(row) for row in rows], "regions": _regions(rows, width, height)}},
        "rails": _rails(name, rows, width, height),
        "countries": {"alpha": {"name": "Alpha", "code": "A", "capital": cities[0], "home_of": "alpha"},
                      "beta": {"name": "Beta", "code": "B", "capital": cities[-1], "home_of": "beta"},
                      "gamma": {"name": "Gamma", "code": "G"}, "delta": {"name": "Delta", "code": "H"}},
        "seas": {**sea_tables, "lakes": lakes},
        "places": {"cities": cities, "minor_ports": ports},
    }


def _sea_code(row: int) -> str:
    return _sea_letter(row // SEA_ROWS)


def _sea_letter(k: int) -> str:
    return "abcdefghijkmnopqrstuvwxyz"[k]


def _regions(rows, width: int, height: int) -> list[str]:
    return [run_length([(_sea_code(r) if c < OCEAN else "l") if cell == "." else _country(c, r, width, height)
                        for c, cell in enumerate(row)]) for r, row in enumerate(rows)]


def _rails(name: str, rows, width: int, height: int) -> list[dict]:
    """Rails along every 8th row and every 16th column, broken where a lake lies across them."""
    lines = []
    for r in range(RAIL_ROWS // 2, height, RAIL_ROWS):
        lines += _runs(name, [(c, r) for c in range(OCEAN, width)], rows)
    for c in range(OCEAN + RAIL_COLUMNS // 2, width, RAIL_COLUMNS):
        lines += _runs(name, [(c, r) for r in range(height)], rows)
    return lines


def _runs(name: str, cells: list[tuple[int, int]], rows) -> list[dict]:
    """The unbroken stretches of land of a line, each one rail (consecutive cells are adjacent: a
    column zigzags with the offset rows)."""
    found: list[dict] = []
    stretch: list[str] = []
    for c, r in cells:
        if rows[r][c] == ".":
            if len(stretch) > 1:
                found.append({"hexes": stretch})
            stretch = []
            continue
        stretch.append(f"{name}:{c}-{r}")
    if len(stretch) > 1:
        found.append({"hexes": stretch})
    return found


def units(width: int, height: int) -> list[dict]:
    """The front in the middle column; HQs behind it every 8 rows; pockets beyond it."""
    middle, found = width // 2, []
    for r in range(height):
        found.append({"id": f"axis_{r}", "kind": "corps", "country": "alpha", "hex": f"generated:{middle - 1}-{r}"})
        found.append({"id": f"allies_{r}", "kind": "corps", "country": "beta", "hex": f"generated:{middle + 1}-{r}"})
    for r in range(2, height, 8):
        found.append({"id": f"axis_hq_{r}", "kind": "hq", "country": "alpha", "hex": f"generated:{middle - 4}-{r}"})
        found.append({"id": f"allies_hq_{r}", "kind": "hq", "country": "beta", "hex": f"generated:{middle + 4}-{r}"})
    for r in range(5, height, 40):
        found.append({"id": f"pocket_{r}", "kind": "army", "country": "alpha", "hex": f"generated:{middle + 6}-{r}"})
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=359)
    parser.add_argument("--height", type=int, default=194)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the world here as TOML (else standard output)")
    args = parser.parse_args()
    import tomli_w

    text = tomli_w.dumps(world_data(args.width, args.height, args.seed))
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
