"""Mail: reading messages out of mail (a saved .eml, a mailbox, a pasted body), and sending them.

The reading half needs only the standard library's email package; the sending half talks SMTP with
the player's settings (mail.toml in his app dir), and mailboxes are read as Maildir, mbox or IMAP.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import os
import re
import shlex
import subprocess
from dataclasses import asdict, dataclass, field, fields
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from .errors import UnreadableInput, UsageError
from .log import read_toml, write_toml

HEADER = re.compile(rb"^(?:From |[A-Za-z][A-Za-z0-9-]*: )")
# Control characters, and what str.splitlines() breaks at besides them: never in a header.
LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def looks_like_mail(raw: bytes) -> bool:
    head = raw.lstrip()[:2000]
    return bool(HEADER.match(head)) and b"\n\n" in raw.replace(b"\r\n", b"\n") and (
        b"Content-Type:" in head or b"MIME-Version:" in head or b"Subject:" in head)


def unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space continues on the next line of the
    same quote depth. Quote marks are kept, as '> ' per level, so quoted messages are still found."""
    lines: list[list] = []  # [depth, content]
    flowed = False
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffed, or the space after the quote marks
            content = content[1:]
        if flowed and lines and lines[-1][0] == depth:
            lines[-1][1] += content
        else:
            lines.append([depth, content])
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            lines[-1][1] = lines[-1][1][:-1]
    return "\n".join(("> " * depth) + content if depth else content for depth, content in lines)


def texts(raw: bytes) -> list[str]:
    """Every text part and attachment of a mail, transfer encoding undone, flowed text unwrapped.

    The standard parser fails on some malformed headers with whatever error its code hits
    (IndexError, UnboundLocalError …); such a mail is read again with the lenient legacy parser, and
    failing that as plain text, so a stranger's mail never stops a command."""
    for policy in (email.policy.default, email.policy.compat32):
        try:
            return _parts_text(email.message_from_bytes(raw, policy=policy))
        except Exception:  # any parser failure: try the next way of reading it
            continue
    return [_valid_text(raw.decode("utf-8", errors="replace").replace("\r\n", "\n"))]


def _parts_text(message) -> list[str]:
    parts = [part for part in message.walk() if not part.is_multipart()]
    has_plain = any(part.get_content_type() == "text/plain" for part in parts)
    found = []
    for part in parts:
        kind = part.get_content_type()
        if kind == "text/html" and has_plain:  # the plain alternative carries the same text
            continue
        filename = part.get_filename() or ""
        if not (kind.startswith("text/") or filename.endswith(".toml") or kind == "application/toml"):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):  # a multipart part decodes to nothing
            payload = b""
        text = _decode(payload, part.get_content_charset() or "utf-8").replace("\r\n", "\n")
        params = dict(part.get_params() or [])
        if str(params.get("format", "")).lower() == "flowed":
            text = unflow(text, str(params.get("delsp", "")).lower() == "yes")
        found.append(text)
    return found


def _decode(payload: bytes, charset: str) -> str:
    try:
        text = payload.decode(charset, errors="replace")
    except (LookupError, ValueError):  # an unknown charset, or a name Python cannot even look up
        text = payload.decode("utf-8", errors="replace")
    return _valid_text(text)


SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_text(text: str) -> str:
    """Text that encodes as UTF-8: a codec such as utf-7 can decode to lone surrogates, which become
    U+FFFD, so the mail simply holds no valid message there."""
    return SURROGATE.sub("\ufffd", text)


# --------------------------------------------------------------------------------------- sending

SECURITY = ("starttls", "tls", "none")


