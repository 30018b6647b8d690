"""freeform: any game, with verified dice and agreed bookkeeping.

Players act in roster order (referees and observers never). A player's step lasts until an order
ends it: `pass`, `roll` (the last order of its entry: the dice are drawn at the roll point that
entry opens) or `end`. `note` and `set` keep the step. The public state is bounded (turn, whose
step, counters, the last roll, the result); the history lives in the log.

Rule ids cited in errors and draws: freeform.order, freeform.roll, freeform.note, freeform.set,
freeform.end, freeform.table (see the README's freeform section). Orders are declared in
data/ruleset.toml.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NotRequired, TypedDict

from pbem.errors import IllegalOrder, UsageError
from pbem.ruleset import Chance, Decision, OrderKind, Over, Ruleset, Setup, View

from ..common import notation, tables
from . import deck, sealed

COUNTER_RANGE = (-(2**63), 2**63 - 1)  # the integers a message and a dump may hold (protocol §3.3)


class PendingRoll(TypedDict):
    """A roll order waiting for the dice of its entry's roll point."""

    player: str
    dice: str
    purpose: str
    table: NotRequired[str]


class RollRecord(TypedDict):
    """A resolved roll, as the public state shows it."""

    player: str
    dice: str
    purpose: str
    faces: list[int]
    total: int
    turn: int
    table: NotRequired[str]
    outcome: NotRequired[str]


@dataclass
class FreeformState:
    setup: Setup
    turn: int = 1
    next: str = ""
    counters: dict[str, int] = field(default_factory=dict)
    last_roll: RollRecord | None = None
    pending_roll: PendingRoll | None = None
    result: str | None = None
    resigned: list[str] = field(default_factory=list)
    sealed: dict | None = None  # the sealed round open now (sealed.py)
    last_sealed: dict | None = None  # the last sealed round's choices
    cards: dict[str, dict] = field(default_factory=dict)  # deck.py: each player's public hand and pile counts
    played: list[dict] = field(default_factory=list)  # the cards shown, in order
    dealing: int | None = None  # a deal waiting for this entry's roll point

    @property
    def active(self) -> list[str]:
        return [p for p in self.setup.players if p not in self.resigned]


