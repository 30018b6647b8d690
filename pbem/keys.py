"""Ed25519 SSH keys: generate, load (file or ssh-agent), fingerprint, sign (docs/protocol.md §2)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, Protocol

from . import sshsig
from .errors import BadSignature, UsageError

DEFAULT_KEY_NAME = "id_ed25519"


def app_dir() -> Path:
    """The user's pbem directory: keys, seed caches and reveal records (PBEM_HOME overrides)."""
    override = os.environ.get("PBEM_HOME")
    if override:
        return Path(override)
    import typer  # imported late: most commands never need the app dir

    return Path(typer.get_app_dir("pbem"))


def default_key_path() -> Path:
    return app_dir() / DEFAULT_KEY_NAME


class PublicKey(NamedTuple):  # a NamedTuple: immutable, and quicker to define than a dataclass
    raw: bytes  # the 32-byte Ed25519 public key
    comment: str = ""

    @classmethod
    def parse(cls, line: str, *, field: str = "pubkey") -> PublicKey:
        parts = line.strip().removeprefix("\ufeff").split(None, 2)  # a Windows editor's BOM is no part of it
        if len(parts) < 2:
            raise UsageError("not an OpenSSH public key line ('ssh-ed25519 AAAA… comment')", field=field)
        key_type, data = parts[0], parts[1]
        if key_type.startswith("sk-"):
            raise UsageError(
                f"{key_type} keys are refused: their signatures are not deterministic (PROTOCOL §2)",
                field=field,
            )
        if key_type != sshsig.KEY_TYPE:
            raise UsageError(f"{key_type} keys are not supported; use an Ed25519 key", field=field)
        try:
            blob = base64.b64decode(data, validate=True)
            name, offset = sshsig.read_string(blob, 0)
            raw, end = sshsig.read_string(blob, offset)
        except (binascii.Error, ValueError, BadSignature):
            raise UsageError("public key data is not valid base64 of an Ed25519 key", field=field) from None
        if name != sshsig.KEY_TYPE.encode() or len(raw) != 32 or end != len(blob):
            raise UsageError("public key data is not an Ed25519 key", field=field)
        return cls(raw, parts[2].strip() if len(parts) > 2 else "")

    def blob(self) -> bytes:
        return sshsig.public_key_blob(self.raw)

    def line(self) -> str:
        text = f"{sshsig.KEY_TYPE} {base64.b64encode(self.blob()).decode()}"
        return f"{text} {self.comment}" if self.comment else text

    def fingerprint(self) -> str:
        digest = hashlib.sha256(self.blob()).digest()
        return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")

    def fingerprint_line(self) -> str:
        """Exactly what `ssh-keygen -lf` prints for this key."""
        return f"256 {self.fingerprint()} {self.comment or 'no comment'} (ED25519)"


class Signer(Protocol):
    public: PublicKey

    def sign(self, data: bytes, namespace: str) -> bytes:
        """The binary SSHSIG blob over `data`."""


class FileSigner:
    """A private key held in memory, loaded from an OpenSSH key file."""

    def __init__(self, private_key, comment: str = "") -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = private_key
        raw = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = PublicKey(raw, comment)

    @classmethod
    def from_seed(cls, seed: bytes, comment: str = "") -> FileSigner:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(seed), comment)

    @classmethod
    def load(cls, path: Path, passphrase: Callable[[], str | None] | None = None) -> FileSigner:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read key {path}: {exc.strerror}", field="--key") from None
        comment = _comment_of(Path(str(path) + ".pub"))
        password = None
        for attempt in range(2):
            try:
                key = serialization.load_ssh_private_key(data, password)
                break
            except TypeError:  # encrypted and no password given, the first time round
                if attempt or passphrase is None:
                    raise UsageError(
                        f"key {path} is passphrase-protected: give the passphrase "
                        "(prompt, or PBEM_PASSPHRASE)",
                        field="--key",
                    ) from None
                secret = passphrase()
                if not secret:
                    raise UsageError(f"key {path} is passphrase-protected and no passphrase was given: set "
                                     "PBEM_PASSPHRASE, or run pbem where it can ask you (a terminal)",
                                     field="--key") from None
                password = secret.encode()
            except ValueError as exc:
                if password is not None:
                    raise UsageError(f"wrong passphrase for key {path}", field="--key") from None
                raise UsageError(f"{path} is not an OpenSSH private key ({exc})", field="--key") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise UsageError(f"{path} is not an Ed25519 key; pbem signs with Ed25519 only", field="--key")
        return cls(key, comment)

    def sign(self, data: bytes, namespace: str) -> bytes:
        signature = self._key.sign(sshsig.signed_data(data, namespace))
        return sshsig.assemble(self.public.raw, namespace, signature)


class AgentSigner:
    """Signs through the user's ssh-agent with `ssh-keygen -Y sign -f KEY.pub` (PROTOCOL §2)."""

    def __init__(self, public_path: Path) -> None:
        self.public_path = Path(public_path)
        try:
            self.public = PublicKey.parse(self.public_path.read_text(), field="--agent")
        except OSError as exc:
            raise UsageError(f"cannot read public key {public_path}: {exc.strerror}", field="--agent") from None

    def sign(self, data: bytes, namespace: str) -> bytes:
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            message = Path(tmp) / "message"
            message.write_bytes(data)
            run = subprocess.run(
                ["ssh-keygen", "-q", "-Y", "sign", "-n", namespace, "-f", str(self.public_path), str(message)],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            signature = Path(str(message) + ".sig")
            if run.returncode != 0 or not signature.exists():
                detail = (run.stderr or run.stdout).strip().splitlines()
                raise UsageError(
                    "ssh-agent did not sign: " + (detail[-1] if detail else f"exit {run.returncode}"),
                    field="--agent",
                )
            blob = sshsig.dearmor(signature.read_text())
        if sshsig.parse(blob)["public"] != self.public.raw:
            raise UsageError("ssh-agent signed with another key", field="--agent")
        return blob


def _comment_of(public_path: Path) -> str:
    try:
        parts = public_path.read_text().split(None, 2)
    except OSError:
        return ""
    return parts[2].strip() if len(parts) > 2 else ""


def generate(path: Path, passphrase: str | None, comment: str) -> FileSigner:
    """A new Ed25519 key in OpenSSH format, mode 0600, with its .pub beside it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = Path(path)
    public_path = Path(str(path) + ".pub")
    if path.exists() or public_path.exists():
        raise UsageError(f"{path} already exists; pbem never overwrites a key", field="--out")
    key = Ed25519PrivateKey.generate()
    encryption = (
        serialization.BestAvailableEncryption(passphrase.encode())
        if passphrase
        else serialization.NoEncryption()
    )
    data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, encryption)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    signer = FileSigner(key, comment)
    public_path.write_text(signer.public.line() + "\n")
    return signer
