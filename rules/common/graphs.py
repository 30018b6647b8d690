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
from collections.abc import Callable, Mapping, Sequence


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

Step = Callable[[int, int, int], "tuple[int, int] | None"]


class Reach:
    """What `bounded_reach` found: for each state (node * legs + leg) and each cost c, the bits of
    the classes that reach it along a path costing at most c; with `track`, one such path."""

    def __init__(self, legs: int, levels: list[list[int]], parents: dict[int, object] | None) -> None:
        self.legs = legs
        self.levels = levels
        self.parents = parents

    def bits(self, node: int, within: int) -> int:
        """The classes that reach `node` in any leg along a path costing at most `within`."""
        level = self.levels[min(within, len(self.levels) - 1)]
        found = 0
        for leg in range(self.legs):
            found |= level[node * self.legs + leg]
        return found

    def path(self, node: int, within: int) -> list[tuple[int, int]]:
        """(node, leg) from `node` back to the seed, relays and the paths that led to them
        included; [] where nothing reaches it within that cost (a `track` search only)."""
        assert self.parents is not None, "a path needs a tracked search"
        level = self.levels[min(within, len(self.levels) - 1)]
        state = next((node * self.legs + leg for leg in range(self.legs) if level[node * self.legs + leg]), None)
        return [] if state is None else self._walk(state)

    def _walk(self, state: int) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        while True:
            found.append(divmod(state, self.legs))
            parent = self.parents[state] if self.parents is not None else None
            if parent is None:
                return found
            if isinstance(parent, list):  # a relay: the path that fired it, as it was then
                return found + parent
            state = parent  # type: ignore[assignment]


def bounded_reach(
    neighbours: Sequence[Sequence[int]],
    seeds: Sequence[tuple[int, int, int]],
    limit: int,
    step: Step,
    legs: int = 1,
    allowed: Sequence[int] | None = None,
    relays: Mapping[int, tuple[int, int, Sequence[int]]] | None = None,
    restart: Callable[[int], int] = lambda leg: leg,
    track: bool = False,
) -> Reach:
    """Which classes of tracer reach which node along a path costing at most `limit`, searched
    from the seeds out; each class is a bit, so one search serves them all.

    seeds: (node, leg, bits): where the classes' paths start, at cost 0.
    step(u, v, leg): (cost, leg after it) of the step from u to v, or None where a path may not
      go. The search runs from the seeds, but a path is traced the other way, from its far end:
      the cost is what tracing from v into u costs, u's, never v's, whose cost is the next step's.
      Legs are the caller's: a path's state besides its node (an overseas leg under way, say).
    allowed[u]: the classes that may trace into u (all where None); the far end of a path is not
      traced into, so a class reaches a node it may not enter but goes no further.
    relays[node]: (bits, within, targets): for those classes, a node that a path reaches at a
      cost of at most `within` starts new paths at cost 0 from each target node, in the leg
      `restart(leg)` (secondary supply sources chained to a primary one).
    track: keep one path per state, for a search of one class.

    A state's cost only falls, and lies in 0..limit, so each is settled at most limit + 1 times
    per class: a bucket queue by cost, lowest first, that goes back to 0 when a relay fires."""
    size = len(neighbours) * legs
    levels = [[0] * size for _ in range(limit + 1)]  # levels[c][state]: bits reaching it at cost <= c
    fired = [0] * size
    parents: dict[int, object] | None = {} if track else None
    buckets: list[list[tuple[int, int, object]]] = [[] for _ in range(limit + 1)]
    for node, leg, bits in seeds:
        buckets[0].append((node * legs + leg, bits, None))
    relay_at = relays or {}
    cost = 0
    while cost <= limit:
        if not buckets[cost]:
            cost += 1
            continue
        here = cost
        state, mask, parent = buckets[here].pop()
        new = mask & ~levels[here][state]
        if not new:
            continue
        for level in range(here, limit + 1):
            levels[level][state] |= new
        if parents is not None:
            parents[state] = parent
        node, leg = divmod(state, legs)
        if node in relay_at and _fire(relay_at[node], state, new, here, fired, legs, restart, buckets, parents):
            cost = 0
        onward = new if allowed is None else new & allowed[node]
        if not onward:
            continue
        for there in neighbours[node]:
            found = step(node, there, leg)
            if found is not None and here + found[0] <= limit:
                buckets[here + found[0]].append((there * legs + found[1], onward, state))
    return Reach(legs, levels, parents)


def _fire(relay, state, new, cost, fired, legs, restart, buckets, parents) -> bool:
    """Seed a relay's targets for the classes it newly serves; whether it did."""
    bits, within, targets = relay
    fire = new & bits & ~fired[state]
    if not fire or cost > within:
        return False
    fired[state] |= fire
    before = Reach(legs, [], parents)._walk(state) if parents is not None else None
    leg = restart(state % legs)
    for target in targets:
        buckets[0].append((target * legs + leg, fire, before))
    return True
