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


# ---------------------------------------------------------------------------------- bounded_reach

from pbem.rules.common.graphs import AT_SEA, LAND, LANDED, bounded_reach  # noqa: E402


def one_source_bounded(neighbours, source, limit, cost, sea, relay):
    """Every node one source reaches, by exhausting (node, leg, budget left) states: plain and slow."""
    def leg_after(leg, into_sea):
        if into_sea:
            return AT_SEA if leg in (LAND, AT_SEA) else None
        return LANDED if leg in (AT_SEA, LANDED) else LAND

    start = (source, AT_SEA if sea[source] else LAND, limit)
    seen = {start}
    stack = [start]
    while stack:
        node, leg, left = stack.pop()
        if relay[node] and left < limit and (node, leg, limit) not in seen:
            seen.add((node, leg, limit))
            stack.append((node, leg, limit))
        for there in neighbours[node]:
            step, next_leg = cost(node, there), leg_after(leg, sea[there])
            if step is None or next_leg is None or step > left:
                continue
            state = (there, next_leg, left - step)
            if state not in seen:
                seen.add(state)
                stack.append(state)
    return {node for node, _, _ in seen}


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 6), st.integers(1, 5), st.integers(0, 5), st.data())
def test_bounded_reach_against_one_search_per_source(width, height, limit, data):
    neighbours = hex_grid(width, height)
    size = len(neighbours)
    costs = {(u, v): data.draw(st.sampled_from([None, 0, 1, 1, 2]))
             for u in range(size) for v in neighbours[u]}
    sea = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    relay = [not s and r for s, r in zip(sea, data.draw(st.lists(st.booleans(), min_size=size, max_size=size)),
                                          strict=True)]
    sources = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))
    found = bounded_reach(neighbours, sources, limit, lambda u, v: costs[(u, v)], sea, relay)
    for bit, source in enumerate(sources):
        reached = one_source_bounded(neighbours, source, limit, lambda u, v: costs[(u, v)], sea, relay)
        assert {node for node in range(size) if found[node] >> bit & 1} == reached, (bit, source)


def test_one_overseas_leg_for_the_whole_chain():
    """0 -sea 1- 2 (a relay) -sea 3- 4: a path from 0 to 2 goes overseas once; the chain on from the
    relay may not go overseas again, so 4 is out of reach though every step is free."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    sea = [False, True, False, True, False]
    relay = [False, False, True, False, False]
    reach = bounded_reach(line, [0], 4, lambda u, v: 0, sea, relay)
    assert reach == [1, 1, 1, 0, 0]
    assert bounded_reach(line, [4], 4, lambda u, v: 0, sea, relay) == [0, 0, 1, 1, 1]


def test_a_secondary_source_starts_the_count_again():
    """A line of seven hexes, each step costing 1, limit 3: from 0 the path ends at 3; with a relay
    at 3 it goes on to 6."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5,)]
    assert bounded_reach(line, [0], 3, lambda u, v: 1) == [1, 1, 1, 1, 0, 0, 0]
    assert bounded_reach(line, [0], 3, lambda u, v: 1, relays=[False, False, False, True, False, False, False]) \
        == [1] * 7


def test_a_source_at_sea_has_its_leg_under_way():
    """A source on a sea node: sea, land, sea, land would be two overseas legs; the second is out."""
    line = [(1,), (0, 2), (1, 3), (2,)]
    assert bounded_reach(line, [0], 4, lambda u, v: 0, [True, False, True, False]) == [1, 1, 0, 0]


def test_the_cost_of_a_step_is_the_node_nearer_the_source():
    """Traced from the unit, each hex entered counts: from a unit at 3 to the source at 0 the path
    enters 2, 1 and 0. Charging u (the node nearer the source) counts 0, 1 and 2 once each: with
    hexes costing 1, 1 and 2 and a limit of 4 the unit at 3 is in reach (4), the one at 4 is not."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    hex_cost = [2, 1, 1, 1, 1]
    assert bounded_reach(line, [0], 4, lambda u, v: hex_cost[u]) == [1, 1, 1, 1, 0]
