"""Hex grids as games with hex maps keep them: offset rows (odd rows shifted half a hex to the
right, hexes pointing up), each hex an integer `row * width + col` (`Grid.at(col, row)`), the six
directions, and hexside features (a river, a straits, an alpine side...) as six-bit masks, one
mask per hex and feature, kept the same from both sides of each hexside.

Directions, counter-clockwise from east: E, NE, NW, W, SW, SE; a hexside's other face is
`opposite(direction)`. Distances use cube coordinates."""

from __future__ import annotations

from typing import NamedTuple

E, NE, NW, W, SW, SE = range(6)
DIRECTIONS = ("E", "NE", "NW", "W", "SW", "SE")


def opposite(direction: int) -> int:
    return (direction + 3) % 6


class Grid(NamedTuple):
    """A width x height grid of hexes in offset rows."""

    width: int
    height: int

    @property
    def size(self) -> int:
        return self.width * self.height

    def at(self, col: int, row: int) -> int:
        return row * self.width + col

    def place(self, index: int) -> tuple[int, int]:
        """(col, row) of a hex."""
        return index % self.width, index // self.width

    def step(self, index: int, direction: int) -> int:
        """The hex next to `index` in `direction`, or -1 off the grid."""
        col, row = self.place(index)
        shift = row % 2  # odd rows sit half a hex to the right
        dcol, drow = ((1, 0), (shift, -1), (shift - 1, -1), (-1, 0), (shift - 1, 1), (shift, 1))[direction]
        col, row = col + dcol, row + drow
        return self.at(col, row) if 0 <= col < self.width and 0 <= row < self.height else -1

    def neighbours(self) -> list[tuple[int, ...]]:
        """Each hex's neighbours on the grid, in direction order."""
        return [tuple(n for n in (self.step(i, d) for d in range(6)) if n >= 0) for i in range(self.size)]

    def direction(self, a: int, b: int) -> int | None:
        """The direction from hex a to a neighbouring hex b, None if they do not touch."""
        return next((d for d in range(6) if self.step(a, d) == b), None)

    def distance(self, a: int, b: int) -> int:
        """Hexes between a and b (cube coordinates)."""
        (ax, ay, az), (bx, by, bz) = _cube(*self.place(a)), _cube(*self.place(b))
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def _cube(col: int, row: int) -> tuple[int, int, int]:
    x = col - (row - (row & 1)) // 2
    return x, -x - row, row


class Hexsides:
    """One hexside feature over a grid: bit d of a hex's mask is set where its side in direction d
    has the feature. `add` sets both faces of the hexside, so the two hexes always agree."""

    def __init__(self, grid: Grid, masks: list[int] | None = None) -> None:
        self.grid = grid
        self.masks = masks if masks is not None else [0] * grid.size

    def add(self, index: int, direction: int) -> None:
        other = self.grid.step(index, direction)
        if other < 0:
            raise ValueError(f"hex {index} has no neighbour to the {DIRECTIONS[direction]}")
        self.masks[index] |= 1 << direction
        self.masks[other] |= 1 << opposite(direction)

    def between(self, a: int, b: int) -> bool:
        """Whether the hexside between neighbouring hexes a and b has the feature."""
        direction = self.grid.direction(a, b)
        return direction is not None and bool(self.masks[a] >> direction & 1)