class Freeform(Ruleset[FreeformState]):
    id = "freeform"
    package = __package__

    def check_setup(self, setup: Setup) -> None:
        """Also refuse a charter whose tables cannot be looked up."""
        super().check_setup(setup)
        for name, table in setup.tables.items():
            if name == "deck":
                deck.cards_of(table)
                continue
            try:
                tables.ranges(table)
            except tables.TableError as exc:
                raise UsageError(f"table {name!r}: {exc}", rule="freeform.table", field=f"tables.{name}") from None

    def new_state(self, setup: Setup) -> FreeformState:
        self.check_setup(setup)
        return FreeformState(setup=setup, next=setup.players[0])

    def pending(self, state: FreeformState):
        if state.result is not None:
            return Over(state.result)
        if state.pending_roll is not None or state.dealing is not None:
            return Chance()
        if state.sealed is not None:
            return Decision(tuple(state.sealed["players"]), f"a sealed choice: {state.sealed['purpose']} "
                            "(pbem seal 'choose text=…')")
        return Decision((state.next,), f"{state.next}'s step in turn {state.turn}: roll, note, set, pass or end")

    def apply(self, state: FreeformState, player: str, order: Mapping) -> FreeformState:
        kind = self.check_order(order).kind
        if player != state.next:
            raise IllegalOrder(f"it is {state.next}'s step, not {player}'s", rule="freeform.order")
        getattr(self, f"_order_{kind}")(state, player, order)
        return state

    def _order_roll(self, state: FreeformState, player: str, order: Mapping) -> None:
        try:
            notation.parse(order["dice"])
        except notation.NotationError as exc:
            raise IllegalOrder(str(exc), rule="freeform.roll", field="dice") from None
        table = order.get("table")
        rollable = sorted(name for name in state.setup.tables if name != "deck")  # the deck holds cards
        if table is not None and table not in rollable:
            known = ", ".join(rollable) or "none"
            raise IllegalOrder(
                f"the charter has no table {table!r} (it has: {known})", rule="freeform.table", field="table"
            )
        state.pending_roll = {"player": player, "dice": order["dice"], "purpose": order["purpose"]}
        if table is not None:
            state.pending_roll["table"] = table

    def _order_note(self, state: FreeformState, player: str, order: Mapping) -> None:
        if not order["text"].strip():
            raise IllegalOrder("a note needs text", rule="freeform.note", field="text")

    def _order_set(self, state: FreeformState, player: str, order: Mapping) -> None:
        counter = order["counter"]
        if not counter:
            raise IllegalOrder("must name a counter", rule="freeform.set", field="counter")
        if ("value" in order) == ("add" in order):
            raise IllegalOrder("give either 'value' or 'add'", rule="freeform.set", field="value")
        amount = order["value"] if "value" in order else order["add"]
        result = amount if "value" in order else state.counters.get(counter, 0) + amount
        if not COUNTER_RANGE[0] <= result <= COUNTER_RANGE[1]:
            raise IllegalOrder("a counter stays within the signed 64-bit range", rule="freeform.set",
                               field="value" if "value" in order else "add")
        state.counters[counter] = result

    def _order_pass(self, state: FreeformState, player: str, order: Mapping) -> None:
        self._advance(state)

    def _order_sealed(self, state: FreeformState, player: str, order: Mapping) -> None:
        sealed.open_round(state, player, order)

    def _order_choose(self, state: FreeformState, player: str, order: Mapping) -> None:
        raise IllegalOrder("choose is made in a sealed round: pbem seal 'choose text=…'", rule=sealed.RULE,
                           field="kind")

    def apply_together(self, state: FreeformState, orders: Mapping[str, list[Mapping] | None]) -> FreeformState:
        return sealed.apply_together(state, orders)

    def check_together(self, state: FreeformState, player: str, orders: Sequence[Mapping]) -> None:
        sealed.check_choice(state, player, orders)

    def _order_deal(self, state: FreeformState, player: str, order: Mapping) -> None:
        deck.deal(state, order)

    def _order_draw(self, state: FreeformState, player: str, order: Mapping) -> None:
        deck.draw(state, player, order)

    def _order_play(self, state: FreeformState, player: str, order: Mapping) -> None:
        deck.play(state, player, order)

    def _order_discard(self, state: FreeformState, player: str, order: Mapping) -> None:
        deck.discard(state, player, order)

    def _order_keep(self, state: FreeformState, player: str, order: Mapping) -> None:
        deck.keep(state, player, order)

    def private_view(self, state: FreeformState, player: str) -> dict:
        return {"hand": [], "pile": []} if "deck" in state.setup.tables else {}

    def apply_private(self, view: dict, player: str, order: Mapping) -> None:
        deck.apply_private(view, order)

    def check_private(self, view: dict, player: str, order: Mapping, state: FreeformState) -> None:
        deck.check_private(view, order)

    def _order_end(self, state: FreeformState, player: str, order: Mapping) -> None:
        if not order["result"].strip():
            raise IllegalOrder("give the result as text", rule="freeform.end", field="result")
        state.result = order["result"]

    def _advance(self, state: FreeformState) -> None:
        players = state.setup.players
        position = players.index(state.next)
        for step in range(1, len(players) + 1):
            candidate = players[(position + step) % len(players)]
            if (position + step) % len(players) == 0:
                state.turn += 1
            if candidate not in state.resigned:
                state.next = candidate
                return

    def resolve(self, state: FreeformState, dice, private) -> FreeformState:
        if state.dealing is not None:  # the dealer's step goes on once the cards are dealt
            deck.resolve_deal(state, private)
            return state
        roll = state.pending_roll
        if roll is None:  # pending() asks for dice only while a roll waits, so a caller skipped it
            raise UsageError("no roll is pending: dice are drawn only after a roll order", rule="freeform.roll")
        terms = notation.parse(roll["dice"])
        faces, total = notation.roll(terms, dice, roll["purpose"], "freeform.roll")
        record: RollRecord = {"player": roll["player"], "dice": roll["dice"], "purpose": roll["purpose"],
                              "faces": faces, "total": total, "turn": state.turn}
        if "table" in roll:
            record["table"] = roll["table"]
            found = tables.look_up(state.setup.tables[roll["table"]], total)
            record["outcome"] = found if found is not None else "(no row for this total)"
        state.last_roll = record
        state.pending_roll = None
        self._advance(state)
        return state

    def resign(self, state: FreeformState, player: str) -> FreeformState:
        if player in state.resigned or player not in state.setup.players:
            return state
        state.resigned.append(player)
        remaining = state.active
        if len(remaining) == 1:
            state.result = f"{remaining[0]} wins: {player} resigned"
        elif not remaining:
            state.result = "abandoned: every player resigned"
        elif state.next == player and state.pending_roll is None:
            self._advance(state)
        return state

    def legal(self, state: FreeformState, player: str) -> list[OrderKind]:
        """Every order while it is the player's step; a roll's help names the charter's tables."""
        if state.sealed is not None:
            return [self.order_kinds["choose"]] if player in state.sealed["players"] else []
        kinds = [k for k in super().legal(state, player) if k.kind != "choose"]
        names = ", ".join(sorted(state.setup.tables)) or "none in this charter"
        return [k._replace(help=f"{k.help} (tables: {names})") if k.kind == "roll" else k for k in kinds]

    def dump(self, state: FreeformState) -> dict:
        return {
            "turn": state.turn,
            "next": state.next,
            "counters": dict(sorted(state.counters.items())),
            "last_roll": state.last_roll,
            "pending_roll": state.pending_roll,
            "result": state.result,
            "resigned": list(state.resigned),
            # only once used, so games without sealed rounds keep their hashes
            **({"sealed": state.sealed} if state.sealed is not None else {}),
            **({"last_sealed": state.last_sealed} if state.last_sealed is not None else {}),
            **({"cards": state.cards, "played": state.played} if "deck" in state.setup.tables else {}),
            **({"dealing": state.dealing} if state.dealing is not None else {}),
        }

    def load(self, data: dict, setup: Setup) -> FreeformState:
        return FreeformState(
            setup=setup, turn=data["turn"], next=data["next"], counters=dict(data["counters"]),
            last_roll=data["last_roll"], pending_roll=data["pending_roll"], result=data["result"],
            resigned=list(data["resigned"]), sealed=data.get("sealed"), last_sealed=data.get("last_sealed"),
            cards={p: dict(c) for p, c in data.get("cards", {}).items()}, played=list(data.get("played", [])),
            dealing=data.get("dealing"),
        )

    def copy(self, state: FreeformState, setup: Setup) -> FreeformState:
        """Counters and the resigned list are the only containers play mutates; roll records are
        replaced whole, never changed in place."""
        return replace(state, counters=dict(state.counters), resigned=list(state.resigned),
                       cards=dict(state.cards), played=list(state.played))

    def views(self, state: FreeformState, private: Mapping[str, dict] | None = None) -> dict:
        from . import views

        return {
            "state": View("turn, whose step, counters, the last roll, the result",
                          lambda: self.dump(state), views.state_view),
            "tables": View("the charter's result tables", lambda: views.tables_data(state), views.tables_view),
            **({"hand": View("your cards and pile (on the machine with your key), everyone's counts, the cards "
                             "played", lambda: deck.hand_data(state, private), views.hand_view)}
               if "deck" in state.setup.tables else {}),
        }


ruleset = Freeform()
