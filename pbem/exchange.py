"""Moves by mail: who gets a message, sending with a queue for failures, and the inbox.

    addresses.toml   in the game directory: player = "address" (local, may change mid-game)
    mailq/           mails that some recipients did not get yet: ID.eml and ID.toml (who is left: their
                     addresses, or the ids of players who had no address yet)
    inbox.toml       mails `pbem inbox` has read: applied, held, or refused for good
"""

from __future__ import annotations

import email
import email.policy
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.utils import getaddresses
from pathlib import Path

from . import mail
from .errors import ChainBroken, DiskError, Locked, NoMessage, NotDelivered, PbemError, UnreadableInput, UsageError
from .game import ApplyReport, Game, read_messages
from .keys import app_dir
from .log import atomic_write, disk_error, read_toml, remove, write_toml
from .message import Message

ADDRESSES = "addresses.toml"
QUEUE = "mailq"
INBOX = "inbox.toml"


def addresses(game: Game) -> dict[str, str]:
    path = game.dir.root / ADDRESSES
    if not path.exists():
        return {}
    return {k: v for k, v in read_toml(path, "addresses").items() if isinstance(v, str)}


def set_address(game: Game, player: str, address: str) -> None:
    if game.charter.member(player) is None:
        raise UsageError(f"{player} is not in the roster of {game.charter.game}", field="PLAYER")
    if "@" not in address or mail.LINE_BREAKING.search(address):  # it goes into the To header
        raise UsageError(f"{address!r} is not a mail address", field="ADDRESS")
    known = addresses(game)
    known[player] = address
    write_toml(game.dir.root / ADDRESSES, dict(sorted(known.items())))


def recipients(game: Game, message: Message, sender: str) -> list[str]:
    """Every other member of the roster, and for a reveal its revealer too (§6): each by his address,
    or by his player id while addresses.toml has none for him (he gets it from 'pbem send --retry')."""
    book = addresses(game)
    found = [book.get(m.id, m.id) for m in game.charter.players if m.id != message.player]
    if message.type == "reveal":
        for own in (book.get(message.player), sender):
            if own and own not in found:
                found.append(own)
    return found


def _no_address(player: str) -> str:
    return f"no address yet: 'pbem mail address {player} ADDRESS'"


@dataclass
class Posted:
    message: Message
    delivery: mail.Delivery
    queued: Path | None = None


def sending_settings(game: Game, messages: list[Message]) -> mail.MailSettings:
    """The player's mail settings. Without them the messages are signed and stored but cannot be
    mailed, and the error says so (exit 8) rather than passing for a mistake in the command."""
    try:
        return mail.MailSettings.load(app_dir())
    except (UsageError, UnreadableInput) as exc:  # none yet, or a damaged mail.toml
        first = messages[0]
        path = game.dir.outbox_path(first)
        raise NotDelivered(f"signed and stored in {path}, but not mailed: {exc.message}; then 'pbem send {path}'",
                           **first.context()) from None


def post(game: Game, message: Message, settings: mail.MailSettings) -> Posted:
    """Mail a signed message to the others; whoever did not get it stays queued in mailq/."""
    left = recipients(game, message, settings.address)
    summary = "; ".join(game.ruleset.summary(o) for o in message.orders)
    composed = mail.compose(message, sender=settings.address, recipients=[r for r in left if "@" in r],
                            summary=summary, charter_digest=game.charter.digest)
    delivery = _deliver(game, composed, settings, left)
    queued = _queue(game, composed, list(delivery.failed)) if delivery.failed else None
    return Posted(message, delivery, queued)


def _deliver(game: Game, composed, settings: mail.MailSettings, left: list[str]) -> mail.Delivery:
    """Send to whoever is left; a player who had no address is looked up again, as it may be set now."""
    book = addresses(game)
    left = [who if "@" in who else book.get(who, who) for who in left]
    to = [who for who in left if "@" in who]
    delivery = mail.send(composed, settings, to) if to else mail.Delivery()
    delivery.failed.update({who: _no_address(who) for who in left if "@" not in who})
    return delivery


def _queue(game: Game, composed, left: list[str]) -> Path:
    """The recipients are written before the mail: a run killed in between leaves no mail without
    them (a list without its mail is ignored; the journal names the message to the next command)."""
    name = hashlib.sha256(composed["Message-ID"].encode()).hexdigest()[:20]
    folder = game.dir.root / QUEUE
    write_toml(folder / f"{name}.toml", {"recipients": left})
    atomic_write(folder / f"{name}.eml", bytes(composed))
    return folder / f"{name}.eml"


