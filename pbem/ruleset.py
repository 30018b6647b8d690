"""The contract between the engine and a game, the base class every game builds on, and the registry.

A ruleset is a state machine over a state type S (docs/protocol.md §5). The engine asks what is
pending, feeds it orders and dice, and hashes its public dump; it never looks inside the state.
docs/writing-a-ruleset.md walks through the contract with freeform as the example.

Each game subclasses `Ruleset`, names its package, and keeps its facts in that package's data files:
`data/ruleset.toml` declares its version, title, scenarios, optional rules (`OptionSpec`) and order
kinds (`OrderKind`); the base class loads them once and supplies what every game shares: option
checking, order checking, the legal-order list, the order summary, the demo script and state copies.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from . import datafile
from .errors import IllegalOrder, UsageError

NAME_OK = re.compile(r"[a-z][a-z0-9_]{0,31}").fullmatch
S = TypeVar("S")


# The three answers of `Ruleset.pending`, told apart with isinstance. NamedTuples: the status
# command builds them and imports this module, and a frozen dataclass costs far more to define.
class Decision(NamedTuple):
    """These players decide next; `prompt` tells them what is asked (shown by `pbem status`).

    One player signs the next entry with his orders. Two or more decide at once, sealed (protocol
    §5): each seals his orders, all unseal, and the engine hands them to `Ruleset.apply_together`."""

    players: tuple[str, ...]
    prompt: str = ""


class Chance(NamedTuple):
    """Dice must be drawn (at the roll point of the entry just applied) before anyone can decide."""


class Over(NamedTuple):
    result: str = ""


class View(NamedTuple):
    """Something `pbem show` can display: its data (what --json prints) and how to draw it.

    data(*args) takes the words after the view's name (`pbem show space Verdun`); render(data)
    draws exactly that data, so the report and the JSON never disagree.
    """

    help: str
    data: Callable[..., Any]
    render: Callable[[Any], Any]


class Seat(NamedTuple):
    id: str
    sides: tuple[str, ...]
    role: str


class _NoEntries(Mapping):
    """An empty mapping that nobody can fill: Setup's defaults, shared by every Setup, and like the
    dicts a charter gives, one that copies and pickles."""

    def __getitem__(self, key: Any) -> Any:
        raise KeyError(key)

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"


NO_ENTRIES: Mapping[str, Any] = _NoEntries()


class Setup(NamedTuple):
    """What a charter tells a ruleset: scenario, roster, optional rules (as the charter wrote them;
    `Ruleset.chosen` fills in the defaults) and data tables."""

    scenario: str
    roster: tuple[Seat, ...]
    options: Mapping[str, Any] = NO_ENTRIES
    tables: Mapping[str, Mapping] = NO_ENTRIES

    @property
    def players(self) -> list[str]:
        return [seat.id for seat in self.roster if seat.role == "player"]

    @classmethod
    def of(cls, charter: Any) -> Setup:
        """What a charter (pbem.charter.Charter) tells its ruleset."""
        return cls(scenario=charter.scenario, roster=tuple(Seat(m.id, m.sides, m.role) for m in charter.players),
                   options=dict(charter.options), tables=dict(charter.tables))


# ------------------------------------------------------------------------------------- optional rules

OPTION_TYPES = {"bool": bool, "int": int, "text": str, "choice": str}


class OptionSpec(NamedTuple):
    """One optional rule: its type and allowed values, and the options it needs on or must not meet.

    `requires` and `excludes` name other options, as `id` (that option on) or `id=value`.
    """

    id: str
    default: Any
    rule: str
    help: str
    type: str = "bool"
    choices: tuple = ()
    requires: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    @classmethod
    def from_data(cls, option_id: str, table: Mapping) -> OptionSpec:
        known = {"default", "rule", "help", "type", "choices", "requires", "excludes"}
        lists = [table.get(key, []) for key in ("choices", "requires", "excludes")]
        if set(table) - known or not {"default", "rule", "help"} <= set(table) or \
                not all(isinstance(items, list) for items in lists):
            raise datafile.DataFileError(f"option {option_id}: keys are {', '.join(sorted(known))}; choices, "
                                         "requires and excludes are lists", field="options")
        spec = cls(option_id, table["default"], table["rule"], table["help"], table.get("type", "bool"),
                   *(tuple(items) for items in lists))
        spec.check(spec.default)
        return spec

    def check(self, value: Any) -> Any:
        """The value if this option may take it; else a UsageError naming the option and its rule."""
        wanted = OPTION_TYPES.get(self.type)
        if wanted is None or not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise UsageError(f"option {self.id} is {_OPTION_WORDS.get(self.type, self.type)}, not {value!r}",
                             rule=self.rule, field=f"options.{self.id}")
        if self.choices and value not in self.choices:
            raise UsageError(f"option {self.id} is one of {', '.join(map(str, self.choices))}, not {value!r}",
                             rule=self.rule, field=f"options.{self.id}")
        return value

    def parse(self, text: str) -> Any:
        """A value typed on the command line (`--option ID=VALUE`; a bare `--option ID` is on), checked."""
        if self.type == "bool":
            words = {"": True, **dict.fromkeys(("on", "true", "yes"), True), **dict.fromkeys(("off", "false", "no"),
                                                                                               False)}
            return self.check(words.get(text.lower(), text))
        if self.type == "int":
            return self.check(int(text) if re.fullmatch(r"[+-]?\d{1,18}", text) else text)
        return self.check(text)


_OPTION_WORDS = {"bool": "on or off", "int": "a whole number", "text": "text", "choice": "a choice"}


def _holds(condition: str, chosen: Mapping[str, Any]) -> bool:
    """Is `id` on, or does `id=value` match the option's value (read by its type)?"""
    name, sep, wanted = condition.partition("=")
    value = chosen.get(name)
    if not sep:
        return value is True
    if isinstance(value, bool):
        return value == (wanted.lower() in ("on", "true", "yes"))
    return str(value) == wanted


