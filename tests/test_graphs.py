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

import itertools  # noqa: E402

from pbem.rules.common.graphs import bounded_reach  # noqa: E402


def one_class_bounded(neighbours, seeds, limit, step, allowed, relays, restart):
    """Every (node, cost) one class reaches, by exhausting (node, leg, cost) states: plain and slow."""
    start = {(node, leg, 0) for node, leg in seeds}
    seen, stack = set(start), list(start)
    while stack:
        node, leg, used = stack.pop()
        found = []
        if node in relays and used <= relays[node][0]:
            found += [(target, restart(leg), 0) for target in relays[node][1]]
        if allowed[node]:
            for there in neighbours[node]:
                taken = step(node, there, leg)
                if taken is not None and used + taken[0] <= limit:
                    found.append((there, taken[1], used + taken[0]))
        for state in found:
            if state not in seen:
                seen.add(state)
                stack.append(state)
    return {(node, used) for node, _, used in seen}


def walk_is_a_path(path, neighbours, step, relays, within):
    """Each pair of a tracked path is a step taken the other way, or a relay's restart; the part
    after the last relay costs at most `within`."""
    spent = 0
    for (near, near_leg), (far, far_leg) in itertools.pairwise(path):
        if far in relays and near in relays[far][2]:
            return spent <= within
        taken = step(far, near, far_leg)
        assert near in neighbours[far] and taken is not None and taken[1] == near_leg
        spent += taken[0]
    return spent <= within


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 5), st.integers(1, 4), st.integers(0, 4), st.data())
def test_bounded_reach_against_one_search_per_class(width, height, limit, data):
    neighbours = hex_grid(width, height)
    size = len(neighbours)
    choice = st.sampled_from([None, (0, 0), (1, 0), (1, 1), (2, 0), (0, 1), None])
    steps = {(u, v, leg): data.draw(choice) for u in range(size) for v in neighbours[u] for leg in (0, 1)}
    step = lambda u, v, leg: steps[(u, v, leg)]  # noqa: E731
    classes = 2
    seeds = data.draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 1), st.integers(1, 3)),
                               min_size=1, max_size=4))
    allowed = data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    relay_nodes = data.draw(st.lists(st.integers(0, size - 1), max_size=3, unique=True))
    relays = {node: (data.draw(st.integers(1, 3)), data.draw(st.integers(0, limit)),
                     tuple(data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=2))))
              for node in relay_nodes}
    restart = lambda leg: 1  # noqa: E731
    found = bounded_reach(neighbours, seeds, limit, step, 2, allowed, relays, restart)
    for bit in range(classes):
        mine = [(node, leg) for node, leg, bits in seeds if bits >> bit & 1]
        may = [bool(a >> bit & 1) for a in allowed]
        own = {node: (within, targets) for node, (bits, within, targets) in relays.items() if bits >> bit & 1}
        reached = one_class_bounded(neighbours, mine, limit, step, may, own, restart)
        for node in range(size):
            for within in range(limit + 1):
                expected = any(n == node and used <= within for n, used in reached)
                assert bool(found.bits(node, within) >> bit & 1) == expected, (bit, node, within)
    one = [(node, leg, 1) for node, leg, bits in seeds if bits & 1]
    tracked = bounded_reach(neighbours, one, limit, step, 2, [a & 1 for a in allowed],
                            {n: (b & 1, w, t) for n, (b, w, t) in relays.items()}, restart, track=True)
    for node in range(size):
        path = tracked.path(node, limit)
        assert bool(path) == bool(tracked.bits(node, limit))
        assert not path or (path[0][0] == node and walk_is_a_path(path, neighbours, step, relays, limit))


def free(u, v, leg):
    return 0, leg


def test_a_secondary_source_starts_the_count_again():
    """A line of seven hexes, each step costing 1, limit 3: from 0 the path ends at 3; with a relay
    at 3 it goes on to 6."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5,)]
    plain = bounded_reach(line, [(0, 0, 1)], 3, lambda u, v, leg: (1, leg))
    assert [plain.bits(n, 3) for n in range(7)] == [1, 1, 1, 1, 0, 0, 0]
    relayed = bounded_reach(line, [(0, 0, 1)], 3, lambda u, v, leg: (1, leg), relays={3: (1, 3, (3,))}, track=True)
    assert [relayed.bits(n, 3) for n in range(7)] == [1] * 7
    assert [node for node, _ in relayed.path(6, 3)] == [6, 5, 4, 3, 3, 2, 1, 0]


def test_a_relay_fires_only_within_its_own_length():
    """The relay at 3 is reached at cost 3 but serves only paths of 2 (its weather): 4 is out."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    reach = bounded_reach(line, [(0, 0, 1)], 3, lambda u, v, leg: (1, leg), relays={3: (1, 2, (3,))})
    assert [reach.bits(n, 3) for n in range(5)] == [1, 1, 1, 1, 0]


def test_a_class_goes_no_further_than_a_node_it_may_not_enter():
    """Node 1 is closed to class 2 but not to class 1: class 2 reaches 1 (the far end of a path is
    not entered) and no further."""
    line = [(1,), (0, 2), (1,)]
    reach = bounded_reach(line, [(0, 0, 3)], 4, free, allowed=[3, 1, 3])
    assert [reach.bits(n, 4) for n in range(3)] == [3, 3, 1]


def test_the_cost_of_a_step_is_the_node_nearer_the_source():
    """Traced from the unit, each hex entered counts: from a unit at 3 to the source at 0 the path
    enters 2, 1 and 0. Charging u (the node nearer the source) counts 0, 1 and 2 once each: with
    hexes costing 2, 1 and 1 and a limit of 4 the unit at 3 is in reach (4), the one at 4 is not."""
    line = [(1,), (0, 2), (1, 3), (2, 4), (3,)]
    hex_cost = [2, 1, 1, 1, 1]
    reach = bounded_reach(line, [(0, 0, 1)], 4, lambda u, v, leg: (hex_cost[u], leg))
    assert [reach.bits(n, 4) for n in range(5)] == [1, 1, 1, 1, 0]
    assert [reach.bits(n, 3) for n in range(5)] == [1, 1, 1, 0, 0]
