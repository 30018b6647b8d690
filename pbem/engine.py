"""Replay: a fold of joins and chain entries over a ruleset (docs/protocol.md §4-§6).

The engine is pure: it holds the replay's working state and checks each message against it. It
reads nothing from disk; callers hand it messages and a way to look up the side messages an entry
uses. The same code adjudicates a new move, replays a cached game and verifies a disputed log.
A join or an entry is taken all or nothing: refused, it leaves the engine as it was.
"""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from . import chain
from . import ruleset as rules
from .charter import Charter
from .dice import Dice, Draw, Stream
from .errors import BadSignature, ChainBroken, Held, IllegalOrder, NotOfThisGame, UnreadableInput, UsageError
from .message import Message

if TYPE_CHECKING:
    from .hidden import HiddenChain

SIDE_RANK = {"reveal": 0, "seal": 1, "unseal": 2, "resign": 3}  # §5: order within one signer


def canonical_json(data) -> bytes:
    """§8: keys sorted, no insignificant white space, UTF-8, integers only."""
    in_order = _check_plain(data)
    # Keys already in order come out the same unsorted; sorting a large table again is the dearest part.
    return json.dumps(data, sort_keys=not in_order, separators=(",", ":"), ensure_ascii=False).encode()


_CONTAINERS = (dict, list, tuple)
MAX_DEPTH = 10_000  # levels of nesting: far beyond any dump, and short of looping on a self-reference


def _check_plain(data) -> bool:
    """Refuse (TypeError) a float anywhere in `data`; say whether every table's keys are in order.
    Level by level, with the type tests done in bulk: a dump is hashed with every entry, and a
    large one holds tens of thousands of values."""
    in_order = True
    level: list = [[data]]
    for _ in range(MAX_DEPTH):
        if not level:
            return in_order
        values = list(_values(level))
        kinds = set(map(type, values))
        if any(issubclass(kind, float) for kind in kinds):
            raise TypeError("a state dump holds no floats (PROTOCOL §8)")
        if not any(issubclass(kind, _CONTAINERS) for kind in kinds):
            return in_order
        level = [value for value in values if isinstance(value, _CONTAINERS)]
        in_order = in_order and all(_keys_in_order(table) for table in level if isinstance(table, dict))
    json.dumps(data, check_circular=True)  # deeper than any dump: a table that holds itself, named here
    raise ValueError(f"a state dump nests deeper than {MAX_DEPTH} levels")


def _keys_in_order(table: dict) -> bool:
    keys = list(table)
    try:
        return keys == sorted(keys)
    except TypeError:  # keys that do not compare: json.dumps refuses them when it sorts
        return False


def _values(containers: list):
    """The values of dicts and the items of lists and tuples, one after the other."""
    return itertools.chain.from_iterable(c.values() if isinstance(c, dict) else c for c in containers)


def state_hash(dump: dict) -> str:
    return chain.sha256(canonical_json(dump)).hex()


def _readable_orders(unseal: Message) -> list | None:
    """An unseal's orders, or None when its text cannot be read (the ruleset voids them, §5)."""
    from .orders import from_sealed_text

    try:
        return from_sealed_text(unseal.fields["orders"])
    except UnreadableInput:
        return None


def _join_record(join: Message) -> dict:
    return {"id": join.id, "anchor": join.fields["anchor"], "hcommit": join.fields["hcommit"]}


class RollPoint(NamedTuple):
    """A roll point bound to entry (seq, id) whose witnesses have not all revealed (§5)."""

    seq: int
    entry: str
    author: str
    witnesses: list[str]
    opened: str  # the entry's signed time, for deadlines


@dataclass
class RollRecord:
    """Everything needed to explain one roll point (verify --roll)."""

    seq: int
    entry: str
    policy: str
    witnesses: list[str]
    values: list[str]
    seed: str
    draws: list[Draw] = field(default_factory=list)
    private: list[dict] = field(default_factory=list)  # who drew privately, for what (never what, §7)