def _in_force(spec: OptionSpec, chosen: Mapping[str, Any]) -> bool:
    """A switch counts when on; an option with a value always counts."""
    return spec.type != "bool" or chosen[spec.id] is True


def resolve_options(specs: Mapping[str, OptionSpec], written: Mapping[str, Any]) -> dict[str, Any]:
    """Every option's value for a charter that wrote `written`: defaults filled in, each value checked.

    A default switch gives way to an option the charter wrote that excludes it, or that it excludes
    (writing italy_19_1_1 = true turns off 19.1's default); options the charter wrote that conflict,
    and a requirement left unmet, are refused naming both rules."""
    for name in written:
        if name not in specs:
            raise UsageError(f"no option {name!r} (see 'pbem rules')", field=f"options.{name}")
    chosen = {name: spec.check(written[name]) if name in written else spec.default for name, spec in specs.items()}
    for spec in specs.values():
        for excluded in spec.excludes:
            _give_way(spec, excluded, chosen, written, specs)
    for spec in specs.values():
        if _in_force(spec, chosen):
            _check_relations(spec, chosen, specs)
    return chosen


def _give_way(spec: OptionSpec, excluded: str, chosen: dict, written: Mapping, specs: Mapping[str, OptionSpec]) -> None:
    other = specs.get(excluded.partition("=")[0])
    if other is None or not _in_force(spec, chosen) or not _holds(excluded, chosen):
        return
    if spec.id in written and other.id not in written and other.type == "bool":
        chosen[other.id] = False
    elif other.id in written and spec.id not in written and spec.type == "bool":
        chosen[spec.id] = False


def _check_relations(spec: OptionSpec, chosen: Mapping[str, Any], specs: Mapping[str, OptionSpec]) -> None:
    for needed in spec.requires:
        if not _holds(needed, chosen):
            other = specs.get(needed.partition("=")[0])
            raise UsageError(f"option {spec.id} (rule {spec.rule}) needs {needed}"
                             + (f" (rule {other.rule})" if other else ""), field=f"options.{spec.id}")
    for excluded in spec.excludes:
        if _holds(excluded, chosen):
            other = specs.get(excluded.partition("=")[0])
            raise UsageError(f"option {spec.id} (rule {spec.rule}) cannot be played with {excluded}"
                             + (f" (rule {other.rule})" if other else ""), field=f"options.{spec.id}")


def check_declared_options(specs: Mapping[str, OptionSpec]) -> None:
    """A ruleset's options name only options it declares, and its defaults agree with each other."""
    for spec in specs.values():
        for condition in spec.requires + spec.excludes:
            if condition.partition("=")[0] not in specs:
                raise datafile.DataFileError(f"option {spec.id} names no declared option in {condition!r}",
                                             field="options")
    try:
        resolve_options(specs, {})
    except UsageError as exc:
        raise datafile.DataFileError(f"the default options conflict: {exc.message}", field="options") from None


# ------------------------------------------------------------------------------------- order kinds

FIELD_TYPES = ("text", "int", "bool", "list")


