"""The charter, game.toml (docs/protocol.md §4): roster, options, dice policy, deadlines, tables."""

from __future__ import annotations

import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from typing import NamedTuple

from .errors import UnreadableInput, UsageError
from .keys import PublicKey
from .message import BOM, HEX64, NAME, normalise

DICE_POLICIES = ("all", "opponents", "referee", "open")
ROLES = ("player", "referee", "observer")
MAX_HOURS = 24 * 366  # a deadline of a year at most
TOP_KEYS = ("pbem", "game", "nonce", "ruleset", "version", "scenario", "dice", "reveal_hours",
            "move_hours", "options", "tables", "players")


class Member(NamedTuple):
    id: str
    sides: tuple[str, ...]
    pubkey: PublicKey
    role: str

    @property
    def participant(self) -> bool:
        return self.role in ("player", "referee")


@dataclass
class Charter:
    game: str
    nonce: str
    ruleset: str
    version: str
    scenario: str
    dice: str
    reveal_hours: int
    move_hours: int
    options: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    players: list[Member] = field(default_factory=list)
    text: str = ""  # exactly as received: the digest is over its normalised bytes

    @functools.cached_property
    def digest(self) -> str:  # read for every entry of a replay: computed once
        return hashlib.sha256(normalise(self.text)).hexdigest()

    @property
    def participants(self) -> list[Member]:
        return [m for m in self.players if m.participant]

    @property
    def first_player(self) -> Member:
        return next(m for m in self.players if m.role == "player")

    def member(self, player_id: str) -> Member | None:
        return next((m for m in self.players if m.id == player_id), None)

    def position(self, player_id: str) -> int:
        return next(i for i, m in enumerate(self.players) if m.id == player_id)

    def seat(self, player_id: str) -> Member:
        """The roster entry of a player the caller knows is in the roster."""
        member = self.member(player_id)
        if member is None:
            raise UsageError(f"{player_id} is not in the roster of {self.game}", player=player_id, field="players")
        return member

    def member_by_key(self, public: PublicKey) -> Member | None:
        return next((m for m in self.players if m.pubkey.raw == public.raw), None)

    @classmethod
    def parse(cls, text: str, source: str = "game.toml") -> Charter:
        def bad(why: str, key: str | None = None) -> UnreadableInput:
            return UnreadableInput(why, kind=f"charter {source}", field=key)

        text = text.removeprefix(BOM)  # a charter saved by a Windows editor

        try:
            data = tomllib.loads(text)
        except ValueError as exc:  # not TOML, or an integer beyond Python's digit limit
            raise bad(f"malformed TOML: {exc}") from None
        except RecursionError:
            raise bad("malformed TOML: nested too deeply") from None
        for key in data:
            if key not in TOP_KEYS:
                raise bad("unknown key", key)
        if data.get("pbem") != 1:
            raise bad("must be 1 (protocol version)", "pbem")
        for key in ("game", "ruleset", "scenario"):
            if not isinstance(data.get(key), str) or not NAME.fullmatch(data[key]):
                raise bad("must be a name matching [a-z][a-z0-9_-]{0,31}", key)
        if not isinstance(data.get("nonce"), str) or not HEX64.fullmatch(data["nonce"]):
            raise bad("must be 64 lowercase hex digits", "nonce")
        if not isinstance(data.get("version"), str):
            raise bad("must be a version string", "version")
        if data.get("dice") not in DICE_POLICIES:
            raise bad(f"must be one of {', '.join(DICE_POLICIES)}", "dice")
        for key in ("reveal_hours", "move_hours"):
            value = data.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_HOURS:
                raise bad(f"must be a whole number of hours, at most {MAX_HOURS}", key)
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise bad("must be a table", "options")
        tables = data.get("tables", {})
        if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
            raise bad("must hold [tables.NAME] tables", "tables")
        players = []
        if not isinstance(data.get("players", []), list):
            raise bad("must be [[players]] tables", "players")
        for index, entry in enumerate(data.get("players", []), 1):
            where = f"players[{index}]"
            if not isinstance(entry, dict) or set(entry) - {"id", "sides", "pubkey", "role"}:
                raise bad("a player has id, sides, pubkey and role only", where)
            pid = entry.get("id")
            if not isinstance(pid, str) or not NAME.fullmatch(pid):
                raise bad("id must be a name", f"{where}.id")
            sides = entry.get("sides", [])
            if not isinstance(sides, list) or not all(isinstance(s, str) and NAME.fullmatch(s) for s in sides):
                raise bad("sides must be a list of names", f"{where}.sides")
            role = entry.get("role", "player")
            if role not in ROLES:
                raise bad(f"role must be one of {', '.join(ROLES)}", f"{where}.role")
            try:
                pubkey = PublicKey.parse(str(entry.get("pubkey", "")), field=f"{where}.pubkey")
            except UsageError as exc:
                raise bad(exc.message, f"{where}.pubkey") from None
            players.append(Member(pid, tuple(sides), pubkey, role))
        ids = [m.id for m in players]
        if len(set(ids)) != len(ids):
            raise bad("a player id appears twice", "players")
        keys = [m.pubkey.raw for m in players]
        if len(set(keys)) != len(keys):
            raise bad("two players share one key", "players")
        if not any(m.role == "player" for m in players):
            raise bad("the roster needs at least one player", "players")
        return cls(
            game=data["game"], nonce=data["nonce"], ruleset=data["ruleset"], version=data["version"],
            scenario=data["scenario"], dice=data["dice"], reveal_hours=data["reveal_hours"],
            move_hours=data["move_hours"], options=options, tables=tables, players=players, text=text,
        )

    @classmethod
    def create(cls, *, game: str, ruleset: str, version: str, scenario: str, dice: str,
               reveal_hours: int, move_hours: int, options: dict, tables: dict,
               players: list[Member]) -> Charter:
        """A new charter with a fresh nonce, written in the key order of §4 and parsed back."""
        import secrets

        import tomli_w

        document = {
            "pbem": 1, "game": game, "nonce": secrets.token_hex(32), "ruleset": ruleset,
            "version": version, "scenario": scenario, "dice": dice, "reveal_hours": reveal_hours,
            "move_hours": move_hours,
        }
        if options:
            document["options"] = options
        if tables:
            document["tables"] = tables
        document["players"] = [
            {"id": m.id, "sides": list(m.sides), "pubkey": m.pubkey.line(), "role": m.role} for m in players
        ]
        return cls.parse(tomli_w.dumps(document))