class Engine:
    def __init__(self, charter: Charter, ruleset: rules.Ruleset) -> None:
        self.charter = charter
        self.ruleset = ruleset
        self.setup = rules.Setup.of(charter)
        self.joins: dict[str, dict] = {}  # player -> {id, anchor, hcommit}
        self.genesis: str | None = None
        self.state = None
        self.head_seq = 0
        self.head_id: str | None = None
        self.head_time: str | None = None
        self.head_player: str | None = None
        self.roll: RollPoint | None = None
        self.last_reveal: dict[str, Message] = {}  # witness -> his last reveal a roll point consumed (§6)
        self.resigned: dict[str, tuple[str, int]] = {}  # player -> his resign's id, seq of the entry using it
        self.head_state = b""  # canonical JSON of the state at the head, before its roll point (§5, §8)
        self.rolls: list[RollRecord] = []  # roll records, kept only when keep_rolls is set
        self.keep_rolls = False
        self.chains: dict[str, HiddenChain] = {}  # hidden chains this client holds: its own player's (§7)
        self.views: dict[str, dict] = {}  # their private views, beside the public state
        self.audited: dict[str, int] = {}  # player -> seq up to which his orders are checked against his view

    # ------------------------------------------------------------------ bookkeeping

    @property
    def started(self) -> bool:
        return self.state is not None

    def missing_joins(self) -> list[str]:
        return [m.id for m in self.charter.participants if m.id not in self.joins]

    def pending(self):
        return self.ruleset.pending(self.state)

    def to_cache(self) -> dict:
        """What state.toml keeps: the ids of everything the replay stands for, and the state at the head
        before its roll point. A load checks each against the log; anchors, genesis and the open roll
        point are derived again, never read from the cache."""
        return {
            "charter": self.charter.digest,
            "head_seq": self.head_seq,
            "head_id": self.head_id or "",
            "joins": {player: join["id"] for player, join in self.joins.items()},
            "last_reveal": {player: [m.fields["seq"], m.id] for player, m in self.last_reveal.items()},
            "resigned": {player: list(used) for player, used in self.resigned.items()},
            "state": self.head_state.decode(),
        }

    @classmethod
    def from_cache(cls, charter: Charter, ruleset, data: dict, head: Message, joins: list[Message],
                   last_reveals: list[Message]) -> Engine:
        """The replay at `head`, from a cache whose named messages the caller has read and matched by id."""
        engine = cls(charter, ruleset)
        for join in joins:
            engine.joins[join.player] = _join_record(join)
        engine.genesis = chain.genesis([j["id"] for j in engine.joins.values()]).hex()
        engine.last_reveal = {m.player: m for m in last_reveals}
        engine.resigned = {player: (resign_id, seq) for player, (resign_id, seq) in data["resigned"].items()}
        engine.head_state = data["state"].encode()
        if chain.sha256(engine.head_state).hex() != head.fields["state"]:
            raise ChainBroken("the cached state is not the head's", kind="cache", field="state")
        engine.state = ruleset.load(json.loads(engine.head_state), engine.setup)
        engine._advance_head(head)
        return engine

    def clone(self) -> Engine:
        """An independent copy for a caller to try messages on or resolve a roll point in."""
        twin = self._trial()
        twin.joins = {player: dict(join) for player, join in self.joins.items()}
        twin.roll = self.roll._replace(witnesses=list(self.roll.witnesses)) if self.roll else None
        twin.rolls = list(self.rolls)
        return twin

    def _trial(self) -> Engine:
        """A copy for one entry to work on: its own state (the ruleset's cheap copy) and the maps an
        entry changes. It shares what an entry only replaces (the roll point) or never touches."""
        twin = copy.copy(self)
        twin.last_reveal = dict(self.last_reveal)
        twin.resigned = dict(self.resigned)
        twin.views = json.loads(json.dumps(self.views)) if self.views else {}
        if self.started:
            twin.state = self.ruleset.copy(self.state, self.setup)
        return twin

    def state_hash(self) -> str:
        return state_hash(self.ruleset.dump(self.state))

    # ------------------------------------------------------------------ checks shared by kinds

    def _signer(self, message: Message, verify: bool = True):
        member = self.charter.member(message.player)
        if member is None:
            raise BadSignature("signer is not in the charter's roster", field="player", **message.context())
        if message.game != self.charter.game:
            raise UsageError(
                f"belongs to game {message.game!r}, not {self.charter.game!r}", field="game", **message.context()
            )
        if verify:
            message.verify(member.pubkey.raw)
        return member

    # ------------------------------------------------------------------ joins (§4)

    def accept_join(self, message: Message) -> None:
        member = self._signer(message)
        context = message.context()
        if not member.participant:
            raise IllegalOrder("observers do not join with a signed join", rule="PROTOCOL §4", **context)
        if message.fields["charter"] != self.charter.digest:
            raise NotOfThisGame(
                f"join is for charter {message.fields['charter'][:12]}, this game's is {self.charter.digest[:12]}",
                field="charter", **context,
            )
        if message.fields["chain_length"] != chain.CHAIN_LENGTH:
            raise UnreadableInput(f"chain_length must be {chain.CHAIN_LENGTH}", field="chain_length", **context)
        known = self.joins.get(message.player)
        if known and known["id"] != message.id:
            raise ChainBroken(
                f"equivocation: two joins by {message.player} ({known['id'][:12]} and {message.id[:12]})",
                proof=(known["id"], message.id), **context,
            )
        joins = {**self.joins, message.player: _join_record(message)}
        if self.started or any(m.id not in joins for m in self.charter.participants):
            self.joins = joins
            return
        state = self.ruleset.new_state(self.setup)  # may refuse the charter: then nothing has changed
        self.joins, self.state = joins, state
        self.views = {player: self.ruleset.private_view(state, player) for player in self.chains}
        self.genesis = chain.genesis([j["id"] for j in joins.values()]).hex()
        self.head_id = self.genesis

    # ------------------------------------------------------------------ side messages (§5, §6)

    def check_reveal(self, message: Message) -> None:
        """A reveal for the open roll point: signer a witness, value on his chain (§6)."""
        self._signer(message)
        context = message.context()
        seq = message.fields["seq"]
        if not 1 <= seq < chain.CHAIN_LENGTH:
            raise UnreadableInput(f"a reveal's seq is 1 to {chain.CHAIN_LENGTH - 1} (PROTOCOL §8)", field="seq",
                                  **context)
        if not self.reveal_is_genuine(message):
            raise BadSignature(f"the revealed value is not on {message.player}'s reveal chain for seq {seq}",
                               field="value", **context)
        if seq > self.head_seq:
            raise Held(f"reveal for seq {seq}, but this log ends at seq {self.head_seq}", **context)
        roll = self.roll
        if roll is None or roll.seq != seq:
            raise IllegalOrder(f"no roll point of seq {seq} is waiting for reveals", rule="PROTOCOL §5", **context)
        if message.fields["for"] != roll.entry:
            # It can never apply here: this log's entry at that seq is fixed. Alone it proves nothing;
            # the witness's reveal for this log's entry would (§4).
            raise NotOfThisGame(f"reveal names entry {message.fields['for'][:12]} at seq {seq}, but this log holds "
                                f"{roll.entry[:12]} there: not of this game, or its author forked", field="for",
                                **context)
        if message.player not in roll.witnesses:
            raise IllegalOrder(
                f"{message.player} is not a witness of seq {seq} (witnesses: {', '.join(roll.witnesses)})",
                rule="PROTOCOL §5", **context,
            )

    def reveal_is_genuine(self, message: Message) -> bool:
        """Is the revealed value on its witness's chain (§6)? Checkable for any seq, before its entry
        arrives, from his anchor or the last reveal a roll point consumed."""
        join = self.joins.get(message.player)
        if join is None:
            return False
        last = self.last_reveal.get(message.player)
        known_seq, known = (last.fields["seq"], last.fields["value"]) if last else (0, join["anchor"])
        return chain.on_chain(bytes.fromhex(message.fields["value"]), message.fields["seq"], bytes.fromhex(known),
                              known_seq)

    def check_resign(self, message: Message, at_is_known: bool) -> None:
        member = self._signer(message)
        if not member.participant:
            raise IllegalOrder("only participants can resign", rule="PROTOCOL §5", **message.context())
        if not at_is_known:
            raise Held(f"resign names head {message.fields['at'][:12]}, not in this log yet", **message.context())
        if message.player in self.resigned:
            raise IllegalOrder(f"{message.player} has already resigned", rule="PROTOCOL §5", **message.context())

    # ------------------------------------------------------------------ chain entries (§4, §5)

    def witnesses_for(self, author: str) -> list[str]:
        policy = self.charter.dice
        if policy == "open":
            return []
        others = [m for m in self.charter.participants if m.id != author and m.id not in self.resigned]
        if not others:  # everyone else resigned: they still witness, or the mover could bias his dice
            others = [m for m in self.charter.participants if m.id != author]
        sides = set(self.charter.seat(author).sides)
        if policy == "opponents":
            chosen = [m for m in others if not sides & set(m.sides)]
        elif policy == "referee":
            chosen = [m for m in others if m.role == "referee"]
        else:
            chosen = others
        return [m.id for m in (chosen or others)]

    def first_active(self, roles=("player",)) -> str:
        for member in self.charter.players:
            if member.role in roles and member.id not in self.resigned:
                return member.id
        return self.charter.first_player.id

    def _resolve(self, seq: int, entry: str, witnesses: list[str], values: list[str]) -> RollRecord:
        if self.charter.dice == "open":
            seed = chain.open_seed(bytes.fromhex(self.charter.digest), bytes.fromhex(entry))
        else:
            seed = chain.roll_seed(
                self.charter.game, seq, bytes.fromhex(entry), [bytes.fromhex(v) for v in values]
            )
        from .hidden import PrivateDraws  # here: a command that resolves no roll never needs it

        dice = Dice(Stream(seed))
        private = PrivateDraws(seq, seed, self.chains, self.views)
        while isinstance(self.ruleset.pending(self.state), rules.Chance):
            self.state = self.ruleset.resolve(self.state, dice, private)
        return RollRecord(seq, entry, self.charter.dice, list(witnesses), list(values), seed.hex(), dice.draws,
                          [request.to_dict() for request in private.requests])

    def _keep(self, records: list[RollRecord]) -> None:
        if self.keep_rolls:
            self.rolls.extend(records)

    def resolve_with(self, reveals: dict[str, Message]) -> RollRecord | None:
        """Resolve the open roll point if every witness's reveal is at hand (for views and moves)."""
        record = self._resolve_open(reveals)
        self._keep([record] if record is not None else [])
        return record

    def _resolve_open(self, reveals: dict[str, Message]) -> RollRecord | None:
        roll = self.roll
        if roll is None or any(w not in reveals for w in roll.witnesses):
            return None
        record = self._resolve(roll.seq, roll.entry, roll.witnesses,
                               [reveals[w].fields["value"] for w in roll.witnesses])
        for witness in roll.witnesses:
            self.last_reveal[witness] = reveals[witness]
        self.roll = None
        return record

    def apply_entry(self, message: Message, fetch, *, check_state: bool = True, check_signature: bool = True,
                    check_private: bool = False) -> tuple[str, list[RollRecord]]:
        """Check and apply one chain entry (§5.7). `fetch(id)` returns a stored side message or None.

        All or nothing: the steps run on a trial copy, committed only once every check has passed, so
        an entry refused at any step leaves this engine exactly as it was. Returns the state hash this
        engine computed and the roll points resolved on the way.
        """
        self._check_link(message, check_signature)  # §4: the entry extends this log
        used = self._gather_uses(message, fetch)  # 1: its uses are here, in order, each usable
        trial = self._trial()  # everything below changes only the trial
        consumed_roll = trial.roll is not None
        rolls = trial._consume_reveals(message, [u for u in used if u.type == "reveal"])  # 2: the open roll
        before = trial.pending()
        trial._apply_sealed(message, [u for u in used if u.type in ("seal", "unseal")], before)  # 2b
        resigns = trial._apply_resigns(message, [u for u in used if u.type == "resign"])  # 3
        trial._check_turn(message, before, resigns, consumed_roll, bool(used))  # 4-5: who signs, what
        trial._apply_orders(message, check_private)  # 6 (check_private: the author's own hidden view, §7)
        computed = trial._hash_state(message, check_state)  # 7
        rolls.extend(trial._advance_head(message))  # 8: the new head and its roll point
        vars(self).update(vars(trial))  # commit every field the steps changed, at once
        self._keep(rolls)
        return computed, rolls

    # ------------------------------------------------------------------ simultaneous decisions (§5)

    def sealed_members(self, step=None) -> list[str]:
        """The members of the simultaneous decision pending now (or at `step`), in roster order."""
        step = self.pending() if step is None else step
        if not isinstance(step, rules.Decision) or len(step.players) < 2:
            return []
        return sorted(step.players, key=self.charter.position)

    def check_seal_binding(self, side: Message) -> None:
        """A seal or unseal names the entry the open decision is bound to: the head (genesis at seq 0)."""
        if side.fields["for"] != self.head_id or side.fields["seq"] != self.head_seq:
            raise ChainBroken(f"{side.player}'s {side.type} is for seq {side.fields['seq']} "
                              f"({side.fields['for'][:12]}), but the open decision is bound to seq {self.head_seq} "
                              f"({(self.head_id or '')[:12]})", field="for", **side.context())

    def check_signed(self, side: Message) -> None:
        """A side message is signed by its player's roster key (exit 3)."""
        self._signer(side)

    def check_disclosure(self, disclose: Message) -> None:
        """§7: the disclosed value hashes forward, `upto` times, to the hcommit of its player's join."""
        self._signer(disclose)
        join = self.joins.get(disclose.player)
        upto = disclose.fields["upto"]
        if not 1 <= upto < chain.CHAIN_LENGTH:
            raise UnreadableInput(f"a disclosure is up to a seq from 1 to {chain.CHAIN_LENGTH - 1}", field="upto",
                                  **disclose.context())
        opened = chain.hash_forward(bytes.fromhex(disclose.fields["hidden"]), upto).hex()
        if join is None or opened != join["hcommit"]:
            raise BadSignature(f"{disclose.player}'s disclosed value does not lead to the hcommit of his join",
                               field="hidden", **disclose.context())

    def check_unseal(self, seal: Message, unseal: Message) -> None:
        """The unseal opens its seal: same slot, and the digest of its key and text is the seal's (§5)."""
        self._signer(unseal)
        same_slot = (seal.player, seal.fields["for"], seal.fields["seq"]) == \
            (unseal.player, unseal.fields["for"], unseal.fields["seq"])
        digest = chain.sealed_digest(self.charter.game, unseal.player, bytes.fromhex(unseal.fields["for"]),
                                     bytes.fromhex(unseal.fields["key"]), unseal.fields["orders"])
        if not same_slot or digest.hex() != seal.fields["sealed"]:
            raise BadSignature(f"{unseal.player}'s unseal does not open his seal {seal.id[:12]}", field="key",
                               **unseal.context())

    def _apply_sealed(self, message: Message, sides: list[Message], before) -> None:
        """§5: an entry after a simultaneous decision uses every member's seal and unseal; their
        orders are applied together, in roster order."""
        members = self.sealed_members(before)
        context = dict(message.context(), field="uses")
        if not members:
            if sides:
                raise UnreadableInput("uses a seal or unseal, but no simultaneous decision is open", **context)
            return
        if not sides:
            raise IllegalOrder(f"a simultaneous decision is made with 'pbem seal', then collected by "
                               f"{self.collector(before)}", rule="PROTOCOL §5", **message.context())
        by_slot = {(side.type, side.player): side for side in sides}
        missing = [p for p in members if ("seal", p) not in by_slot or ("unseal", p) not in by_slot]
        strangers = sorted({side.player for side in sides} - set(members))
        if missing or strangers:
            raise UnreadableInput(f"uses must hold the seal and unseal of exactly {', '.join(members)}: "
                                  f"{'missing ' + ', '.join(missing) if missing else 'also ' + ', '.join(strangers)}"
                                  " (PROTOCOL §5)", **context)
        unsealed = {}
        for player in members:
            seal = by_slot[("seal", player)]
            self._signer(seal)
            self.check_seal_binding(seal)
            self.check_unseal(seal, by_slot[("unseal", player)])
            unsealed[player] = _readable_orders(by_slot[("unseal", player)])
        self.state = self.ruleset.apply_together(self.state, unsealed)

    def collector(self, step=None, leaving: frozenset[str] = frozenset()) -> str:
        """§5: the first member in roster order signs the entry that uses the seals and unseals; one
        who has resigned (or whose resign that entry uses: `leaving`) is passed over."""
        members = self.sealed_members(step)
        return next((p for p in members if p not in self.resigned and p not in leaving), members[0])

    def _apply_resigns(self, message: Message, resigns: list[Message]) -> list[Message]:
        """§5.8: each resign the entry uses takes effect, in uses order."""
        for resign in resigns:
            self.check_resign(resign, True)
            self.resigned[resign.player] = (resign.id, message.fields["seq"])
            self.state = self.ruleset.resign(self.state, resign.player)
        return resigns

    def _check_turn(self, message: Message, before, resigns: list[Message], consumed_roll: bool,
                    uses_any: bool) -> None:
        """§5.7 steps 4-5: the right author, orders only where allowed, and something to apply."""
        context = message.context()
        expected, only_uses = self._next_signers(message, before, resigns, consumed_roll)
        if message.player not in expected:
            raise IllegalOrder(f"out of turn: the next entry is {' or '.join(expected)}'s",
                               rule="PROTOCOL §5", field="player", **context)
        if only_uses and message.orders:
            raise IllegalOrder("this entry may carry only uses", rule="PROTOCOL §5", field="orders", **context)
        binder = self.head_seq == 0 and isinstance(self.pending(), rules.Chance)
        if not message.orders and not uses_any and "private" not in message.fields and not binder:
            raise IllegalOrder("the entry has nothing to apply", rule="PROTOCOL §5", **context)

    def _hash_state(self, message: Message, check_state: bool) -> str:
        """§5.7 step 7: the state is dumped and hashed once per entry, and must match the entry's."""
        self.head_state = canonical_json(self.ruleset.dump(self.state))
        computed = chain.sha256(self.head_state).hex()
        if check_state and computed != message.fields["state"]:
            raise ChainBroken(
                f"state hash mismatch: the entry says {message.fields['state'][:12]}, "
                f"this replay computes {computed[:12]}",
                field="state", **message.context(),
            )
        return computed

    def _advance_head(self, message: Message) -> list[RollRecord]:
        """The entry is the new head: its roll point opens, or with open dice resolves at once (§5)."""
        self.head_seq = message.fields["seq"]
        self.head_id = message.id
        self.head_time = message.fields["time"].strftime("%Y-%m-%dT%H:%M:%SZ")
        self.head_player = message.player
        if not isinstance(self.pending(), rules.Chance):
            return []
        witnesses = self.witnesses_for(message.player)
        if witnesses:
            self.roll = RollPoint(self.head_seq, message.id, message.player, witnesses, self.head_time)
            return []
        return [self._resolve(self.head_seq, message.id, [], [])]

    def _check_link(self, message: Message, check_signature: bool) -> None:
        """§4: the game has started, the signer is a participant, and the entry extends this log."""
        context = message.context()
        seq = message.fields["seq"]
        if seq >= chain.CHAIN_LENGTH:  # never valid, so refused even before the game starts (§4)
            raise UnreadableInput(f"a game holds at most {chain.CHAIN_LENGTH - 1} entries (PROTOCOL §8)",
                                  field="seq", **context)
        if not self.started:
            raise Held(f"the game has not started: waiting for joins from {', '.join(self.missing_joins())}",
                       **context)
        member = self._signer(message, check_signature)
        if seq > self.head_seq + 1:
            raise Held(f"this log ends at seq {self.head_seq}; seq {self.head_seq + 1} is missing", **context)
        if seq <= self.head_seq:
            raise ChainBroken(f"seq {seq} is already taken in this log", field="seq", **context)
        if message.fields["prev"] != self.head_id:
            raise NotOfThisGame(
                f"not of this game: prev is {message.fields['prev'][:12]}, but this log's entry at seq "
                f"{seq - 1} is {(self.head_id or '')[:12]}", field="prev", **context,
            )
        if not member.participant:
            raise IllegalOrder("observers sign no entries", rule="PROTOCOL §4", field="player", **context)

    def _consume_reveals(self, message: Message, reveals: list[Message]) -> list[RollRecord]:
        """§5: an entry after a roll point uses every witness's reveal, and the roll resolves."""
        if self.roll is None:
            return []
        by_witness = {reveal.player: reveal for reveal in reveals}
        missing = [w for w in self.roll.witnesses if w not in by_witness]
        if missing:
            raise UnreadableInput(f"uses lacks the reveal of {', '.join(missing)} for seq {self.roll.seq} "
                                  "(PROTOCOL §5)", field="uses", **message.context())
        for reveal in reveals:
            self.check_reveal(reveal)
        record = self._resolve_open(by_witness)
        return [record] if record is not None else []

    def _next_signers(self, message: Message, before, resigns: list[Message], consumed_roll: bool
                      ) -> tuple[list[str], bool]:
        """§5: who may sign this entry, and whether it may carry only uses."""
        pending = self.pending()
        if self.head_seq == 0 and isinstance(pending, rules.Chance):
            return [self.first_active()], True  # game start: seq 1 binds the first roll point
        if self.sealed_members(before):  # §5: the collector, a member resigning here passed over; his own
            return [self.collector(before)], isinstance(pending, rules.Over)  # orders follow if the step is his
        if isinstance(before, rules.Decision) and any(r.player in before.players for r in resigns):
            return [self.first_active(("player", "referee"))], True
        if isinstance(pending, rules.Over):
            if not consumed_roll and not resigns:
                raise IllegalOrder(f"the game is over ({pending.result})", rule="PROTOCOL §5", **message.context())
            if resigns and isinstance(before, rules.Decision):
                return [p for p in before.players if p not in self.resigned] or [self.first_active()], True
            return [self.first_active()], True  # the closing entry fixes the result
        if isinstance(pending, rules.Decision):
            if len(pending.players) > 1:
                raise IllegalOrder("a simultaneous decision is made with 'pbem seal', then collected by "
                                   f"{self.collector()}", rule="PROTOCOL §5", **message.context())
            return list(pending.players), False
        raise IllegalOrder("dice must be drawn before anyone can decide", rule="PROTOCOL §5", **message.context())

    def _private_fields(self, message: Message) -> dict[int, dict]:
        """The private fields of the author's orders, where this client holds his hidden chain (his
        own, or one his disclosure opens): a record that does not open is a defect (§7.3)."""
        hidden = self.chains.get(message.player)
        seq = message.fields["seq"]
        if "private" not in message.fields or hidden is None or not getattr(hidden, "covers", lambda _: True)(seq):
            return {}
        from .hidden import open_record

        try:
            return open_record(hidden, seq, message.fields["salt"], message.fields["prev"], message.fields["private"])
        except ValueError as exc:
            raise ChainBroken(f"{exc}: it was not sealed with {message.player}'s hidden value", field="private",
                              **message.context()) from None

    def _apply_orders(self, message: Message, check_private: bool = False) -> None:
        """Each order in turn, each legal for its author at that moment (§5)."""
        private = self._private_fields(message)
        stray = sorted(set(private) - set(range(1, len(message.orders) + 1)))
        if stray:
            raise ChainBroken(f"the private record holds fields for order {stray[0]}, which the entry does not have",
                              field="private", **message.context())
        for index, order in enumerate(message.orders, 1):
            step = self.pending()
            if not (isinstance(step, rules.Decision) and step.players == (message.player,)):
                raise IllegalOrder(
                    f"order {index} follows a roll or another player's choice it cannot yet know",
                    rule="PROTOCOL §5", field=f"orders[{index}]", **message.context(),
                )
            view = self.views.get(message.player)
            audit = message.fields["seq"] <= self.audited.get(message.player, 0)
            hidden = private.get(index, {})
            self._check_private_record(message, index, order, hidden)
            try:
                whole = {**order, **hidden}  # the author's own view sees his private fields
                if (check_private or audit) and view is not None:
                    self.ruleset.check_private(view, message.player, whole, self.state)
                self.state = self.ruleset.apply(self.state, message.player, order)
                if view is not None:
                    self.ruleset.apply_private(view, message.player, whole)
            except IllegalOrder as exc:
                exc.field = f"orders[{index}]" + (f".{exc.field}" if exc.field else "")
                raise exc.locate(**message.context()) from None

    def _check_private_record(self, message: Message, index: int, order: dict, hidden: dict) -> None:
        """§7.3: the record's fields for an order are private fields its kind declares, each of its
        declared type; anything else is a defect of the record, as one that does not open."""
        kind = self.ruleset.order_kinds.get(str(order.get("kind")))
        if not hidden or kind is None:
            return
        try:
            kind.check_private_fields(hidden)
        except IllegalOrder as exc:
            raise ChainBroken(f"the private record of order {index}: {exc.message}",
                              field=f"orders[{index}].private.{exc.field}", **message.context()) from None

    def _gather_uses(self, message: Message, fetch) -> list[Message]:
        """The side messages an entry consumes (§5): each here, in order, at most one per signer and
        kind, each a reveal for the open roll point or a resign no earlier entry consumed. Those at
        hand are checked before the entry is held for the others: one that can never be used refuses
        it at once."""
        context = dict(message.context(), field="uses")
        most = len(SIDE_RANK) * len(self.charter.participants)
        if len(message.uses) > most:
            raise UnreadableInput(f"uses lists {len(message.uses)} messages; an entry uses at most one reveal, seal, "
                                  f"unseal and resign per participant ({most})", **context)
        found = {used_id: fetch(used_id) for used_id in message.uses}
        used = [side for side in found.values() if side is not None]
        self._check_each_use(used, context)
        missing = [used_id for used_id, side in found.items() if side is None]
        if missing:
            raise Held(f"uses {missing[0][:12]}, which has not arrived", **context)
        if [u.id for u in used] != [u.id for u in sorted(used, key=self._use_order)]:
            raise UnreadableInput("uses must be in roster order, then reveal, seal, unseal, resign", **context)
        return used

    def _check_each_use(self, used: list[Message], context: dict) -> None:
        slots = set()
        for side in used:
            what = f"{side.player}'s {side.type} {side.id[:12]}"
            if side.type not in SIDE_RANK:
                raise UnreadableInput(f"uses {what}: no entry consumes a {side.type} message", **context)
            if (side.type, side.player) in slots:
                raise UnreadableInput(f"uses two {side.type} messages by {side.player}", **context)
            slots.add((side.type, side.player))
            if side.type == "reveal" and not self._reveals_open_roll(side):
                where = f"seq {self.roll.seq}" if self.roll else "no seq: none is open"
                raise ChainBroken(f"uses {what} for seq {side.fields['seq']}, but the roll point it may use is "
                                  f"{where}", **context)
            if side.type == "resign" and side.player in self.resigned:
                raise ChainBroken(f"uses {what}, which an earlier entry consumed", **context)
            if side.type in ("seal", "unseal"):
                self.check_seal_binding(side)

    def _reveals_open_roll(self, reveal: Message) -> bool:
        roll = self.roll
        return roll is not None and reveal.fields["seq"] == roll.seq and reveal.fields["for"] == roll.entry

    def _use_order(self, side: Message):
        return (self.charter.position(side.player), SIDE_RANK.get(side.type, 9))
