"""rules.common.graphs: the multi-source supply search, against a plain search per source; the
parts of a map, against a plain search from each space."""

from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st
from pbem.rules.common.graphs import components, hex_grid, reach_sources


def one_source(neighbours, source, enter, cross, passable):
    if not enter[source]:
        return set()
    seen = {source}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        if not passable[here]:
            continue
        for there in neighbours[here]:
            if there not in seen and enter[there] and cross(here, there):
                seen.add(there)
                queue.append(there)
    return seen


def test_a_line_of_spaces_with_an_enemy_space_cutting_it():
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    friendly = [True, True, False, True, True]
    assert reach_sources(line, [0, 4], friendly) == [1, 1, 0, 2, 2]


def test_a_space_that_can_be_reached_but_not_passed():
    line = [(1,), (0, 2), (1,)]
    assert reach_sources(line, [0], [True] * 3, pass_through=[True, False, True]) == [1, 1, 0]


def test_limited_connections_stop_only_the_classes_they_limit():
    square = [(1, 2), (0, 3), (0, 3), (1, 2)]
    closed = {frozenset((0, 1)), frozenset((0, 2))}
    assert reach_sources(square, [0], [True] * 4, cross=lambda a, b: frozenset((a, b)) not in closed) == [1, 0, 0, 0]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_equals_one_search_per_source(data):
    width = data.draw(st.integers(2, 9))
    height = data.draw(st.integers(2, 9))
    grid = hex_grid(width, height)
    size = len(grid)
    enter = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    passable = [e and data.draw(st.booleans()) for e in enter]
    blocked = data.draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=10))
    cross = lambda a, b: (a, b) not in blocked and (b, a) not in blocked  # noqa: E731
    sources = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=6, unique=True))
    masks = reach_sources(grid, sources, enter, cross, passable)
    for bit, source in enumerate(sources):
        reached = one_source(grid, source, enter, cross, passable)
        assert {v for v in range(size) if masks[v] >> bit & 1} == reached


def test_hex_grid_neighbours_are_symmetric():
    grid = hex_grid(7, 5)
    assert all(a in grid[b] for a in range(len(grid)) for b in grid[a])
    assert max(len(n) for n in grid) == 6


def test_parts_of_a_line_cut_by_an_enemy_space():
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    assert components(line, [True, True, False, True, True]) == ([0, 0, -1, 1, 1], 2)
    assert components(line, [False] * 5) == ([-1] * 5, 0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_parts_are_what_a_plain_search_reaches(data):
    """Each part is exactly the set of spaces a search from any of its spaces reaches."""
    width = data.draw(st.integers(1, 9))
    height = data.draw(st.integers(1, 9))
    grid = hex_grid(width, height)
    size = len(grid)
    enter = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    part, count = components(grid, enter)
    assert sorted(set(part) - {-1}) == list(range(count))
    for v in range(size):
        reached = one_source(grid, v, enter, lambda a, b: True, enter)
        assert reached == ({w for w in range(size) if part[w] == part[v]} if enter[v] else set())