def retry(game: Game, settings: mail.MailSettings) -> list[Posted]:
    """Send what mailq/ holds to the recipients that did not get it; keep what fails again."""
    folder = game.dir.root / QUEUE
    results = []
    for queued in sorted(folder.glob("*.eml")) if folder.exists() else []:
        sidecar = queued.with_suffix(".toml")
        raw = _read(queued)
        composed = email.message_from_bytes(raw, policy=email.policy.default)
        message = read_messages(raw, str(queued))[0]
        left = _still_left(sidecar, composed) or recipients(game, message, settings.address)
        delivery = _deliver(game, composed, settings, left)
        if delivery.failed:
            write_toml(sidecar, {"recipients": list(delivery.failed)})
            results.append(Posted(message, delivery, queued))
        else:
            remove(queued)  # the mail before its list, so no mail is ever left without one
            remove(sidecar)
            results.append(Posted(message, delivery))
    return results


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise disk_error(exc, "read", path) from None


def _still_left(sidecar: Path, composed) -> list[str]:
    """Who has not got a queued mail: its list, or, should the list be lost, everyone in its To header
    (empty when no player had an address: the caller then sends to the roster). Never nobody."""
    if not sidecar.exists():
        return [address for _, address in getaddresses(composed.get_all("To", [])) if "@" in address]
    left = read_toml(sidecar, "mail queue").get("recipients")
    if not isinstance(left, list) or not all(isinstance(who, str) for who in left):
        raise UnreadableInput(f"{sidecar} is damaged (no list of recipients); restore it from a backup or "
                              "remove it", kind="mail queue")
    return left


def check_delivered(posted: list[Posted]) -> None:
    """NotDelivered (exit 8) if anyone did not get a message: it is signed and stored all the same,
    and waits in mailq/ for 'pbem send --retry'."""
    missed = [p for p in posted if p.delivery.failed]
    if not missed:
        return
    first = missed[0]
    whom = ", ".join(f"{who} ({why})" for who, why in first.delivery.failed.items())
    more = f"; {len(missed) - 1} more message(s) wait there too" if len(missed) > 1 else ""
    raise NotDelivered(f"signed and stored, but not delivered to {whom}; queued in {QUEUE}/ for "
                       f"'pbem send --retry'{more}", **first.message.context())


# ------------------------------------------------------------------------------------------ inbox

@dataclass
class Refusal:
    """A mail whose messages were refused; `final` when it can never apply, so it is marked read."""

    mail: str
    error: PbemError
    final: bool


@dataclass
class InboxReport:
    applied: dict[str, ApplyReport] = field(default_factory=dict)  # game dir -> what was applied
    new_mails: int = 0
    skipped: int = 0  # mails already read, or holding no message for these games
    refused: list[Refusal] = field(default_factory=list)
    reveals: list[Posted | Message] = field(default_factory=list)
    unseals: list[Posted | Message] = field(default_factory=list)


def _handled(game: Game) -> set[str]:
    path = game.dir.root / INBOX
    if not path.exists():
        return set()
    handled = read_toml(path, "inbox record").get("handled", [])
    if not isinstance(handled, list) or not all(isinstance(key, str) for key in handled):
        raise UnreadableInput(f"{path} is damaged (no list of handled mails); restore it from a backup or "
                              "remove it", kind="inbox record")
    return set(handled)


def _remember(game: Game, keys: Iterable[str]) -> None:
    with game.dir.lock():
        handled = sorted(_handled(game) | set(keys))
        write_toml(game.dir.root / INBOX, {"handled": handled})


