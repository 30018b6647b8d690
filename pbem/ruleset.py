"""The plug-in contract between the engine and a game, and the registry of installed rulesets.

A ruleset is a state machine (docs/protocol.md §5). The engine asks what is pending, feeds it orders
and dice, and hashes its public dump; it never looks inside the state.
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import UsageError

NAME_OK = re.compile(r"[a-z][a-z0-9_]{0,31}").fullmatch


@dataclass(frozen=True)
class Decision:
    """One player (or several at once, sealed) must sign the next orders."""

    players: tuple[str, ...]
    prompt: str = ""


@dataclass(frozen=True)
class Chance:
    """Dice must be drawn before anyone can decide."""

    purpose: str = ""


@dataclass(frozen=True)
class Over:
    result: str = ""


@dataclass(frozen=True)
class OptionSpec:
    id: str
    default: Any
    rule: str
    help: str


@dataclass(frozen=True)
class OrderHint:
    kind: str
    fields: str
    help: str
    rule: str = ""


@dataclass(frozen=True)
class View:
    """Something `pbem show` can display: its data (what --json prints) and how to draw it.

    data(*args) takes the words after the view's name (`pbem show space Verdun`); render(data)
    draws exactly that data, so the report and the JSON never disagree.
    """

    help: str
    data: Callable[..., Any]
    render: Callable[[Any], Any]


@dataclass(frozen=True)
class Seat:
    id: str
    sides: tuple[str, ...]
    role: str


@dataclass(frozen=True)
class Setup:
    """What a charter tells a ruleset: scenario, roster, optional rules and data tables."""

    scenario: str
    roster: tuple[Seat, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    tables: Mapping[str, Mapping] = field(default_factory=dict)

    @property
    def players(self) -> list[str]:
        return [seat.id for seat in self.roster if seat.role == "player"]


class Ruleset(Protocol):
    id: str
    version: str
    title: str
    sides: tuple[str, ...]
    options: Mapping[str, OptionSpec]

    def scenarios(self) -> Mapping[str, str]: ...
    def new_state(self, setup: Setup) -> Any: ...
    def pending(self, state) -> Decision | Chance | Over: ...
    def apply(self, state, player: str, order: Mapping) -> Any: ...
    def resolve(self, state, dice, private) -> Any: ...
    def legal(self, state, player: str) -> Iterable[OrderHint]: ...
    def resign(self, state, player: str) -> Any: ...
    def dump(self, state) -> dict: ...
    def load(self, data: dict, setup: Setup) -> Any: ...
    def summary(self, order: Mapping) -> str: ...
    def views(self, state) -> Mapping[str, View]: ...
    def demo_script(self) -> dict: ...  # what `pbem demo GAME` plays


ENTRY_POINT_GROUP = "pbem.rulesets"


def available() -> dict[str, Callable[[], Ruleset]]:
    """Installed rulesets by id, from the entry point group pbem.rulesets."""
    from importlib.metadata import entry_points

    found = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found[point.name.replace("-", "_")] = point.load
    if "freeform" not in found:  # running from a source tree that was never installed
        found["freeform"] = lambda: __import__("pbem.rules.freeform", fromlist=["ruleset"]).ruleset
    return found


_loaded: dict[str, Ruleset] = {}


def load(ruleset_id: str, version: str | None = None) -> Ruleset:
    """The ruleset a charter names; refuses another version rather than re-adjudicate (§4)."""
    key = ruleset_id.replace("-", "_")
    if key not in _loaded and NAME_OK(key):
        with contextlib.suppress(ModuleNotFoundError):  # shipped rulesets load without scanning entry points
            _loaded[key] = importlib.import_module(f"pbem.rules.{key}").ruleset
    if key not in _loaded:
        makers = available()
        if key not in makers:
            raise UsageError(
                f"no ruleset {ruleset_id!r} is installed (have: {', '.join(sorted(makers))})",
                field="ruleset",
            )
        _loaded[key] = makers[key]()
    ruleset = _loaded[key]
    if version is not None and version != ruleset.version:
        raise UsageError(
            f"this game was made with {ruleset_id} {version}; this pbem has {ruleset.version} "
            "and will not re-adjudicate it with other rules",
            field="version",
        )
    return ruleset
