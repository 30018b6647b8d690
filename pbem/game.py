"""A player's game: the directory, the engine and the local identity together.

This is what the commands call: join, accept incoming messages, draft and sign a move, reveal,
resign, replay and verify. Everything is checked on a copy of the replay first; disk is written
only when the whole batch is good, entry files last, so an error leaves the log as it was.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import time
import tomllib
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from . import chain, sealing
from . import ruleset as rulesets
from .charter import Charter
from .engine import Engine, RollPoint, RollRecord
from .errors import (
    BadSignature,
    ChainBroken,
    DiskError,
    Held,
    IllegalOrder,
    Locked,
    NoMessage,
    NotOfThisGame,
    PbemError,
    UnreadableInput,
    UsageError,
)
from .keys import FileSigner, Signer, app_dir
from .log import IDENTITY, GameDir, atomic_write, disk_error, read_text, read_toml, remove, sweep_temp_files, write_toml
from .message import Message, check_order, emit_body, parse_fields, sign

if TYPE_CHECKING:
    from .hidden import HiddenChain

CACHE = "state.toml"
DISPUTES = "disputes.toml"  # entries this player disputes: local, like addresses.toml


class Identity(NamedTuple):
    """me.toml: who this player is in this directory and which key signs for him."""

    player: str
    key: str = ""  # path of an OpenSSH private key
    agent: str = ""  # path of a public key whose private half is in ssh-agent

    def save(self, game_dir: GameDir) -> None:
        data = {"player": self.player}
        if self.key:
            data["key"] = self.key
        if self.agent:
            data["agent"] = self.agent
        write_toml(game_dir.root / IDENTITY, data)

    @classmethod
    def load(cls, game_dir: GameDir) -> Identity | None:
        path = game_dir.root / IDENTITY
        if not path.exists():
            return None
        data = read_toml(path, "me.toml")
        player, key, agent = data.get("player"), data.get("key", ""), data.get("agent", "")
        if not (isinstance(player, str) and isinstance(key, str) and isinstance(agent, str)):
            raise UnreadableInput(f"{path} is damaged: it needs player = \"ID\" (and key or agent paths)",
                                  kind="me.toml", field="player")
        return cls(player, key, agent)


class SeedStore:
    """Derived seeds and the one-reveal-per-seq record, in the user's app dir, mode 0600 (§6)."""

    def __init__(self, charter: Charter, player: str, home: Path | None = None) -> None:
        self.folder = (home or app_dir()) / "games" / f"{charter.game}-{charter.digest[:16]}-{player}"
        self.charter = charter

    @property
    def seeds_path(self) -> Path:
        return self.folder / "seeds.toml"

    @property
    def record_path(self) -> Path:
        return self.folder / "reveals.toml"

    def derive(self, signer: Signer) -> dict[str, bytes]:
        """Each seed is derived twice and compared: a non-deterministic signer is refused (§6)."""
        seeds = {}
        for kind, namespace in chain.SEED_NAMESPACES.items():
            text = chain.seed_text(kind, self.charter.digest)
            first = chain.sha256(signer.sign(text, namespace))
            second = chain.sha256(signer.sign(text, namespace))
            if first != second:
                raise UsageError("this key's signatures are not deterministic; pbem cannot derive seeds from it",
                                 field="--key")
            seeds[kind] = first
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_toml(self.seeds_path, {k: v.hex() for k, v in seeds.items()}, 0o600)
        return seeds

    def load(self) -> dict[str, bytes] | None:
        if not self.seeds_path.exists():
            return None
        data = read_toml(self.seeds_path, "seed cache")
        try:
            return {kind: bytes.fromhex(data[kind]) for kind in chain.SEED_NAMESPACES}
        except (KeyError, TypeError, ValueError):  # derived again from the key on the next need
            return None

    def seeds(self, signer_factory: Callable[[], Signer]) -> dict[str, bytes]:
        return self.load() or self.derive(signer_factory())

    def record(self) -> list[dict] | None:
        if not self.record_path.exists():
            return None
        revealed = read_toml(self.record_path, "reveal record").get("revealed")
        if not isinstance(revealed, list) or not all(isinstance(r, dict) and isinstance(r.get("seq"), int)
                                                      and isinstance(r.get("entry"), str) for r in revealed):
            raise UnreadableInput(f"{self.record_path} is damaged: it must list the reveals made here; restore it "
                                  "from a backup (never remove it: it keeps you from revealing twice)",
                                  kind="reveal record", field="revealed")
        return revealed

    def start_record(self) -> None:
        if not self.record_path.exists():
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_toml(self.record_path, {"revealed": []}, 0o600)

    @contextmanager
    def locked(self, wait_seconds: float = 30.0):
        """The record's own lock, shared by every game directory of this player on this machine."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise disk_error(exc, "lock", self.folder) from None
        try:
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise Locked(f"the reveal record in {self.folder} is locked by another pbem") from None
                    time.sleep(0.05)
            sweep_temp_files(self.folder)
            yield
        finally:
            os.close(fd)

    def add_to_record(self, seq: int, entry: str) -> None:
        revealed = self.record() or []
        revealed.append({"seq": seq, "entry": entry})
        write_toml(self.record_path, {"revealed": revealed}, 0o600)


@dataclass
class Outcome:
    message: Message
    status: str  # applied, duplicate, held
    detail: str = ""


@dataclass
class ApplyReport:
    outcomes: list[Outcome] = field(default_factory=list)
    rolls: list[RollRecord] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # held messages found invalid and removed
    refused: list[tuple[str, PbemError]] = field(default_factory=list)  # (source, why), by accept_batches

    @property
    def held(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "held"]


def _cache_text(cache: dict) -> str:
    """state.toml's text. The state (JSON) goes in a literal string where it can, as TOML reads a
    literal string about ten times faster than a basic one full of escaped quotes: every command
    that opens the game reads this file."""
    import tomli_w

    state = cache["state"]
    if LITERAL_END in state or any(ord(char) < 0x20 or ord(char) == 0x7F for char in state):
        return tomli_w.dumps(cache)
    rest = tomli_w.dumps({key: value for key, value in cache.items() if key != "state"})
    return f"state = {LITERAL_END}{state}{LITERAL_END}\n{rest}"  # first: before any [table] of the rest


LITERAL_END = "'" * 3  # the quotes of a TOML multi-line literal string


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


class Game:
    def __init__(self, root: Path | str = ".", *, home: Path | None = None) -> None:
        self.dir = GameDir(Path(root))
        self.dir.require()
        self.home = home
        text = read_text(self.dir.charter_path, "charter game.toml")
        self.charter = Charter.parse(text, str(self.dir.charter_path))
        self.ruleset = rulesets.load(self.charter.ruleset, self.charter.version)
        self.ruleset.check_setup(rulesets.Setup.of(self.charter))  # a hand-edited charter is refused, never played
        self._resigns: dict[str, Message] | None = None
        self._chains: dict[str, HiddenChain] = {}
        self._engine: Engine | None = None  # the replay at the head, once loaded by this object
        self._entry_ids: set[str] | None = None  # ids of the stored entries, once a resign asked
        self.finished: list[Message] = []  # own messages an interrupted command left, finished by this one
        # The command line sets this: a message leaves journal/ only once the player has been told to
        # mail it (announced()), so one whose command died before saying so is named by the next.
        self.announce_later = False
        self._to_announce: list[Message] = []

    @property
    def identity(self) -> Identity | None:
        return Identity.load(self.dir)

    def seed_store(self, player: str) -> SeedStore:
        return SeedStore(self.charter, player, self.home)

    # ----------------------------------------------------------------- replay

    def _side(self, path: Path) -> Message | None:
        return self.dir.read_message(path)

    def _resign_messages(self) -> dict[str, Message]:
        if self._resigns is None:
            self._resigns = {m.id: m for m in self.dir.side_messages("resign-")}
        return self._resigns

    def fetcher(self, seq: int, staged: dict[str, Message] | None = None, *,
                witnesses: list[str] | None = None, read: Callable[[Path], Message | None] | None = None):
        """Look up a side message an entry after `seq` may use: reveals for seq, resigns.

        With `witnesses` (an incoming entry), an id still unknown once every witness's reveal for seq
        is here cannot be a reveal in flight: it is looked up among all stored side messages, so an
        entry naming one an earlier entry consumed is refused rather than held forever (§4). `read`
        reads a reveal file (a replay's workers may have read it already)."""
        read_side = read or self._side

        found: dict[str, Message] | None = None
        scanned = sealed_read = False

        def fetch(message_id: str) -> Message | None:
            nonlocal found, scanned, sealed_read
            if staged and message_id in staged:
                return staged[message_id]
            if found is None:  # each reveal file of this seq is read once, on the first look-up
                found = dict(self._resign_messages())
                for member in self.charter.participants:
                    reveal = read_side(self.dir.reveal_path(member.id, seq))
                    if reveal is not None:
                        found[reveal.id] = reveal
            if message_id not in found and not sealed_read:  # a collector's entry: seals and unseals of seq
                sealed_read = True
                for member in self.charter.participants:
                    for kind in ("seal", "unseal"):
                        side = read_side(self.dir.sealed_path(kind, member.id, seq))
                        if side is not None:
                            found[side.id] = side
            if message_id not in found and witnesses is not None and not scanned:
                here = list(found.values()) + list((staged or {}).values())
                present = {m.player for m in here if m.type == "reveal" and m.fields["seq"] == seq}
                if present >= set(witnesses):  # once per entry, however many ids are unknown
                    scanned = True
                    found.update((m.id, m) for m in self.dir.side_messages(""))
                    entries = (self.dir.entry(n) for n in range(1, self.dir.last_seq() + 1))
                    found.update((m.id, m) for m in entries if m is not None)  # an entry's id in uses?
            return found.get(message_id)

        return fetch

    def replay(self, *, keep_rolls: bool = False, progress: Callable[[int, int], None] | None = None,
               workers: int | None = None, each: Callable[[Message], None] | None = None,
               chains: dict[str, HiddenChain] | None = None, audited: dict[str, int] | None = None) -> Engine:
        """From the charter, trusting nothing cached; every signature, link, reveal and hash.

        On a long log, worker processes (`workers`; None: one per core when it pays) read, parse and
        check the signature of the files ahead of the entry being applied; errors are the same.
        `each` is given every entry once it is applied (`pbem log` summarises them)."""
        engine = Engine(self.charter, self.ruleset)
        engine.keep_rolls = keep_rolls
        engine.chains = self.hidden_chains() if chains is None else chains
        engine.audited = dict(audited or {})
        joins = self._joins_of_this_charter()
        for join in sorted(joins, key=lambda m: self.charter.position(m.player)):
            engine.accept_join(join)
        last = self.dir.last_seq()
        keys = {member.id: member.pubkey.raw for member in self.charter.players}
        from . import parallel  # here: only a replay reads ahead in worker processes

        with parallel.reader(self.dir, keys, last, workers) as read:
            for seq in range(1, last + 1):
                entry = read(self.dir.entry_path(seq))
                if entry is None:
                    raise ChainBroken(f"entry seq {seq} is missing from the log", seq=seq, kind="log")
                if entry.fields.get("seq") != seq:
                    raise ChainBroken(f"file for seq {seq} holds seq {entry.seq}", seq=seq, kind="log",
                                      entry=entry.id, player=entry.player, field="seq")
                try:
                    engine.apply_entry(entry, self.fetcher(seq - 1, read=read))
                except Held as exc:
                    raise ChainBroken(f"stored log is incomplete: {exc.message}", entry=exc.entry, seq=exc.seq,
                                      player=exc.player, field=exc.field, kind=exc.kind) from None
                if each:
                    each(entry)
                if progress:
                    progress(seq, last)
        return engine

    def verify(self, progress: Callable[[int, int], None] | None = None, *, workers: int | None = None) -> Engine:
        """`pbem verify`: the whole log from the charter, trusting no cache, then the reveals waiting at
        the head and any proof of a fork. Every defect is a ChainBroken (exit 4) naming the check."""
        try:
            engine = self.replay(keep_rolls=True, progress=progress, workers=workers)
            for reveal in self.reveals_at(engine).values():
                engine.check_reveal(reveal)  # changes nothing
            self._verify_open_decision(engine)
            forks = self.dir.forks()
            if forks:
                raise ChainBroken(f"the game is stopped: proof of equivocation in {forks[0]}", kind="game",
                                  field="forks")
        except ChainBroken:
            raise
        except PbemError as exc:
            raise ChainBroken(f"{exc.message} [{type(exc).__name__}]", entry=exc.entry, seq=exc.seq,
                              player=exc.player, field=exc.field, rule=exc.rule, kind=exc.kind) from None
        return engine

    def _verify_open_decision(self, engine: Engine) -> None:
        """The seals and unseals stored for the decision open at the head: each signed by its member,
        bound to the head, and each unseal opening its seal."""
        probe = engine.clone()
        probe.resolve_with(self.reveals_at(probe))
        decision = sealing.open_decision(probe)
        if decision is None:
            return
        seals = sealing.stored(self, "seal", decision)
        for seal in seals.values():
            probe.check_seal_binding(seal)
            probe.check_signed(seal)
        for unseal in sealing.stored(self, "unseal", decision).values():
            probe.check_seal_binding(unseal)
            if unseal.player not in seals:
                raise ChainBroken(f"{unseal.player}'s unseal is stored without his seal", **unseal.context())
            probe.check_unseal(seals[unseal.player], unseal)

    def engine(self) -> Engine:
        """The replay at the head: from state.toml when everything it names matches the log, else
        replayed (and cached when the directory is writable).

        Callers get their own copy: rulesets mutate the states they are given."""
        if self._engine is None:
            joins = self._joins_of_this_charter()
            self._engine = self._load_cache(joins)
            if self._engine is None:
                self._engine = self.replay()
                self._save_cache(self._engine)
        return self._engine.clone()

    def _joins_of_this_charter(self) -> list[Message]:
        """The stored joins, each checked to be for game.toml as it is now: a charter changed after
        joining is refused by every command (exit 4), before anything is trusted or signed."""
        joins = self.dir.side_messages("join-")
        for join in joins:
            if join.fields["charter"] != self.charter.digest:
                raise ChainBroken(
                    f"game.toml has changed since {join.player} joined: its digest is {self.charter.digest[:12]}, "
                    f"the join signed {join.fields['charter'][:12]}; restore the charter the host sent",
                    field="charter", **join.context())
        return joins

    def _load_cache(self, joins: list[Message]) -> Engine | None:
        try:
            data = tomllib.loads((self.dir.root / CACHE).read_text())
        except (OSError, ValueError):
            return None
        try:
            if data["charter"] != self.charter.digest or data["joins"] != {j.player: j.id for j in joins}:
                return None
            seq = data["head_seq"]
            if seq < 1 or self.dir.entry_path(seq + 1).exists():
                return None
            head = self.dir.entry(seq)
            if head is None or head.id != data["head_id"]:
                return None
            last_reveals = [self._side(self.dir.reveal_path(player, at)) for player, (at, _) in
                            data["last_reveal"].items()]
            if [m.id if m else None for m in last_reveals] != [i for _, i in data["last_reveal"].values()]:
                return None
            used = [(i, at + 1) for at, i in data["last_reveal"].values()] + list(data["resigned"].values())
            if not all(self._used_by(side_id, seq) for side_id, seq in used):
                return None
            resigns = self._resign_messages()
            if any(getattr(resigns.get(i), "player", None) != p for p, (i, _) in data["resigned"].items()):
                return None
            named = {i for i, _ in data["resigned"].values()}
            if any(not self._unconsumed(r, seq) for r in resigns.values() if r.id not in named):
                return None
            engine = Engine.from_cache(self.charter, self.ruleset, data, head, joins,
                                       [m for m in last_reveals if m is not None])
            return self._with_private_views(engine)
        except (PbemError, KeyError, TypeError, ValueError, AttributeError):
            return None

    def hidden_chains(self) -> dict[str, HiddenChain]:
        """This player's hidden chain, when his seeds are in his app dir (derived at join, or again
        from his key by a command that signs): his private views are derived beside the replay (§7)."""
        me = self.identity
        member = self.charter.member(me.player) if me is not None else None
        if me is None or member is None or not member.participant:
            return {}
        if me.player not in self._chains:
            seeds = self.seed_store(me.player).load()
            if seeds is None:
                return {}
            from .hidden import HiddenChain

            self._chains[me.player] = HiddenChain(seeds["hidden"])
        return dict(self._chains)

    # ----------------------------------------------------------------- disclosure and audit (§7)

    def disclosures(self) -> dict[str, Message]:
        """Each participant's widest disclosure stored here, by player."""
        found: dict[str, Message] = {}
        for message in self.dir.side_messages("disclose-"):
            if message.player not in found or message.fields["upto"] > found[message.player].fields["upto"]:
                found[message.player] = message
        return found

    def disclose(self, player: str, signer: Signer, upto: int | None = None) -> tuple[Message, ApplyReport]:
        """Sign h_{L-upto} of this player's hidden chain: every private draw and record of his up to
        that seq becomes checkable by all (`pbem audit`), nothing after it."""
        with self._writing():
            engine = self.engine()
            upto = engine.head_seq if upto is None else upto
            if not 1 <= upto <= engine.head_seq:
                raise UsageError(f"disclose up to a seq from 1 to {engine.head_seq}", player=player, field="--upto")
            from .hidden import HiddenChain

            seeds = self.seed_store(player).seeds(lambda: signer)
            value = HiddenChain(seeds["hidden"]).value(upto)
            return self._publish(sign({"pbem": 1, "type": "disclose", "game": self.charter.game, "player": player,
                                       "upto": upto, "hidden": value.hex()}, signer))

    def audit(self, player: str | None = None) -> dict[str, dict]:
        """Replay the log once per disclosed player, his private draws derived from his disclosure and
        each order of his up to it checked against the hand he held (§7). The first defect is a
        ChainBroken (exit 4) naming entry, player and rule; returns what each one held at the end."""
        from .hidden import DisclosedChain

        disclosed = self.disclosures()
        if player is not None and player not in disclosed:
            raise UsageError(f"{player} has disclosed nothing yet: nothing of his can be audited", field="PLAYER")
        found = {}
        for name, disclose in sorted(disclosed.items()):
            if player not in (None, name):
                continue
            upto = disclose.fields["upto"]
            chains: dict[str, HiddenChain] = {name: DisclosedChain(bytes.fromhex(disclose.fields["hidden"]), upto)}
            try:
                engine = self.replay(chains=chains, audited={name: upto})
            except IllegalOrder as exc:
                raise ChainBroken(f"audit: {exc.message}", entry=exc.entry, seq=exc.seq, player=exc.player,
                                  field=exc.field, rule=exc.rule, kind="move") from None
            found[name] = {"upto": upto, "view": engine.views.get(name, {})}
        return found

    def disputes(self) -> list[dict]:
        """Entries this player disputes (disputes.toml, local): each names who owes a disclosure up to
        which seq; the others learn of it by mail, as of any request made out of the log."""
        path = self.dir.root / DISPUTES
        if not path.exists():
            return []
        found = read_toml(path, "dispute record").get("disputes", [])
        if not isinstance(found, list) or not all(isinstance(d, dict) and isinstance(d.get("seq"), int)
                                                  and isinstance(d.get("player"), str) for d in found):
            raise UnreadableInput(f"{path} is damaged: it lists [[disputes]] with seq and player", kind="disputes")
        return found

    def dispute(self, seq: int, player: str | None = None) -> dict:
        """Dispute entry `seq`: its author (or `player`) owes a disclosure up to it (§7.4)."""
        with self._writing():
            engine = self.engine()
            entry = self.dir.entry(seq) if 1 <= seq <= engine.head_seq else None
            if entry is None:
                raise UsageError(f"there is no entry {seq}: the log ends at seq {engine.head_seq}", field="SEQ")
            owner = player or entry.player
            member = self.charter.member(owner)
            if member is None or not member.participant:
                raise UsageError(f"{owner} is no participant of this game", field="--player")
            item = {"seq": seq, "player": owner}
            known = [d for d in self.disputes() if d != item]
            write_toml(self.dir.root / DISPUTES, {"disputes": [*known, item]})
            return item

    def owed_disclosures(self, engine: Engine) -> list[str]:
        """Once the game is over, the participants whose hidden information is not yet disclosed up to
        its last entry (only in a game that hides something)."""
        if not engine.started or not isinstance(engine.pending(), rulesets.Over):
            return []
        hidden = [m.id for m in self.charter.participants if self.ruleset.private_view(engine.state, m.id)]
        disclosed = self.disclosures()
        return [p for p in hidden if p not in disclosed or disclosed[p].fields["upto"] < engine.head_seq]

    def derive_hidden_chain(self, signer_factory: Callable[[], Signer]) -> bool:
        """On a machine that holds no seeds for this player (he joined elsewhere), derive them from his
        key when the game hides something from him, so his private view is derived as it was there.
        Returns whether a chain is now known."""
        me = self.identity
        member = self.charter.member(me.player) if me is not None else None
        if me is None or member is None or not member.participant or self.hidden_chains():
            return bool(self.hidden_chains())
        engine = self.engine()
        if not engine.started or not self.ruleset.private_view(engine.state, me.player):
            return False
        self.seed_store(me.player).seeds(signer_factory)
        self._forget()
        return bool(self.hidden_chains())

    def _views_path(self) -> Path | None:
        me = self.identity
        return self.seed_store(me.player).folder / "views.toml" if me is not None else None

    def _with_private_views(self, engine: Engine) -> Engine | None:
        """A cached engine gets this player's private views from his app dir, if they were saved at
        the same head; otherwise the caller replays, which derives them again."""
        engine.chains = self.hidden_chains()
        if not engine.chains:
            return engine
        path = self._views_path()
        if path is None or not path.exists():
            return None
        saved = read_toml(path, "private view")
        if saved.get("head") != engine.head_id or not isinstance(saved.get("views"), str):
            return None
        views = json.loads(saved["views"])
        if set(views) != set(engine.chains):
            return None
        engine.views = views
        return engine

    def _unconsumed(self, resign: Message, head_seq: int) -> bool:
        """No entry from the resigner's head (`at`) up to ours uses this resign. Usually none or one
        entry to read: the next entry consumes a resign."""
        for seq in range(head_seq, 0, -1):
            entry = self.dir.entry(seq)
            if entry is None or resign.id in entry.uses:
                return False
            if entry.id == resign.fields["at"]:
                return True
        return True

    def _used_by(self, side_id: str, seq: int) -> bool:
        """Does the stored entry at seq list this side message in its uses?"""
        entry = self.dir.entry(seq)
        return entry is not None and side_id in entry.uses

    def _save_cache(self, engine: Engine) -> None:
        """Best effort: a read-only or full disk only costs the next command a replay."""
        if engine.head_seq < 1:
            return
        with contextlib.suppress(DiskError):
            atomic_write(self.dir.root / CACHE, _cache_text(engine.to_cache()).encode())
            self._save_views(engine)

    def _save_views(self, engine: Engine) -> None:
        """This player's private views, in his app dir only (§7), under its lock, which also clears
        what a killed writer left there."""
        me = self.identity
        if not engine.chains or me is None:
            return
        store = self.seed_store(me.player)
        views = {"head": engine.head_id or "", "views": json.dumps(engine.views, sort_keys=True)}
        with contextlib.suppress(Locked), store.locked(wait_seconds=1.0):
            write_toml(store.folder / "views.toml", views, 0o600)

    def reveals_at(self, engine: Engine) -> dict[str, Message]:
        if engine.roll is None:
            return {}
        found = {}
        for witness in engine.roll.witnesses:
            message = self._side(self.dir.reveal_path(witness, engine.roll.seq))
            if message is not None:
                found[witness] = message
        return found

    def completed_roll(self, report: ApplyReport) -> None:
        """If what was just stored brought a roll point's last reveal, add its dice to the report:
        everyone sees them at once."""
        if not any(o.status == "applied" for o in report.outcomes):
            return
        record = self.current()[1]
        if record is not None and all(r.seq != record.seq for r in report.rolls):
            report.rolls.append(record)

    def current(self) -> tuple[Engine, RollRecord | None]:
        """The game as players see it now: the head, with the open roll resolved if all revealed."""
        engine = self.engine()
        record = engine.resolve_with(self.reveals_at(engine))
        return engine, record

    # ----------------------------------------------------------------- accepting messages

    def accept(self, incoming: list[Message]) -> ApplyReport:
        """Classify and apply messages (§4): duplicate, held, fork, or applied. All or nothing."""
        with self._writing():
            return self._accept_fresh(incoming)

    @contextmanager
    def _writing(self):
        """The lock of a command that writes. Whatever an interrupted command signed is finished first,
        so nothing is drafted from a head that lacks it."""
        with self.dir.lock():
            if self.dir.outermost_lock:  # what was read before the lock may no longer be the head
                self._forget()
            known = {m.id for m in self.finished + self._to_announce}
            self.finished.extend(m for m in self._finish_journal() if m.id not in known)
            yield

    def _accept_fresh(self, incoming: list[Message]) -> ApplyReport:
        try:
            return self._accept_locked(incoming)
        finally:  # written or not, what this object had loaded may no longer be the head
            self._forget()

    def _forget(self) -> None:
        self._engine = None
        self._resigns = None
        self._entry_ids = None

    def finish_interrupted(self) -> list[Message]:
        """For read commands: finish what an interrupted command signed, if this directory can be
        written now; return what is still unfinished (to report)."""
        if not self.dir.journal():
            return []
        try:
            with self._writing():
                pass
        except (Locked, DiskError):
            pass
        done = {m.id for m in self.finished}
        return [message for _, message in self.dir.journal() if message.id not in done]

    def _finish_journal(self) -> list[Message]:
        """Complete what an interrupted command signed: into the log, then into outbox/. Only a message
        refused on its own account is dropped (it was never stored or mailed); any other error stops
        the command and the journal keeps it."""
        finished = []
        for path, message in self.dir.journal():
            if not self._is_stored(message):
                try:
                    self._accept_fresh([message])
                except PbemError as exc:
                    if exc.entry != message.id or isinstance(exc, (Locked, DiskError)):
                        raise
                    remove(path)
                    continue
            atomic_write(self.dir.outbox_path(message), message.stored())
            if not self.announce_later:
                remove(path)
            finished.append(message)
        return finished

    def _is_stored(self, message: Message) -> bool:
        path = self.dir.entry_path(message.fields["seq"]) if message.type == "move" else self.dir.side_path(message)
        stored = self.dir.read_message(path)
        return stored is not None and stored.id == message.id

    def accept_batches(self, batches: list[tuple[str, list[Message]]]) -> ApplyReport:
        """Messages from several sources (files, mails): all at once if they all check; otherwise each
        source on its own, in log order, so one bad file or mail never holds up the good ones. The
        bad ones are in `refused` with their error; nothing of theirs is written."""
        everything = [m for _, messages in batches for m in messages]
        if len(batches) < 2:
            return self.accept(everything)
        try:
            return self.accept(everything)
        except (Locked, DiskError):
            raise
        except PbemError as exc:
            if isinstance(exc, ChainBroken) and exc.proof:
                raise  # a fork stops the game: nothing else applies until the players settle it
        combined = ApplyReport()
        for source, messages in sorted(batches, key=lambda item: min(m.seq or 0 for m in item[1])):
            try:
                one = self.accept(messages)
            except (Locked, DiskError):
                raise
            except PbemError as exc:
                combined.refused.append((source, exc))
                continue
            combined.outcomes += one.outcomes
            combined.rolls += one.rolls
            combined.dropped += one.dropped
        for outcome in combined.held:  # a later source may have brought what it waited for
            if self._is_stored(outcome.message):
                outcome.status, outcome.detail = "applied", ""
        return combined

    def _accept_locked(self, incoming: list[Message]) -> ApplyReport:
        forks = self.dir.forks()
        if forks:
            raise ChainBroken(
                f"the game is stopped: proof of equivocation is in {forks[0].parent} "
                "(the players settle it between themselves)", kind="game",
            )
        incoming_ids = {m.id for m in incoming}
        held_files = {m.id: path for path, m in self.dir.held() if m.id not in incoming_ids}
        batch = _Batch(self.engine(), held_files)
        self._fold(batch, list(incoming) + [m for _, m in self.dir.held() if m.id in held_files])
        return self._commit(batch, incoming)

    def _fold(self, batch: _Batch, queue: list[Message]) -> None:
        """Apply what can apply, in log order, until nothing more does (§4). A refusal raises at the end,
        after the others were tried, so a genuine reveal in the same mail as a stray one still proves a
        fork; nothing is written unless all of it checks."""
        refused: PbemError | None = None
        progressed = True
        while progressed:
            progressed = False
            for message in sorted(queue, key=_queue_order):
                if batch.status.get(message.id, Outcome(message, "held")).status != "held":
                    continue
                try:  # refused, it leaves batch.work as it was: the engine checks all before it changes any
                    result, rolls = self._accept_one(batch.work, message, batch.staged, batch.staged_by_id)
                except Held as exc:
                    batch.status[message.id] = Outcome(message, "held", str(exc))
                    continue
                except PbemError as exc:
                    error = self._refusal(batch, message, exc)  # may raise at once: proof of a fork
                    refused = refused or error
                    continue
                batch.status[message.id] = Outcome(message, result)
                batch.rolls.extend(rolls)
                progressed = True
        if refused is not None:
            raise refused

    def _refusal(self, batch: _Batch, message: Message, exc: PbemError) -> PbemError | None:
        """What a refused message leaves: proof of a fork (raised at once), a genuine stray reveal kept
        as evidence, an old held message dropped; the error to raise, if any."""
        if isinstance(exc, ChainBroken) and exc.proof:
            self._keep_proof(message, exc, batch.staged_by_id)
            raise exc
        if isinstance(exc, NotOfThisGame) and message.type == "reveal":
            atomic_write(self.dir.stray_path(message), message.stored())  # its value was checked on the chain
        if message.id in batch.held_files:  # an old held message that can never apply
            batch.status[message.id] = Outcome(message, "dropped", str(exc))
            return None
        return exc

    def _commit(self, batch: _Batch, incoming: list[Message]) -> ApplyReport:
        """Side messages, then entries in seq order (each entry file is a commit point), then held/."""
        report = ApplyReport(rolls=batch.rolls)
        for path, message in batch.staged.items():
            stored = self.dir.read_message(path)
            if stored is not None and stored.id != message.id:  # never replace what the log holds
                raise ChainBroken(f"{path.relative_to(self.dir.root)} already holds {stored.id[:12]}; another pbem "
                                  "wrote it meanwhile: run the command again", **message.context())
            atomic_write(path, message.stored())
        for message_id, path in batch.held_files.items():
            outcome = batch.status.get(message_id)
            if outcome and outcome.status in ("applied", "duplicate", "dropped"):
                remove(path)
                if outcome.status == "dropped":
                    report.dropped.append(outcome.detail)
        for message in incoming:
            outcome = batch.status[message.id]
            if outcome.status == "held":
                atomic_write(self.dir.held_path(message), message.stored())
            report.outcomes.append(outcome)
        if batch.work.head_seq != batch.base_seq:
            self._save_cache(batch.work)
        return report

    def _keep_proof(self, message: Message, error: ChainBroken, staged: dict[str, Message]) -> None:
        atomic_write(self.dir.fork_path(message), message.stored())
        for other_id in error.proof:
            if other_id == message.id:
                continue
            other = staged.get(other_id) or self._find_stored(other_id, message)
            if other is not None:
                atomic_write(self.dir.fork_path(other), other.stored())

    def _find_stored(self, message_id: str, near: Message) -> Message | None:
        candidates = []
        seq = near.fields.get("seq")
        if isinstance(seq, int):
            candidates.append(self.dir.entry_path(seq))
            candidates.append(self.dir.reveal_path(near.player, seq))
        candidates.append(self.dir.side_path(near))
        found = [self.dir.read_message(path) for path in candidates]
        if near.type == "reveal":
            found += self.dir.strays(near.player, near.fields["seq"])
        return next((m for m in found if m is not None and m.id == message_id), None)

    def _stored_at(self, path: Path, staged: dict[Path, Message]) -> Message | None:
        return staged.get(path) or self.dir.read_message(path)

    def _accept_one(self, work: Engine, message: Message, staged: dict, staged_by_id: dict):
        context = message.context()
        if message.game != self.charter.game:
            raise UsageError(f"belongs to game {message.game!r}, not {self.charter.game!r}",
                             field="game", **context)
        kind = message.type
        # The signature first: only a message its author really signed can be a fork or equivocation.
        member = self.charter.member(message.player)
        if member is None:
            raise BadSignature("signer is not in the charter's roster", field="player", **context)
        message.verify(member.pubkey.raw)
        if kind == "move":
            return self._accept_entry(work, message, staged, staged_by_id)
        if kind not in ("join", "reveal", "resign", "seal", "unseal", "disclose"):
            raise UsageError(f"this pbem does not handle {kind} messages yet", field="type", **context)
        return self._accept_side(work, message, staged, staged_by_id)

    def _accept_side(self, work: Engine, message: Message, staged: dict, staged_by_id: dict):
        """§4's order: a side message of another history, or one bound to an entry not here yet, is
        refused or held before any slot is compared, so only this game's messages prove equivocation."""
        context = message.context()
        if message.type == "join" and message.fields["charter"] != self.charter.digest:
            raise NotOfThisGame(f"join is for charter {message.fields['charter'][:12]}, this game's is "
                                f"{self.charter.digest[:12]}", field="charter", **context)
        if message.type == "resign" and not self._is_known_head(message.fields["at"], work, staged_by_id):
            raise Held(f"resign names head {message.fields['at'][:12]}, not in this log yet", field="at", **context)
        if message.type in ("seal", "unseal"):
            self._check_sealed_binding(work, message, staged)
        if message.type == "unseal":  # one that opens nothing is refused (exit 3) whatever came first
            self._check_unseal(work, message, staged)
        if message.type == "disclose":
            if message.fields["upto"] > work.head_seq:
                raise Held(f"disclosure up to seq {message.fields['upto']}, but this log ends at seq "
                           f"{work.head_seq}", field="upto", **context)
            work.check_disclosure(message)
        path = self.dir.side_path(message)
        stored = self._stored_at(path, staged)
        if stored is not None:
            if stored.id == message.id:
                return "duplicate", []
            raise self._slot_conflict(stored, message)
        if message.type == "join":
            work.accept_join(message)
        elif message.type == "reveal":
            self._check_reveal(work, message, staged)
        elif message.type == "resign":
            work.check_resign(message, True)
            self._resign_messages()[message.id] = message
        staged[path] = message
        staged_by_id[message.id] = message
        return "applied", []

    def _check_sealed_binding(self, work: Engine, message: Message, staged: dict) -> None:
        """§5: a seal or unseal is bound to an entry of this log (genesis at seq 0); one bound to an
        entry not here yet is held."""
        seq, bound = message.fields["seq"], message.fields["for"]
        if not work.started:
            raise Held(f"{message.type} for seq {seq}: the game has not started here yet (waiting for joins "
                       f"from {', '.join(work.missing_joins())})", **message.context())
        if seq > work.head_seq:
            raise Held(f"{message.type} for seq {seq}, but this log ends at seq {work.head_seq}", field="seq",
                       **message.context())
        stored = self._stored_at(self.dir.entry_path(seq), staged) if seq else None
        ours = work.genesis if seq == 0 else (stored.id if stored is not None else None)
        if bound != ours:
            raise NotOfThisGame(f"{message.type} names entry {bound[:12]} at seq {seq}, but this log holds "
                                f"{(ours or '')[:12]} there", field="for", **message.context())
        self._check_member(work, message, staged)

    def _check_member(self, work: Engine, message: Message, staged: dict) -> None:
        """Only a member of the decision bound to seq may seal for it: at the head, once its roll
        point (if any) resolves here; before it, only one whose seal the collecting entry used."""
        seq = message.fields["seq"]
        if seq < work.head_seq:
            after = self._stored_at(self.dir.entry_path(seq + 1), staged)
            if after is None or message.id not in after.uses:
                raise IllegalOrder(f"the decision bound to seq {seq} was collected at seq {seq + 1} without this "
                                   f"{message.type}", rule="PROTOCOL §5", **message.context())
            return
        probe = work.clone()
        if probe.resolve_with(self.reveals_at(probe)) is None and probe.roll is not None:
            return  # its roll point waits for reveals: what it will ask is not known here yet
        members = probe.sealed_members()
        if message.player not in members:
            asked = f"the decision bound to seq {seq} ({', '.join(members)})" if members else \
                f"a decision bound to seq {seq}: none is open"
            raise IllegalOrder(f"{message.player} is no member of {asked}", rule="PROTOCOL §5", **message.context())

    def _check_unseal(self, work: Engine, message: Message, staged: dict) -> None:
        """An unseal opens its seal, which must be here first (§5: exit 3, or held)."""
        seal = self._stored_at(self.dir.sealed_path("seal", message.player, message.fields["seq"]), staged)
        if seal is None:
            raise Held(f"{message.player}'s unseal arrived before his seal", field="for", **message.context())
        work.check_unseal(seal, message)

    def _check_reveal(self, work: Engine, message: Message, staged: dict) -> None:
        context = message.context()
        seq = message.fields["seq"]
        if 1 <= seq <= work.head_seq and (work.roll is None or work.roll.seq != seq):
            entry = self._stored_at(self.dir.entry_path(seq), staged)
            if entry is not None and entry.id != message.fields["for"]:
                if not work.reveal_is_genuine(message):
                    raise BadSignature(f"the revealed value is not on {message.player}'s reveal chain for seq {seq}",
                                       field="value", **context)
                raise NotOfThisGame(f"reveal names entry {message.fields['for'][:12]} at seq {seq}, but this log "
                                    f"holds {entry.id[:12]} there: not of this game, or its author forked",
                                    field="for", **context)
        work.check_reveal(message)
        for stray in self.dir.strays(message.player, seq):
            if stray.fields["for"] != message.fields["for"]:
                raise self._slot_conflict(stray, message)

    def _accept_entry(self, work: Engine, message: Message, staged: dict, staged_by_id: dict):
        context = message.context()
        seq = message.fields["seq"]
        if seq < 1:
            raise UnreadableInput("a chain entry's seq starts at 1", field="seq", **context)
        if seq <= work.head_seq:
            stored = self._stored_at(self.dir.entry_path(seq), staged)
            if stored is None:
                raise ChainBroken(f"this log lacks its own entry for seq {seq}: run 'pbem verify'",
                                  field="seq", **context)
            if stored.id == message.id:
                return "duplicate", []
            raise self._entry_conflict(stored, message, staged, work.genesis or "")
        witnesses = work.roll.witnesses if work.roll else []
        _, rolls = work.apply_entry(message, self.fetcher(seq - 1, staged_by_id, witnesses=witnesses))
        staged[self.dir.entry_path(seq)] = message
        staged_by_id[message.id] = message
        return "applied", rolls

    def _entry_conflict(self, stored: Message, message: Message, staged: dict, genesis: str) -> ChainBroken:
        """§4: another history (a rematch reusing the game id) is refused and stops nothing; two
        entries by one author at one seq on the same prev are equivocation, kept as proof."""
        context = message.context()
        seq = message.fields["seq"]
        before = self._stored_at(self.dir.entry_path(seq - 1), staged) if seq > 1 else None
        expected_prev = before.id if before is not None else genesis
        if message.fields["prev"] != expected_prev:
            return NotOfThisGame(f"not of this game: prev is {message.fields['prev'][:12]}, but this log's entry at "
                               f"seq {seq - 1} is {expected_prev[:12]}", field="prev", **context)
        if stored.player != message.player:
            return ChainBroken(f"seq {seq} already holds {stored.player}'s entry {stored.id[:12]}",
                               field="player", **context)
        return ChainBroken(f"fork: {message.player} signed two entries at seq {seq} on the same prev "
                           f"({stored.id[:12]} and {message.id[:12]})", field="seq",
                           proof=(stored.id, message.id), **context)

    def _slot_conflict(self, stored: Message, message: Message) -> PbemError:
        """Two side messages by one player in one slot (§3)."""
        context = message.context()
        kind = message.type
        if kind == "reveal" and stored.fields["value"] != message.fields["value"]:
            return BadSignature(f"{message.player} revealed another value for seq {message.fields['seq']}: "
                                "it is not on his reveal chain", field="value", **context)
        if kind == "reveal" and stored.fields["for"] != message.fields["for"]:
            return ChainBroken(
                f"fork: {message.player} revealed for two entries at seq {message.fields['seq']} "
                f"({stored.fields['for'][:12]} and {message.fields['for'][:12]}): either their author signed "
                f"both or {message.player} signed a false reveal; both are kept for the players to settle",
                field="for", proof=(stored.id, message.id), **context,
            )
        return ChainBroken(
            f"equivocation: two {kind} messages by {message.player} ({stored.id[:12]} and {message.id[:12]})",
            proof=(stored.id, message.id), **context,
        )

    def _is_known_head(self, entry_id: str, work: Engine, staged_by_id: dict) -> bool:
        if entry_id in (work.genesis, work.head_id) or entry_id in staged_by_id:
            return True
        if self._entry_ids is None:  # read once per command, however many resigns ask
            entries = (self.dir.entry(seq) for seq in range(1, work.head_seq + 1))
            self._entry_ids = {m.id for m in entries if m is not None}
        return entry_id in self._entry_ids

    # ----------------------------------------------------------------- writing our own messages

    def _publish(self, message: Message) -> tuple[Message, ApplyReport]:
        """Store a message this player signed, then put it in outbox/. The journal copy comes first and
        goes last, so a crash or a full disk at any point leaves what the next command completes."""
        with self._writing():
            journal = self.dir.journal_path(message)
            atomic_write(journal, message.stored())
            try:
                report = self._accept_fresh([message])
            except (Locked, DiskError):
                raise  # the journal keeps it: the next command that can write finishes it
            except PbemError:
                remove(journal)
                raise
            atomic_write(self.dir.outbox_path(message), message.stored())
            self._settle(journal, message)
        return message, report

    def _settle(self, journal: Path, message: Message) -> None:
        if self.announce_later:
            self._to_announce.append(message)
        else:
            remove(journal)

    def announced(self) -> None:
        """The player has been told to mail what this command stored: clear it from journal/."""
        try:
            with self.dir.lock():
                for message in self._to_announce + self.finished:
                    remove(self.dir.journal_path(message))
        except (Locked, DiskError):
            pass  # it is named again by the next command

    def draft(self, player: str, orders: list[dict], signer: Signer, *, now: dt.datetime | None = None,
              extra_uses: list[str] | None = None) -> Message:
        """The next chain entry from the local head: seq, prev, uses and state filled in, signed."""
        engine = self.engine()
        if not engine.started:
            raise Held(f"the game has not started: waiting for joins from {', '.join(engine.missing_joins())}",
                       player=player)
        uses: list[Message] = []
        if engine.roll is not None:
            reveals = self.reveals_at(engine)
            missing = [w for w in engine.roll.witnesses if w not in reveals]
            if missing:
                raise Held(f"waiting for the reveal of {', '.join(missing)} for seq {engine.roll.seq}",
                           player=player, seq=engine.roll.seq)
            uses.extend(reveals.values())
        uses.extend(self._sealed_uses(engine, player))
        uses.extend(m for m in self._resign_messages().values() if m.player not in engine.resigned)
        uses.sort(key=engine._use_order)
        fields = {
            "pbem": 1, "type": "move", "game": self.charter.game, "player": player,
            "seq": engine.head_seq + 1, "prev": engine.head_id, "time": now or utc_now(),
            "salt": os.urandom(32).hex(), "state": "0" * 64,  # the OS CSPRNG, as secrets uses
        }
        if uses:
            fields["uses"] = [m.id for m in uses]
        if orders:
            for index, order in enumerate(orders, 1):
                if not isinstance(order, dict):
                    raise UnreadableInput("each order is a table with a kind", field=f"orders[{index}]",
                                          player=player)
                check_order(order, index, {"kind": "move", "player": player, "seq": engine.head_seq + 1})
            fields["orders"], private = self._split_private(orders)
            if private:
                fields["private"] = self._seal_private(player, signer, fields, private)
        by_id = {m.id: m for m in uses}
        body = emit_body(fields)
        trial = Message(body, b"", parse_fields(body, {"player": player}))
        computed, _ = engine.apply_entry(trial, by_id.get, check_state=False, check_signature=False,
                                         check_private=True)  # his own client refuses a card he does not hold
        fields["state"] = computed
        return sign(fields, signer)

    def _sealed_uses(self, engine: Engine, player: str) -> list[Message]:
        """§5: after a simultaneous decision the collector's entry uses every member's seal and unseal."""
        probe = engine.clone()
        probe.resolve_with(self.reveals_at(probe))
        decision = sealing.open_decision(probe)
        if decision is None:
            return []
        seals, unseals = sealing.stored(self, "seal", decision), sealing.stored(self, "unseal", decision)
        waiting = [p for p in decision.members if p not in seals or p not in unseals]
        if waiting:
            owed = [f"{p}'s {'unseal' if p in seals else 'seal'}" for p in waiting]
            raise Held(f"the simultaneous decision of seq {decision.seq} waits for {', '.join(owed)}",
                       player=player, seq=decision.seq)
        return [*seals.values(), *unseals.values()]

    def owed_sealed(self, player: str, *, early: bool = False) -> str | None:
        """"seal" or "unseal" if this player owes one for the open simultaneous decision."""
        engine, _ = self.current()
        return sealing.owed(self, engine, player, early=early)

    def seal(self, player: str, orders: list[dict], signer: Signer) -> tuple[Message, ApplyReport]:
        """Seal this member's orders for the open simultaneous decision (§5), checked alone first."""
        with self._writing():
            engine, _ = self.current()
            return self._publish(sealing.seal(self, engine, player, orders, signer))

    def unseal(self, player: str, signer: Signer, *, early: bool = False) -> tuple[Message, ApplyReport]:
        """Open this member's seal, once every member's seal is here (§5), or at once with `early`."""
        with self._writing():
            engine, _ = self.current()
            return self._publish(sealing.unseal(self, engine, player, signer, early=early))

    def _split_private(self, orders: list[dict]) -> tuple[list[dict], dict[int, dict]]:
        """The orders as signed, and their private fields by order number (§7.3)."""
        public, private = [], {}
        for index, order in enumerate(orders, 1):
            kind = self.ruleset.order_kinds.get(str(order.get("kind")))
            shown, hidden = kind.split(order) if kind else (order, {})
            public.append(shown)
            if hidden or (kind and any(spec.private for spec in kind.fields)):
                private[index] = hidden  # a kind with private fields always seals: an empty one looks the same
        return public, private

    def _seal_private(self, player: str, signer: Signer, fields: dict, private: dict[int, dict]) -> str:
        """Encrypt the private fields with this player's hidden value for the entry's seq."""
        from .hidden import HiddenChain, seal_record

        seeds = self.seed_store(player).seeds(lambda: signer)
        return seal_record(HiddenChain(seeds["hidden"]), fields["seq"], fields["salt"], fields["prev"], private)

    def move(self, player: str, orders: list[dict], signer: Signer, **kw) -> tuple[Message, ApplyReport]:
        with self._writing():
            return self._publish(self.draft(player, orders, signer, **kw))

    def owed_reveal(self, player: str) -> RollPoint | None:
        engine = self.engine()
        roll = engine.roll
        if roll is None or player not in roll.witnesses:
            return None
        if self.dir.reveal_path(player, roll.seq).exists():
            return None
        return roll

    def reveal(self, player: str, signer_factory: Callable[[], Signer], *, fresh_machine_ok: bool = False
               ) -> tuple[Message, ApplyReport]:
        """Sign this witness's reveal for the open roll point, once per seq, ever (§6)."""
        with self._writing():
            return self._reveal_locked(player, signer_factory, fresh_machine_ok)

    def _reveal_locked(self, player: str, signer_factory: Callable[[], Signer], fresh_machine_ok: bool
                       ) -> tuple[Message, ApplyReport]:
        engine = self.engine()
        roll = engine.roll
        if roll is None or player not in roll.witnesses:
            raise UsageError(f"{player} owes no reveal: no roll point is waiting for him", player=player)
        store = self.seed_store(player)
        seeds = store.seeds(signer_factory)
        value = chain.chain_value(seeds["chain"], roll.seq)
        if chain.hash_forward(value, roll.seq).hex() != engine.joins[player]["anchor"]:
            raise UsageError("the derived chain does not match your join's anchor: wrong key for this player?",
                             player=player, field="--key")
        with store.locked():
            self._claim_reveal(store, player, roll, fresh_machine_ok)
        message = sign({"pbem": 1, "type": "reveal", "game": self.charter.game, "player": player,
                        "for": roll.entry, "seq": roll.seq, "value": value.hex()}, signer_factory())
        return self._publish(message)

    def _claim_reveal(self, store: SeedStore, player: str, roll: RollPoint, fresh_machine_ok: bool) -> None:
        """§6, one reveal per seq, ever: check this machine's record and add the roll point to it, under
        the record's own lock, so no two pbem of one PBEM_HOME both reveal for one seq."""
        record = store.record()
        if record is None:
            others = [m.id for m in self.charter.participants if m.id not in (player, roll.author)]
            revealed = [p for p in others if self.dir.reveal_path(p, roll.seq).exists()]
            if not revealed and not fresh_machine_ok:
                raise UsageError(
                    "this machine has no reveal record for this game: reveal only after another witness has "
                    "revealed for this entry, or confirm with --not-revealed-elsewhere that you never revealed "
                    f"for seq {roll.seq} (PROTOCOL §6)", player=player, seq=roll.seq,
                )
            record = []
        for earlier in record:
            if earlier["seq"] == roll.seq and earlier["entry"] != roll.entry:
                raise ChainBroken(
                    f"you already revealed for seq {roll.seq}, for entry {earlier['entry'][:12]}: "
                    f"{roll.author} forked", player=player, seq=roll.seq, entry=roll.entry,
                )
        last = max((r["seq"] for r in record), default=0)
        repeat = any(r["seq"] == roll.seq and r["entry"] == roll.entry for r in record)
        if roll.seq <= last and not repeat:
            raise UsageError(f"this machine already revealed for seq {last}; never again at or below it",
                             player=player, seq=roll.seq)
        if not repeat:
            store.add_to_record(roll.seq, roll.entry)

    def resign(self, player: str, signer: Signer, reason: str = "") -> tuple[Message, ApplyReport]:
        with self._writing():
            return self._resign_locked(player, signer, reason)

    def _resign_locked(self, player: str, signer: Signer, reason: str) -> tuple[Message, ApplyReport]:
        if not self.engine().started:
            raise Held("the game has not started: there is nothing to resign from yet (tell the host)",
                       player=player)
        earlier = next((m for m in self._resign_messages().values() if m.player == player), None)
        if earlier is not None:  # a second one would be equivocation: proof against oneself
            raise UsageError(f"you have already resigned ({earlier.id[:12]}); mail "
                             f"{self.dir.outbox_path(earlier)} again if the others lack it", player=player)
        engine = self.engine()
        fields = {"pbem": 1, "type": "resign", "game": self.charter.game, "player": player,
                  "at": engine.head_id or ""}
        if reason:
            fields["reason"] = reason
        return self._publish(sign(fields, signer))


@dataclass(eq=False, repr=False)  # internal: no comparison or display, and cheaper to define
class _Batch:
    """Messages being tried together: the replay so far, what is staged to write, each one's outcome."""

    work: Engine
    held_files: dict[str, Path]
    staged: dict[Path, Message] = field(default_factory=dict)  # path -> message, in the order to write
    staged_by_id: dict[str, Message] = field(default_factory=dict)
    status: dict[str, Outcome] = field(default_factory=dict)
    rolls: list[RollRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.base_seq = self.work.head_seq


def _queue_order(message: Message):
    rank = {"join": 0, "resign": 1, "reveal": 2, "move": 3}.get(message.type, 4)
    return (rank, message.fields.get("seq", 0), message.id)


def join(charter_path: Path, root: Path, signer: Signer, *, as_player: str | None = None,
         key_path: str = "", agent_path: str = "", home: Path | None = None) -> tuple[Game, Message | None]:
    """§4: take a charter, record who this player is, derive his seeds twice, sign his join."""
    if not Path(charter_path).is_file():
        raise UsageError(f"{charter_path} is not a file: give the game.toml the host mailed you", field="CHARTER")
    text = read_text(Path(charter_path), f"charter {charter_path}")
    charter = Charter.parse(text, str(charter_path))
    rulesets.load(charter.ruleset, charter.version).check_setup(rulesets.Setup.of(charter))
    member = charter.member(as_player) if as_player else charter.member_by_key(signer.public)
    if member is None:
        who = f"player {as_player!r}" if as_player else f"key {signer.public.fingerprint()}"
        raise UsageError(f"{who} is not in the roster of {charter.game}", field="players")
    if member.pubkey.raw != signer.public.raw:
        raise UsageError(f"this key is not {member.id}'s roster key ({member.pubkey.fingerprint()})",
                         player=member.id, field="--key")
    game_dir = GameDir(root)
    if game_dir.exists():
        current = Charter.parse(read_text(game_dir.charter_path, "charter game.toml"))
        if current.digest != charter.digest:
            raise UsageError(f"{root} already holds another game ({current.game})")
        known = Identity.load(game_dir)
        if known is not None and known.player != member.id:
            raise UsageError(f"{root} is {known.player}'s directory for this game, not {member.id}'s",
                             player=member.id, field="--dir")
    message = None
    if member.participant:
        # Seeds and the join first: if the key or agent fails, the directory is not half made.
        store = SeedStore(charter, member.id, home)
        seeds = store.derive(signer)
        message = sign({
            "pbem": 1, "type": "join", "game": charter.game, "player": member.id, "charter": charter.digest,
            "anchor": chain.anchor(seeds["chain"]).hex(), "hcommit": chain.anchor(seeds["hidden"]).hex(),
            "chain_length": chain.CHAIN_LENGTH,
        }, signer)
    with game_dir.lock():
        if not game_dir.exists():
            atomic_write(game_dir.charter_path, text.encode())
        Identity(member.id, key_path, agent_path).save(game_dir)
    game = Game(root, home=home)
    if message is not None:
        store = game.seed_store(member.id)
        with store.locked():
            store.start_record()
        game._publish(message)
    return game, message


def read_messages(data: str | bytes, source: str) -> list[Message]:
    """Every message in a file, a pasted text or a saved mail (parts and attachments), once each."""
    from . import mail
    from .message import find

    if isinstance(data, bytes):
        if mail.looks_like_mail(data):
            texts = mail.texts(data)
        else:
            try:
                texts = [data.decode("utf-8")]
            except UnicodeDecodeError:
                raise UnreadableInput(f"{source} is not UTF-8 text", kind=f"input {source}") from None
    else:
        texts = [data]
    found: dict[str, Message] = {}
    for text in texts:
        try:
            for message in find(text):
                found.setdefault(message.id, message)
        except PbemError as exc:
            raise exc.locate(kind=f"input {source}") from None
    if not found:
        raise NoMessage(f"no pbem message found in {source}", kind=f"input {source}")
    return list(found.values())


__all__ = ["FileSigner", "Game", "Identity", "SeedStore", "join", "read_messages"]


# --------------------------------------------------------------------------- what the reports show

def _deadline(since: str | None, hours: int) -> dict:
    if not since:
        return {}
    start = dt.datetime.fromisoformat(since)  # "…Z" is UTC; strptime would load _strptime at every status
    due = start + dt.timedelta(hours=hours)
    return {"since": since, "due": due.strftime("%Y-%m-%dT%H:%M:%SZ"), "overdue": bool(hours) and utc_now() > due}


def status(game: Game) -> dict:
    """Whose step it is, who owes a reveal for which entry since when, against the deadlines."""
    unfinished = game.finish_interrupted()
    engine = game.engine()
    me = game.identity
    data: dict = {
        "unfinished": [{"type": m.type, "seq": m.seq, "id": m.id} for m in unfinished],
        "finished": [{"type": m.type, "seq": m.seq, "id": m.id} for m in game.finished],
        "game": game.charter.game, "ruleset": game.charter.ruleset, "dice": game.charter.dice,
        "me": me.player if me else None, "head_seq": engine.head_seq, "head_id": engine.head_id,
        "held": len(game.dir.held()), "forks": [str(p) for p in game.dir.forks()],
        "disputes": _disputes_owed(game),
    }
    if not engine.started:
        data["step"] = {"kind": "joining", "waiting_for": engine.missing_joins()}
        return data
    if engine.roll is not None:
        reveals = game.reveals_at(engine)
        owed = [w for w in engine.roll.witnesses if w not in reveals]
        if owed:
            data["step"] = {"kind": "reveal", "seq": engine.roll.seq, "entry": engine.roll.entry,
                            "author": engine.roll.author, "witnesses": engine.roll.witnesses, "waiting_for": owed,
                            **_deadline(engine.roll.opened, game.charter.reveal_hours)}
            return data
    current, _ = game.current()
    data["standing"] = game.ruleset.standing(current.state)
    decision = sealing.open_decision(current)
    if decision is not None:
        data["step"] = _sealed_step(game, current, decision, engine.head_time, game.charter.move_hours)
        return data
    pending = current.pending()
    if isinstance(pending, rulesets.Over):
        closing = engine.roll is not None
        data["step"] = {"kind": "over", "result": pending.result}
        owed = game.owed_disclosures(current)
        if owed:
            data["step"]["disclosures_from"] = owed
        if closing:
            data["step"]["closing_entry_by"] = current.first_active()
        return data
    if isinstance(pending, rulesets.Decision):
        data["step"] = {"kind": "decision", "waiting_for": _next_to_sign(game, current, list(pending.players)),
                        "prompt": pending.prompt, **_deadline(engine.head_time, game.charter.move_hours)}
    return data


def _disputes_owed(game: Game) -> list[dict]:
    """The disputes this player raised that still wait for a disclosure reaching their seq."""
    disclosed = game.disclosures()
    return [d for d in game.disputes()
            if d["player"] not in disclosed or disclosed[d["player"]].fields["upto"] < d["seq"]]


def _sealed_step(game: Game, current: Engine, decision: sealing.OpenDecision, since: str | None, hours: int
                 ) -> dict:
    """Who owes a seal, then an unseal, for the open simultaneous decision; then who collects (§5)."""
    seals, unseals = sealing.stored(game, "seal", decision), sealing.stored(game, "unseal", decision)
    sealing_now = [p for p in decision.members if p not in seals]
    unsealing = [] if sealing_now else [p for p in decision.members if p not in unseals]
    leaving = frozenset(m.player for m in game._resign_messages().values())  # the collecting entry uses them
    collector = current.collector(leaving=leaving)
    return {"kind": "sealed", "seq": decision.seq, "members": decision.members, "prompt": decision.prompt,
            "collector": collector, "seals_from": sealing_now, "unseals_from": unsealing,
            "waiting_for": sealing_now or unsealing or [collector], **_deadline(since, hours)}


def _next_to_sign(game: Game, engine: Engine, deciding: list[str]) -> list[str]:
    """§5: a resign stored but not yet used by an entry, by a player whose decision is pending, hands
    the next entry (with only uses) to the first participant still playing."""
    leaving = {m.player for m in game._resign_messages().values() if m.player not in engine.resigned}
    if not leaving & set(deciding):
        return deciding
    staying = [m.id for m in game.charter.players if m.role in ("player", "referee")
               and m.id not in engine.resigned and m.id not in leaving]
    return staying[:1] or deciding
