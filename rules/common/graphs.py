"""Point-to-point map searches shared by games: which supply sources reach which spaces.

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
    """Neighbours of an offset hex grid (odd rows shifted right), for tests and benchmarks."""
    grid = []
    for row in range(height):
        shift = row % 2
        for col in range(width):
            cells = [(col - 1, row), (col + 1, row),
                     (col - 1 + shift, row - 1), (col + shift, row - 1),
                     (col - 1 + shift, row + 1), (col + shift, row + 1)]
            grid.append(tuple(r * width + c for c, r in cells if 0 <= c < width and 0 <= r < height))
    return grid