@dataclass
class MailSettings:
    """A player's outgoing mail, in his app dir (mail.toml). The password is never stored: it
    comes from an environment variable or a command such as `pass show mail/smtp`."""

    address: str
    smtp_host: str
    smtp_port: int = 587
    security: str = "starttls"
    user: str = ""
    password_env: str = ""
    password_command: str = ""

    @classmethod
    def path(cls, home: Path) -> Path:
        return home / "mail.toml"

    @classmethod
    def load(cls, home: Path) -> MailSettings:
        path = cls.path(home)
        if not path.exists():
            raise UsageError(f"no mail settings at {path}: run 'pbem mail setup' first", field="mail.toml")
        try:
            settings = cls(**read_toml(path, "mail settings"))
        except TypeError as exc:
            raise UnreadableInput(f"{path}: {exc}", field="mail.toml") from None
        for item in fields(settings):  # a hand-edited file may hold a string port, a number address …
            if not isinstance(getattr(settings, item.name), int if item.name == "smtp_port" else str):
                raise UnreadableInput(f"{path}: {item.name} has the wrong type", field=item.name)
        settings.check()
        return settings

    def check(self) -> None:
        if self.security not in SECURITY:
            raise UsageError(f"security is one of {', '.join(SECURITY)}", field="security")
        if "@" not in self.address or LINE_BREAKING.search(self.address):
            raise UsageError(f"{self.address!r} is not a mail address", field="address")

    def save(self, home: Path) -> Path:
        self.check()
        path = self.path(home)
        write_toml(path, {k: v for k, v in asdict(self).items() if v != ""}, 0o600)
        return path

    def password(self) -> str | None:
        if self.password_env:
            secret = os.environ.get(self.password_env)
            if secret is None:
                raise UsageError(f"the environment variable {self.password_env} holding the SMTP password is not set",
                                 field="password_env")
            return secret
        if self.password_command:
            run = subprocess.run(shlex.split(self.password_command), capture_output=True, text=True)
            if run.returncode != 0:
                raise UsageError(f"the password command failed: {run.stderr.strip() or run.returncode}",
                                 field="password_command")
            return run.stdout.rstrip("\n")
        return None


def thread_id(game: str, charter_digest: str) -> str:
    """The Message-ID every mail of a game replies to, so mail clients keep one thread."""
    return f"<pbem.{game}.{charter_digest[:16]}@pbem.invalid>"


SUBJECT_WIDTH = 69  # "Subject: " and this within 78 columns: a longer header is folded, a space kept


def subject(message, summary: str) -> str:
    """One short line, whatever the orders hold: a header may not contain a line break, so a note's
    newlines and other control characters become spaces, and a long summary is cut with an ellipsis
    (the mail's body holds every order)."""
    what = f"seq {message.seq} from {message.player}" if message.type == "move" else \
        f"{message.type} from {message.player}" + (f" for seq {message.seq}" if message.seq else "")
    line = f"[pbem {message.game}] {what}: {summary}" if summary else f"[pbem {message.game}] {what}"
    line = LINE_BREAKING.sub(" ", line)
    return line if len(line) <= SUBJECT_WIDTH else line[:SUBJECT_WIDTH - 1] + "…"


def compose(message, *, sender: str, recipients: list[str], summary: str, charter_digest: str) -> EmailMessage:
    """A plain-text body with a human summary and the message pasted, and the message attached."""
    mail = EmailMessage()
    mail["From"] = sender
    # Players with no address yet get it later ('pbem send --retry'); the empty group keeps To valid.
    mail["To"] = ", ".join(recipients) or "undisclosed-recipients:;"
    mail["Subject"] = subject(message, summary)
    mail["Date"] = formatdate(localtime=False, usegmt=True)
    domain = sender.rpartition("@")[2] or "pbem.invalid"
    mail["Message-ID"] = make_msgid(idstring=f"pbem.{message.id[:16]}", domain=domain)
    root = thread_id(message.game, charter_digest)
    mail["In-Reply-To"] = root
    mail["References"] = root
    mail["X-Pbem-Game"] = message.game
    text = message.stored().decode()
    intro = f"{summary}\n\n" if summary else ""
    body = (f"{intro}The signed pbem message follows; 'pbem apply' or 'pbem inbox' reads it from this mail.\n\n"
            f"{text}")
    mail.set_content(body, cte="quoted-printable")
    seq = f"{message.seq:06d}-" if message.seq is not None else ""
    mail.add_attachment(message.stored(), maintype="application", subtype="toml",
                        filename=f"{seq}{message.type}-{message.player}.toml")
    return mail


