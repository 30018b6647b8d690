"""rules.common.hexes: the offset-row hex grid, its six directions, cube distances (against a
breadth-first count of steps) and hexside masks kept alike from both sides."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pbem.rules.common.hexes import DIRECTIONS, NE, NW, SE, SW, E, Grid, Hexsides, W, opposite


def test_the_six_neighbours_of_an_even_and_an_odd_row():
    grid = Grid(5, 4)
    even, odd = grid.at(2, 2), grid.at(2, 1)
    assert [grid.place(grid.step(even, d)) for d in range(6)] == [(3, 2), (2, 1), (1, 1), (1, 2), (1, 3), (2, 3)]
    assert [grid.place(grid.step(odd, d)) for d in range(6)] == [(3, 1), (3, 0), (2, 0), (1, 1), (2, 2), (3, 2)]
    assert grid.step(grid.at(0, 0), W) == -1 and grid.step(grid.at(0, 0), NE) == -1
    assert DIRECTIONS[opposite(E)] == "W" and opposite(NE) == SW and opposite(NW) == SE


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_steps_go_back_and_distances_count_steps(width, height, data):
    grid = Grid(width, height)
    start = data.draw(st.integers(0, grid.size - 1))
    for direction in range(6):
        there = grid.step(start, direction)
        if there >= 0:
            assert grid.step(there, opposite(direction)) == start and grid.direction(start, there) == direction
    steps = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in grid.neighbours()[here]:
            if there not in steps:
                steps[there] = steps[here] + 1
                queue.append(there)
    # on a rectangle of offset rows the shortest path never has to leave it
    assert all(grid.distance(start, there) == count for there, count in steps.items())


def test_a_hexside_feature_is_the_same_from_both_sides():
    grid = Grid(4, 4)
    river = Hexsides(grid)
    a = grid.at(1, 1)
    river.add(a, SE)
    b = grid.step(a, SE)
    assert river.between(a, b) and river.between(b, a)
    assert river.masks[a] == 1 << SE and river.masks[b] == 1 << NW
    assert not river.between(a, grid.step(a, E))
    assert not river.between(a, grid.at(3, 3))  # not neighbours
    with pytest.raises(ValueError, match="no neighbour to the W"):
        river.add(grid.at(0, 0), W)
