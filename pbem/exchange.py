"""Moves by mail: who gets a message, sending with a queue for failures, and the inbox.

    addresses.toml   in the game directory: player = "address" (local, may change mid-game)
    mailq/           mails that some recipients did not get yet: ID.eml and ID.toml (who is left)
    inbox.toml       mails already handled from a mailbox, so a second `pbem inbox` does nothing
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import tomli_w

from . import mail
from .errors import PbemError, UsageError
from .game import ApplyReport, Game, read_messages
from .log import atomic_write
from .message import Message

ADDRESSES = "addresses.toml"
QUEUE = "mailq"
INBOX = "inbox.toml"


def addresses(game: Game) -> dict[str, str]:
    path = game.dir.root / ADDRESSES
    if not path.exists():
        return {}
    return {k: v for k, v in tomllib.loads(path.read_text()).items() if isinstance(v, str)}


def set_address(game: Game, player: str, address: str) -> None:
    if game.charter.member(player) is None:
        raise UsageError(f"{player} is not in the roster of {game.charter.game}", field="PLAYER")
    if "@" not in address:
        raise UsageError(f"{address!r} is not a mail address", field="ADDRESS")
    known = addresses(game)
    known[player] = address
    atomic_write(game.dir.root / ADDRESSES, tomli_w.dumps(dict(sorted(known.items()))).encode())


def recipients(game: Game, message: Message, sender: str) -> list[str]:
    """Every other member of the roster; a reveal also goes to its revealer's own address (§6)."""
    book = addresses(game)
    wanted = [m.id for m in game.charter.players if m.id != message.player or message.type == "reveal"]
    missing = [p for p in wanted if p not in book and not (p == message.player and message.type == "reveal")]
    if missing:
        raise UsageError(f"no address for {', '.join(missing)}: 'pbem mail address PLAYER ADDRESS'",
                         field=ADDRESSES)
    found = [book[p] for p in wanted if p in book]
    if message.type == "reveal" and sender not in found:
        found.append(sender)
    return found


@dataclass
class Posted:
    message: Message
    delivery: mail.Delivery
    queued: Path | None = None


def post(game: Game, message: Message, settings: mail.MailSettings) -> Posted:
    """Mail a signed message to the others; whoever did not get it stays queued in mailq/."""
    to = recipients(game, message, settings.address)
    summary = "; ".join(game.ruleset.summary(o) for o in message.orders)
    composed = mail.compose(message, sender=settings.address, recipients=to, summary=summary,
                            charter_digest=game.charter.digest)
    delivery = mail.send(composed, settings, to)
    queued = _queue(game, composed, list(delivery.failed)) if delivery.failed else None
    return Posted(message, delivery, queued)


def _queue(game: Game, composed, left: list[str]) -> Path:
    name = hashlib.sha256(composed["Message-ID"].encode()).hexdigest()[:20]
    folder = game.dir.root / QUEUE
    atomic_write(folder / f"{name}.eml", bytes(composed))
    atomic_write(folder / f"{name}.toml", tomli_w.dumps({"recipients": left}).encode())
    return folder / f"{name}.eml"


def retry(game: Game, settings: mail.MailSettings) -> list[mail.Delivery]:
    """Send what mailq/ holds to the recipients that did not get it; keep what fails again."""
    folder = game.dir.root / QUEUE
    results = []
    for queued in sorted(folder.glob("*.eml")) if folder.exists() else []:
        sidecar = queued.with_suffix(".toml")
        left = tomllib.loads(sidecar.read_text())["recipients"] if sidecar.exists() else []
        composed = email.message_from_bytes(queued.read_bytes(), policy=email.policy.default)
        delivery = mail.send(composed, settings, left)
        results.append(delivery)
        if delivery.failed:
            atomic_write(sidecar, tomli_w.dumps({"recipients": list(delivery.failed)}).encode())
        else:
            queued.unlink()
            sidecar.unlink(missing_ok=True)
    return results


# ------------------------------------------------------------------------------------------ inbox

@dataclass
class InboxReport:
    applied: dict[str, ApplyReport] = field(default_factory=dict)  # game dir -> what was applied
    new_mails: int = 0
    skipped: int = 0  # mails already handled, or holding no message for these games
    rejected: list[str] = field(default_factory=list)  # one line per refused mail
    reveals: list[Posted | Message] = field(default_factory=list)


def _handled(game: Game) -> set[str]:
    path = game.dir.root / INBOX
    return set(tomllib.loads(path.read_text()).get("handled", [])) if path.exists() else set()


def _remember(game: Game, keys: Iterable[str]) -> None:
    with game.dir.lock():
        handled = sorted(_handled(game) | set(keys))
        atomic_write(game.dir.root / INBOX, tomli_w.dumps({"handled": handled}).encode())


def inbox(games: list[Game], mails: Iterable[bytes], *, auto_reveal: bool = False,
          signer_factory: Callable | None = None, settings: mail.MailSettings | None = None) -> InboxReport:
    """Apply every pbem message found in the mails, in log order, for the games given.

    Each mail is handled once: its Message-ID is recorded in the game's inbox.toml whether its
    messages applied, were held (held/ retries them) or were refused (reported)."""
    by_game = {game.charter.game: game for game in games}
    report = InboxReport()
    pending: dict[str, list[tuple[str, list[Message]]]] = {name: [] for name in by_game}
    handled = {name: _handled(game) for name, game in by_game.items()}
    for raw in mails:
        key = mail.mail_key(raw)
        try:
            messages = read_messages(raw, key)
        except PbemError as exc:
            if "no pbem message" in exc.message:
                report.skipped += 1
                continue
            report.rejected.append(f"mail {key}: {exc}")
            continue
        for name in {m.game for m in messages}:
            if name not in by_game or key in handled[name]:
                report.skipped += 1
                continue
            pending[name].append((key, [m for m in messages if m.game == name]))
            report.new_mails += 1
    for name, batch in pending.items():
        if not batch:
            continue
        game = by_game[name]
        everything = [m for _, messages in batch for m in messages]
        try:
            report.applied[str(game.dir.root)] = game.accept(everything)
        except PbemError:
            # One bad message must not hold up the good ones: apply mail by mail, in log order.
            combined = ApplyReport()
            for key, messages in sorted(batch, key=lambda item: min(m.seq or 0 for m in item[1])):
                try:
                    one = game.accept(messages)
                except PbemError as exc:
                    report.rejected.append(f"mail {key}: {exc}")
                    continue
                combined.outcomes += one.outcomes
                combined.rolls += one.rolls
            report.applied[str(game.dir.root)] = combined
        _remember(game, [key for key, _ in batch])
        if auto_reveal and signer_factory is not None:
            me = game.identity.player if game.identity else None
            if me and game.owed_reveal(me) is not None:
                revealed, _ = game.reveal(me, signer_factory)
                report.reveals.append(post(game, revealed, settings) if settings else revealed)
    return report