class FieldSpec(NamedTuple):
    """One field of an order kind: text, int, bool or list (of text). A `private` field (a card
    discarded face down, say) never appears in the signed order: its author's client puts it in the
    entry's encrypted private record (protocol §7.3), which only he reads until he discloses."""

    name: str
    type: str
    required: bool = True
    help: str = ""
    private: bool = False


class OrderKind(NamedTuple):
    """An order a ruleset understands: its fields, the rule it comes from, and an example in the
    text form `pbem move` reads (pbem/orders.py)."""

    kind: str
    rule: str
    help: str
    fields: tuple[FieldSpec, ...] = ()
    example: str = ""

    @classmethod
    def from_data(cls, kind: str, table: Mapping) -> OrderKind:
        if set(table) - {"rule", "help", "example", "fields"} or not {"rule", "help"} <= set(table):
            raise datafile.DataFileError(f"order {kind}: keys are rule, help, example and fields", field="orders")
        fields = []
        for name, spec in table.get("fields", {}).items():
            if spec.get("type") not in FIELD_TYPES or set(spec) - {"type", "optional", "help", "private"}:
                raise datafile.DataFileError(f"order {kind}: field {name} has a type among {', '.join(FIELD_TYPES)} "
                                             "and may say optional, private and help", field="orders")
            fields.append(FieldSpec(name, spec["type"], not spec.get("optional", False), spec.get("help", ""),
                                    spec.get("private", False)))
        return cls(kind, table["rule"], table["help"], tuple(fields), table.get("example", kind))

    def split(self, order: Mapping) -> tuple[dict, dict]:
        """The order as signed (public fields) and its private fields."""
        private = {spec.name for spec in self.fields if spec.private}
        return ({k: v for k, v in order.items() if k not in private}, {k: v for k, v in order.items() if k in private})

    def field(self, name: str) -> FieldSpec | None:
        return next((spec for spec in self.fields if spec.name == name), None)

    def check(self, order: Mapping) -> None:
        """Every required field present, no other, each of its declared type (IllegalOrder, this kind's rule)."""
        for spec in self.fields:
            if spec.private and spec.name in order:
                raise IllegalOrder(f"{self.kind}'s {spec.name} is private: it travels only in its author's "
                                   "encrypted record", rule=self.rule, field=spec.name)
            if spec.required and not spec.private and spec.name not in order:
                raise IllegalOrder(f"{self.kind} needs '{spec.name}' (for example: {self.example})", rule=self.rule,
                                   field=spec.name)
        for name, value in order.items():
            declared = self.field(name)
            if name == "kind":
                continue
            if declared is None:
                raise IllegalOrder(f"{self.kind} takes no '{name}' (it takes: {self._names()})", rule=self.rule,
                                   field=name)
            self._check_type(declared, value)

    def check_private_fields(self, fields: Mapping) -> None:
        """A private record's fields for this order, as opened: each a declared private field of its
        type (IllegalOrder, this kind's rule), so a tampered record is refused, never misread."""
        for name, value in fields.items():
            declared = self.field(name)
            if declared is None or not declared.private:
                raise IllegalOrder(f"{self.kind}'s private record holds no '{name}'", rule=self.rule, field=name)
            self._check_type(declared, value)

    def _check_type(self, declared: FieldSpec, value: Any) -> None:
        if not _of_type(value, declared.type):
            raise IllegalOrder(f"must be {_TYPE_WORDS[declared.type]}", rule=self.rule, field=declared.name)

    def _names(self) -> str:
        return ", ".join(spec.name for spec in self.fields) or "no fields"


_TYPE_WORDS = {"text": "text", "int": "a whole number", "bool": "true or false", "list": "a list of names"}


INT64 = (-(2**63), 2**63 - 1)  # what a message may carry (protocol §3.3)


def _of_type(value: Any, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and INT64[0] <= value <= INT64[1]
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, str)


# ------------------------------------------------------------------------------------- the contract