@dataclass
class Delivery:
    """What one send did: who got the mail, who did not and why."""

    delivered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def send(mail: EmailMessage, settings: MailSettings, recipients: list[str], timeout: float = 30) -> Delivery:
    """Hand the mail to the player's server; who got it, and for the others the reason in words."""
    import smtplib
    import ssl

    delivery = Delivery()
    try:
        secret = settings.password()
    except UsageError as exc:  # the message is signed and queued all the same: 'pbem send --retry' later
        delivery.failed = {r: exc.message for r in recipients}
        return delivery
    try:
        server: smtplib.SMTP
        if settings.security == "tls":
            server = smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port, timeout=timeout,
                                      context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=timeout)
        with server:
            if settings.security == "starttls":
                server.starttls(context=ssl.create_default_context())
            if settings.user and secret is not None:
                server.login(settings.user, secret)
            refused = server.send_message(mail, from_addr=settings.address, to_addrs=recipients)
    except smtplib.SMTPRecipientsRefused as exc:
        refused = exc.recipients  # every recipient refused: the same shape as a partial refusal
    except (OSError, smtplib.SMTPException) as exc:
        reason = failure_reason(exc, settings)
        delivery.failed = {r: reason for r in recipients}
        return delivery
    delivery.failed = {r: _answer(code, text) for r, (code, text) in refused.items()}
    delivery.delivered = [r for r in recipients if r not in delivery.failed]
    return delivery


def _answer(code: int, text: bytes | str) -> str:
    """An SMTP reply as the server wrote it: '550 no such mailbox here'."""
    return f"{code} {text.decode(errors='replace') if isinstance(text, bytes) else text}"


def failure_reason(exc: Exception, settings: MailSettings) -> str:
    """Why a send failed, in words a player can act on: the server's own answer when it gave one."""
    import smtplib
    import socket
    import ssl

    server = f"{settings.smtp_host}:{settings.smtp_port}"
    if isinstance(exc, smtplib.SMTPResponseException):  # a refused sender, TLS required, a bad login …
        return _answer(exc.smtp_code, exc.smtp_error)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return f"{server} does not offer STARTTLS (choose --security tls or none in 'pbem mail setup')"
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused by {server}"
    if isinstance(exc, socket.gaierror):
        return f"cannot find the server {settings.smtp_host}: {exc.strerror}"
    if isinstance(exc, TimeoutError):
        return f"no answer from {server}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS with {server} failed: {exc.reason or exc}"
    return f"{server}: {exc or type(exc).__name__}"


# --------------------------------------------------------------------------------------- mailboxes

def mail_key(raw: bytes) -> str:
    """What marks a mail as handled: its Message-ID, or the hash of its bytes when it has none or
    its headers cannot be parsed."""
    return _message_id(raw) or "sha256:" + hashlib.sha256(raw).hexdigest()


def _message_id(raw: bytes) -> str:
    try:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        return str(message.get("Message-ID") or "").strip()
    except Exception:  # the parser fails on malformed headers (<@>, <a@[) with assorted errors
        return ""


def read_maildir(path: Path):
    import mailbox

    if not (Path(path) / "cur").is_dir() and not (Path(path) / "new").is_dir():
        raise UsageError(f"{path} is not a Maildir (no cur/ or new/)", field="--maildir")
    box = mailbox.Maildir(str(path), factory=None, create=False)
    for key in sorted(box.keys()):
        yield box.get_bytes(key)


def read_mbox(path: Path):
    import mailbox

    if not Path(path).is_file():
        raise UsageError(f"{path} is not an mbox file", field="--mbox")
    box = mailbox.mbox(str(path), factory=None, create=False)
    for key in box.keys():  # noqa: SIM118 (iterating an mbox yields messages, not keys)
        yield box.get_bytes(key)


def read_imap(host: str, port: int, user: str, password: str | None, folder: str, security: str):
    """Every mail of an IMAP folder, read without marking it seen (handled mail is recorded locally)."""
    import imaplib
    import ssl

    try:
        client: imaplib.IMAP4
        if security == "tls":
            client = imaplib.IMAP4_SSL(host, port, ssl_context=ssl.create_default_context())
        else:
            client = imaplib.IMAP4(host, port)
            if security == "starttls":
                client.starttls(ssl_context=ssl.create_default_context())
        with client:
            client.login(user, password or "")
            status, _ = client.select(folder, readonly=True)
            if status != "OK":
                raise UsageError(f"no IMAP folder {folder!r}", field="--folder")
            _, found = client.uid("SEARCH", "ALL")
            for uid in (found[0] or b"").split():
                _, parts = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
                for part in parts:
                    if isinstance(part, tuple):
                        yield part[1]
    except (OSError, imaplib.IMAP4.error) as exc:
        raise UsageError(f"IMAP {host}:{port}: {exc}", field="--imap") from None