def inbox(games: list[Game], mails: Iterable[bytes], *, auto_reveal: bool = False, auto_unseal: bool = False,
          signer_factory: Callable | None = None, settings: mail.MailSettings | None = None) -> InboxReport:
    """Apply every pbem message found in the mails, in log order, for the games given.

    A mail is read once: its Message-ID goes into the game's inbox.toml when its messages applied,
    were held (held/ retries them) or were refused for good. A mail refused for a reason that may
    clear (a lock, a disk error, a game stopped by a fork in another mail) is left for the next run."""
    by_game = {game.charter.game: game for game in games}
    report = InboxReport()
    pending: dict[str, list[tuple[str, list[Message]]]] = {name: [] for name in by_game}
    handled = {name: _handled(game) for name, game in by_game.items()}
    unreadable: list[str] = []  # of no known game: marked read in every game here
    for raw in mails:
        key = mail.mail_key(raw)
        if all(key in seen for seen in handled.values()):
            report.skipped += 1
            continue
        try:
            messages = read_messages(raw, key)
        except NoMessage:
            report.skipped += 1
            continue
        except PbemError as exc:
            report.refused.append(Refusal(key, exc, final=True))
            unreadable.append(key)
            continue
        for name in {m.game for m in messages}:
            if name not in by_game or key in handled[name]:
                report.skipped += 1
                continue
            pending[name].append((key, [m for m in messages if m.game == name]))
            report.new_mails += 1
    for name, batch in pending.items():
        game = by_game[name]
        applied, refused = _apply(game, batch) if batch else (None, [])
        report.refused += refused
        if any(isinstance(r.error, (Locked, DiskError)) for r in refused):
            continue  # nothing of this game can be written now: every mail of it waits for the next run
        if applied is not None:
            game.completed_roll(applied)
            report.applied[str(game.dir.root)] = applied
        later = {r.mail for r in refused if not r.final}
        read = [key for key, _ in batch if key not in later] + unreadable
        if read:
            _remember(game, read)
        if auto_reveal and signer_factory is not None:
            _answer_as_witness(game, signer_factory, settings, report)
        if auto_unseal and signer_factory is not None:
            _answer_as_member(game, signer_factory, settings, report)
    return report


def _answer_as_member(game: Game, signer_factory: Callable, settings, report: InboxReport) -> None:
    """--auto-unseal: once every member of the open simultaneous decision has sealed, open our seal
    and mail the unseal (it stays in journal/ until mailed or queued)."""
    me = game.identity.player if game.identity else None
    if not me or game.owed_sealed(me) != "unseal":
        return
    game.announce_later = True
    unsealed, _ = game.unseal(me, signer_factory())
    report.unseals.append(post(game, unsealed, settings) if settings else unsealed)
    game.announced()


def _answer_as_witness(game: Game, signer_factory: Callable, settings, report: InboxReport) -> None:
    """--auto-reveal: mail a reveal an interrupted run stored but never sent, then any reveal owed now.
    Each stays in journal/ until it was mailed or queued, so a run killed while sending resends it."""
    game.announce_later = True
    game.finish_interrupted()
    unsent = [m for m in game.finished if m.type == "reveal"]
    me = game.identity.player if game.identity else None
    if me and game.owed_reveal(me) is not None:
        revealed, _ = game.reveal(me, signer_factory)
        unsent.append(revealed)
    for message in unsent:
        report.reveals.append(post(game, message, settings) if settings else message)
    game.announced()


def _apply(game: Game, batch: list[tuple[str, list[Message]]]) -> tuple[ApplyReport, list[Refusal]]:
    """One game's new mails: all at once, or mail by mail when some are refused."""
    try:
        applied = game.accept_batches(batch)
    except PbemError as exc:  # one mail alone, a fork that stops the game, a lock or a disk error
        applied = ApplyReport(refused=[(key, _blame(exc, messages)) for key, messages in batch])
    stopped = bool(game.dir.forks())
    by_key = dict(batch)
    return applied, [Refusal(key, error, _final(error, by_key[key], stopped)) for key, error in applied.refused]


def _blame(error: PbemError, messages: list[Message]) -> PbemError:
    """A fork refuses every mail of the run: the others are refused because the game stopped, not as forks."""
    if isinstance(error, ChainBroken) and error.proof and not _holds(messages, error.proof):
        return ChainBroken("not applied: a fork in another mail stopped the game", kind="game")
    return error


def _holds(messages: list[Message], ids: Iterable[str]) -> bool:
    return bool({m.id for m in messages} & set(ids))


def _final(error: PbemError, messages: list[Message], stopped: bool) -> bool:
    """Whether a refused mail can never apply: a bad signature, unreadable text, another game or
    history, an illegal order, or the fork it carries. A lock or a disk error may clear, and a
    stopped game checks nothing, so mails refused for those are read again on the next run."""
    if isinstance(error, (Locked, DiskError)):
        return False
    if stopped and isinstance(error, ChainBroken):
        return _holds(messages, error.proof)
    return True
