"""Point-to-point map searches shared by games: which supply sources reach which spaces, and within
what cost (bounded_reach, for supply paths counted in hexes with one overseas leg and chained
secondary sources).

Maps are compiled once into integer arrays (space i's neighbours as a tuple of ints). A supply
search is one multi-source propagation per class of tracing unit: every source gets one bit, and
each space ends with the bit mask of the sources that reach it. A space's mask only ever gains
bits, so each space is re-examined at most once per source bit: linear in the size of the map for
the handful of sources a nation has. `components` splits a map into parts once, so that many
searches can run over the parts instead of the spaces.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence


def reach_sources(
    neighbours: Sequence[Sequence[int]],
    sources: Sequence[int],
    enter: Callable[[int], bool] | Sequence[bool],
    cross: Callable[[int, int], bool] | None = None,
    pass_through: Callable[[int], bool] | Sequence[bool] | None = None,
) -> list[int]:
    """Bit mask per space of the sources (bit k = sources[k]) from which it can be reached.

    enter(v): a path may end at or run through v (friendly control, say).
    pass_through(v): a path may continue beyond v (default: enter); a space that may be reached
    but not passed (a besieged friendly fort, say) is entered with False here.
    cross(u, v): the connection u-v may be used by this class (limited connections).
    Sources are reached by themselves only if enter(source) holds.
    """
    size = len(neighbours)
    can_enter = _as_list(enter, size)
    can_pass = can_enter if pass_through is None else _as_list(pass_through, size)
    reach = [0] * size
    queue: deque[int] = deque()
    for bit, source in enumerate(sources):
        if can_enter[source]:
            if not reach[source]:
                queue.append(source)
            reach[source] |= 1 << bit
    while queue:
        here = queue.popleft()
        if not can_pass[here]:
            continue
        mask = reach[here]
        for there in neighbours[here]:
            if not can_enter[there] or reach[there] | mask == reach[there]:
                continue
            if cross is not None and not cross(here, there):
                continue
            reach[there] |= mask
            queue.append(there)
    return reach


def components(neighbours: Sequence[Sequence[int]], enter: Sequence[bool]) -> tuple[list[int], int]:
    """The connected parts of the spaces that may be entered: (part number of each space, -1 where
    enter is False; the number of parts). `neighbours` must be symmetric. Searches over parts
    instead of spaces when many searches share the same spaces and differ only on a few links."""
    part = [-1] * len(neighbours)
    count = 0
    for start, can in enumerate(enter):
        if not can or part[start] >= 0:
            continue
        part[start] = count
        stack = [start]
        while stack:
            for there in neighbours[stack.pop()]:
                if part[there] < 0 and enter[there]:
                    part[there] = count
                    stack.append(there)
        count += 1
    return part, count


def _as_list(test, size: int) -> Sequence[bool]:
    if callable(test):
        return [bool(test(i)) for i in range(size)]
    return test


def hex_grid(width: int, height: int) -> list[tuple[int, ...]]:
    """Neighbours of an offset hex grid (hexes.Grid), for tests and benchmarks."""
    from .hexes import Grid

    return Grid(width, height).neighbours()


# ---------------------------------------------------------------------------------- bounded supply paths

LAND, AT_SEA, LANDED = range(3)  # a path's overseas leg: not yet, under way, behind it


def bounded_reach(
    neighbours: Sequence[Sequence[int]],
    sources: Sequence[int],
    limit: int,
    cost: Callable[[int, int], int | None],
    is_sea: Sequence[bool] | None = None,
    relays: Sequence[bool] | None = None,
) -> list[int]:
    """Bit mask per node of the sources (bit k = sources[k]) that reach it along a path costing at
    most `limit`, searched from the sources out.

    cost(u, v): what the step from u to v adds, or None where the path may not go. The search runs
      from the sources, but supply is traced the other way, from the unit: u is the node nearer
      the source, and a rule that counts "each hex traced into" charges u here, what tracing from
      v into u costs (u's terrain, scale, the enemy ZOC in it), never v, whose cost belongs to
      the step beyond it.
    is_sea: nodes of the sea (areas, boxes); a path's sea nodes form one unbroken leg at most, and
      the count of the whole chain of paths below, not of each link (an overseas leg once). A
      source on a sea node starts with its leg under way.
    relays: nodes where a path that reaches them starts again at cost 0, keeping its overseas leg
      (secondary sources chained to a primary one); a relay reaches what it reaches in its own
      right only through its sources.

    One `cost` and one `limit` serve every link of a chain, so a rule that costs a link by what
    kind of path it is (a railway path only between sources), by where it starts (the weather's
    length) or lets a sea leg continue overland only at a port needs a graph built for it (a node
    per kind of path or a port node), as its caller's business.

    A node's remaining budget only grows, and is at most `limit`, so each (node, leg, source) is
    settled at most limit + 1 times: bucket queue by remaining budget, highest first."""
    size = len(neighbours)
    sea = is_sea if is_sea is not None else [False] * size
    relay = relays if relays is not None else [False] * size
    have = [[0] * (3 * size) for _ in range(limit + 1)]  # have[b][state]: bits with budget >= b there
    buckets: list[list[tuple[int, int]]] = [[] for _ in range(limit + 1)]
    for bit, source in enumerate(sources):
        buckets[limit].append((source * 3 + (AT_SEA if sea[source] else LAND), 1 << bit))
    budget = limit
    while budget >= 0:
        if not buckets[budget]:
            budget -= 1
            continue
        state, mask = buckets[budget].pop()
        new = mask & ~have[budget][state]
        if not new:
            continue
        for level in range(budget + 1):
            have[level][state] |= new
        node, leg = divmod(state, 3)
        if relay[node] and budget < limit:  # a secondary source: the chain starts again from it
            buckets[limit].append((state, new))
            budget = limit
        for there in neighbours[node]:
            step = cost(node, there)
            next_leg = _leg(leg, sea[there])
            if step is None or next_leg is None or step > budget:
                continue
            buckets[budget - step].append((there * 3 + next_leg, new))
    return [have[0][3 * node] | have[0][3 * node + 1] | have[0][3 * node + 2] for node in range(size)]


def _leg(leg: int, into_sea: bool) -> int | None:
    """The overseas leg after a step into sea or land, None where the leg would be a second one."""
    if into_sea:
        return AT_SEA if leg in (LAND, AT_SEA) else None
    return LANDED if leg in (AT_SEA, LANDED) else LAND