class Ruleset(Generic[S]):
    """A game. Subclasses set `id` and `package` and implement the state machine methods below; the
    rest have defaults built on `data/ruleset.toml`.

    When the engine calls what:
      `pbem new`, `pbem join`, opening a game: `check_setup` (refuse a charter that cannot be played).
      every participant has joined: `new_state` once.
      each command: `load` of the cached dump, or a replay from `new_state`.
      each entry of the log, in order: the open roll point resolves (below); `apply_together` with
        the unsealed orders of a simultaneous decision it uses; `resign` for each resign it uses;
        then `apply` for each order, then `dump` (hashed into the entry's state field); then
        `pending`: if it is a `Chance`, the entry opens a roll point and, once its witnesses have
        revealed, `resolve` is called with the dice until `pending` is no longer a `Chance`.
      every entry is applied to a `copy` (kept only if the whole entry is legal), and every trial of
        a move before it is signed works on one: `copy` runs once per entry, so it must be cheap.
    Every method but `apply`, `apply_together`, `resolve` and `resign` leaves the state as it found it. A method that
    refuses raises a typed error: `IllegalOrder` naming the rule (exit 1), `UsageError` for a
    charter the ruleset cannot play (exit 2). No method reads a file or the clock, or draws a die
    other than from the `Dice` it is given: every replay on every machine must agree.
    """

    id: str = ""
    package: str = ""  # the ruleset's package, whose data/ holds ruleset.toml

    def __init__(self) -> None:
        spec = self.declaration()
        try:
            self.version: str = spec["version"]
            self.title: str = spec["title"]
            scenarios = spec.get("scenarios", {})
            self._scenarios: dict[str, str] = {name: table["title"] for name, table in scenarios.items()}
        except (KeyError, TypeError) as exc:
            raise datafile.DataFileError(f"{self.id}'s declaration lacks {exc}", field="ruleset.toml") from None
        self.sides: tuple[str, ...] = tuple(spec.get("sides", ()))
        self.options: dict[str, OptionSpec] = {
            name: OptionSpec.from_data(name, table) for name, table in spec.get("options", {}).items()}
        check_declared_options(self.options)
        self.order_kinds: dict[str, OrderKind] = {
            kind: OrderKind.from_data(kind, table) for kind, table in spec.get("orders", {}).items()}
        self.order_rule: str = spec.get("order_rule", "")  # the rule an unknown order kind breaks

    def declaration(self) -> Mapping[str, Any]:
        """Version, title, sides, scenarios, options and order kinds: data/ruleset.toml. A ruleset
        defined in code alone (a test's, a benchmark's) returns the same tables from here."""
        return self.data("ruleset.toml")

    def data(self, name: str) -> dict:
        """A data file of this ruleset's package (loaded once, its format_version checked)."""
        return datafile.load(self.package, name)

    # ---------------------------------------------------------------- the charter

    def scenarios(self) -> Mapping[str, str]:
        """Scenario ids and titles, the first the default (`pbem rules GAME` lists them)."""
        return dict(self._scenarios)

    def chosen(self, setup: Setup) -> dict[str, Any]:
        """Every optional rule's value in this game (the charter's choices with defaults filled in)."""
        return resolve_options(self.options, setup.options)

    def check_setup(self, setup: Setup) -> None:
        """Refuse (UsageError naming the field) a charter this ruleset cannot play: an unknown
        scenario, options that are unknown, mistyped or in conflict. Subclasses extend it (sides,
        tables) and call this one. Called by `pbem new`, `pbem join` and whenever a game opens."""
        if setup.scenario not in self.scenarios():
            raise UsageError(f"no scenario {setup.scenario!r} (have: {', '.join(self.scenarios())})",
                             field="scenario")
        self.chosen(setup)

    def new_state(self, setup: Setup) -> S:
        """The state at the start of the game (after every join). Raises UsageError for a charter it
        cannot play."""
        raise NotImplementedError

    # ---------------------------------------------------------------- the state machine

    def pending(self, state: S) -> Decision | Chance | Over:
        """What the game waits for: a player's decision, dice, or nothing (over). Pure."""
        raise NotImplementedError

    def apply(self, state: S, player: str, order: Mapping) -> S:
        """Apply one order of `player`'s (who is in `pending`'s Decision) to `state`, mutating it, and
        return the state. Raises IllegalOrder (with its rule and field) for an order the rules forbid;
        the engine then discards the state, so an order may fail half-way."""
        raise NotImplementedError

    def apply_together(self, state: S, orders: Mapping[str, list[Mapping] | None]) -> S:
        """The orders of a simultaneous decision, unsealed: `orders` maps each member of the pending
        Decision, in roster order, to his orders (None when his unsealed text could not be read).
        Mutates and returns the state. Never raises: no one can amend another's sealed orders, and
        a refused entry would stall the game, so a member whose orders are illegal or unreadable has
        them voided, and the public state records that with the rule, for every player to see.

            def apply_together(self, state, orders):
                for player, given in orders.items():
                    if given is None or not self.legal_choice(state, player, given):
                        state.voided[player] = "PROTOCOL §5: unreadable" if given is None else "…"
                    else:
                        state.choices[player] = given[0]["text"]
                state.sealed = None  # pending() moves on
                return state

        A ruleset whose `pending` never names two players need not implement it."""
        raise NotImplementedError(f"{self.id} opened a simultaneous decision but cannot apply one")

    def check_together(self, state: S, player: str, orders: Sequence[Mapping]) -> None:
        """Raise the IllegalOrder (with its rule) for which `apply_together` would void these orders
        of `player`'s; return if they stand. `pbem seal` asks before signing. Changes nothing."""
        raise NotImplementedError(f"{self.id} opened a simultaneous decision but cannot check one")

    def resolve(self, state: S, dice: Any, private: Any) -> S:
        """Use `dice` (pbem.dice.Dice: each draw names its purpose and rule) for the Chance that is
        pending, mutating and returning the state. `private` (pbem.hidden.PrivateDraws) gives a
        player's private dice and view where this client holds them (his own), None elsewhere; the
        public state must change the same way on every client:

            for player in state.players:
                dice_or_none = private.dice(player, "deal", "9.1")   # recorded either way
                view = private.view(player)
                if dice_or_none is not None and view is not None:
                    view["hand"] = dice_or_none.shuffle(list(deck), "deal", "9.1")[:7]
                state.hand_counts[player] = 7
        """
        raise NotImplementedError

    # ---------------------------------------------------------------- a player's private view (§7)

    def private_view(self, state: S, player: str) -> dict:
        """The private view of `player` when the game starts (his hand, his pile's order …): JSON
        data kept by his own client only, beside the public state. Default: nothing hidden."""
        return {}

    def apply_private(self, view: dict, player: str, order: Mapping) -> None:
        """Update `player`'s own view after his order was applied to the public state (a card
        played leaves his hand). Called only where his view is known. Default: nothing."""

    def check_private(self, view: dict, player: str, order: Mapping, state: S) -> None:
        """Raise IllegalOrder (with its rule) if `player`'s hidden view forbids this order (a card
        he does not hold) in `state`, the public state before it: his own client refuses to sign
        it, and the audit catches it. Default: nothing to check."""

    def held(self, state: S, view: dict) -> list[str]:
        """What a private view holds in this state, as an audit reports it (his hand's cards).
        Default: the view's `hand`."""
        return list(view.get("hand", []))

    def resign(self, state: S, player: str) -> S:
        """`player` leaves the game (protocol §5): mutate and return the state so that `pending`
        never waits for him again. Never raises."""
        raise NotImplementedError

    def dump(self, state: S) -> dict:
        """The public state as JSON-ready data (integers, text, booleans, lists, tables; no floats),
        hashed into every entry: only what play changes, never the map or other fixed facts. Pure."""
        raise NotImplementedError

    def load(self, data: dict, setup: Setup) -> S:
        """The state a `dump` describes, for this charter's setup: load(dump(s)) behaves as s."""
        raise NotImplementedError

    def copy(self, state: S, setup: Setup) -> S:
        """An independent copy to apply an entry or try orders on: called once per entry. The default
        goes through the dump; a ruleset with a large state overrides it with a cheaper copy that
        shares only immutable facts."""
        return self.load(json.loads(json.dumps(self.dump(state))), setup)

    # ---------------------------------------------------------------- orders

    def check_order(self, order: Mapping) -> OrderKind:
        """The declared kind of `order`, its fields checked (IllegalOrder with the kind's rule)."""
        kind = self.order_kinds.get(str(order.get("kind")))
        if kind is None:
            raise IllegalOrder(f"unknown order {order.get('kind')!r}; {self.id} knows {', '.join(self.order_kinds)}",
                               rule=self.order_rule, field="kind")
        kind.check(order)
        return kind

    def legal(self, state: S, player: str) -> Iterable[OrderKind]:
        """The kinds of order `player` may give now (`pbem move --edit` offers them). The default:
        every declared kind while the player is asked to decide, none otherwise."""
        step = self.pending(state)
        return list(self.order_kinds.values()) if isinstance(step, Decision) and player in step.players else []

    def standing(self, state: S) -> str:
        """One line on where the game stands (turn, score …), which `pbem status` shows under the
        log. Pure. Default: nothing."""
        return ""

    def suggest(self, state: S, player: str, view: dict | None = None) -> list[dict]:
        """Whole orders `player` may give now, each one that this state accepts (`pbem move --edit`
        lists them; machine play picks among them). `view` is his private view where known. Pure.
        Default: none (the kinds of `legal` are all a template can offer)."""
        return []

    def summary(self, order: Mapping) -> str:
        """The order in the text form `pbem move` reads (its inverse: pbem/orders.py)."""
        from . import orders

        return orders.text(order, self.order_kinds)

    # ---------------------------------------------------------------- showing

    def views(self, state: S, private: Mapping[str, dict] | None = None) -> Mapping[str, View]:
        """What `pbem show` can display of this state, by name (the first is the default); `private`
        holds the private views this client knows (its own player's), for a view such as `hand`."""
        return {}

    def picture(self, state: S, focus: str | None = None) -> str | None:
        """The map as a picture: one SVG document, or None when this ruleset draws no picture (the
        default). `pbem show picture` writes it to a file; `pbem report --html/--svg` puts it above
        the text report.

        The text is made with the standard library only (no drawing package), is deterministic
        (the same state gives byte-identical output, so two players' reports compare) and is
        bounded in size: a map too big to draw whole draws a window around the last action. Its
        root `<svg>` gives `width`, `height` and a `viewBox`, and uses no `<style>` sheet (the
        report embeds it in HTML, where a sheet would style the whole page).

        `focus` names a space as a player types it (an id or a name, as `pbem show space` takes):
        draw a window around it instead. The ruleset chooses the window and documents it; an
        unknown name is a UsageError naming the closest. Pure, like every view."""
        return None

    def demo_script(self) -> dict:
        """What `pbem demo GAME` plays: data/demo.toml (see rules/freeform/data/demo.toml)."""
        return self.data("demo.toml")


def describe(ruleset: Ruleset) -> dict:
    """What `pbem rules GAME` shows: scenarios, optional rules and order kinds, as data."""
    return {
        "id": ruleset.id, "version": ruleset.version, "title": ruleset.title, "scenarios": dict(ruleset.scenarios()),
        "options": {name: {"default": o.default, "type": o.type, "rule": o.rule, "help": o.help,
                           **({"choices": list(o.choices)} if o.choices else {}),
                           **({"requires": list(o.requires)} if o.requires else {}),
                           **({"excludes": list(o.excludes)} if o.excludes else {})}
                    for name, o in ruleset.options.items()},
        "orders": {kind: {"rule": k.rule, "help": k.help, "example": k.example,
                          "fields": {f.name: {"type": f.type, "required": f.required, "help": f.help}
                                     for f in k.fields}}
                   for kind, k in ruleset.order_kinds.items()},
    }


# ------------------------------------------------------------------------------------- the registry

ENTRY_POINT_GROUP = "pbem.rulesets"
_loaded: dict[str, Ruleset] = {}


def available() -> dict[str, Callable[[], Ruleset]]:
    """Installed rulesets by id, from the entry point group pbem.rulesets."""
    from importlib.metadata import entry_points

    found: dict[str, Callable[[], Ruleset]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found[point.name.replace("-", "_")] = point.load
    if "freeform" not in found:  # running from a source tree that was never installed
        found["freeform"] = lambda: __import__("pbem.rules.freeform", fromlist=["ruleset"]).ruleset
    for ruleset_id, ruleset in _loaded.items():
        found.setdefault(ruleset_id, _already(ruleset))
    return found


def _already(ruleset: Ruleset) -> Callable[[], Ruleset]:
    return lambda: ruleset


def register(ruleset: Ruleset) -> Ruleset:
    """Make `ruleset` loadable by its id in this process (a ruleset not installed as a package,
    such as one a test or a benchmark defines). Returns it."""
    if not NAME_OK(ruleset.id):
        raise UsageError(f"a ruleset id is a lowercase name, not {ruleset.id!r}", field="id")
    _loaded[ruleset.id] = ruleset
    return ruleset


def unregister(ruleset_id: str) -> None:
    _loaded.pop(ruleset_id, None)


def load(ruleset_id: str, version: str | None = None) -> Ruleset:
    """The ruleset a charter names; refuses another version rather than re-adjudicate (§4)."""
    key = ruleset_id.replace("-", "_")
    if key not in _loaded and NAME_OK(key):
        with contextlib.suppress(ModuleNotFoundError):  # shipped rulesets load without scanning entry points
            found = getattr(importlib.import_module(f"pbem.rules.{key}"), "ruleset", None)
            if isinstance(found, Ruleset):  # pbem.rules.common is a package of helpers, not a game
                _loaded[key] = found
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
