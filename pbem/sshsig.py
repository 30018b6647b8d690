"""SSHSIG signatures (openssh PROTOCOL.sshsig) over Ed25519, byte-exact with ssh-keygen -Y sign."""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct

from .errors import BadSignature

MAGIC = b"SSHSIG"
VERSION = 1
HASH_ALGORITHM = "sha512"
KEY_TYPE = "ssh-ed25519"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
ARMOR_WIDTH = 70


def ssh_string(data: bytes | str) -> bytes:
    if isinstance(data, str):
        data = data.encode()
    return struct.pack(">I", len(data)) + data


def read_string(blob: bytes, offset: int) -> tuple[bytes, int]:
    if offset + 4 > len(blob):
        raise BadSignature("signature blob is truncated", field="signature")
    (length,) = struct.unpack_from(">I", blob, offset)
    end = offset + 4 + length
    if end > len(blob):
        raise BadSignature("signature blob is truncated", field="signature")
    return blob[offset + 4 : end], end


def public_key_blob(raw_public: bytes) -> bytes:
    return ssh_string(KEY_TYPE) + ssh_string(raw_public)


def signed_data(data: bytes, namespace: str) -> bytes:
    """What the key actually signs: the preamble, namespace and the SHA-512 of the message."""
    return (
        MAGIC
        + ssh_string(namespace)
        + ssh_string(b"")
        + ssh_string(HASH_ALGORITHM)
        + ssh_string(hashlib.sha512(data).digest())
    )


def assemble(raw_public: bytes, namespace: str, raw_signature: bytes) -> bytes:
    """The binary SSHSIG blob from a public key and a raw Ed25519 signature."""
    return (
        MAGIC
        + struct.pack(">I", VERSION)
        + ssh_string(public_key_blob(raw_public))
        + ssh_string(namespace)
        + ssh_string(b"")
        + ssh_string(HASH_ALGORITHM)
        + ssh_string(ssh_string(KEY_TYPE) + ssh_string(raw_signature))
    )


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + ARMOR_WIDTH] for i in range(0, len(text), ARMOR_WIDTH)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def dearmor(text: str) -> bytes:
    """The blob from an armor; tolerant of rewrapping and of '# ' comment prefixes."""
    inside = False
    chunks = []
    for line in text.splitlines():
        bare = line.lstrip("#").strip()
        if bare == BEGIN:
            inside = True
            continue
        if bare == END:
            break
        if inside:
            chunks.append(bare)
    try:
        return base64.b64decode("".join(chunks), validate=True)
    except (binascii.Error, ValueError):
        raise BadSignature("signature armor is not valid base64", field="signature") from None


def parse(blob: bytes) -> dict:
    if not blob.startswith(MAGIC):
        raise BadSignature("not an SSHSIG signature", field="signature")
    offset = len(MAGIC)
    if len(blob) < offset + 4:
        raise BadSignature("signature blob is truncated", field="signature")
    (version,) = struct.unpack_from(">I", blob, offset)
    offset += 4
    if version != VERSION:
        raise BadSignature(f"SSHSIG version {version} is not supported", field="signature")
    public, offset = read_string(blob, offset)
    namespace, offset = read_string(blob, offset)
    reserved, offset = read_string(blob, offset)
    hash_algorithm, offset = read_string(blob, offset)
    signature, offset = read_string(blob, offset)
    if offset != len(blob):
        raise BadSignature("trailing bytes after the signature", field="signature")
    key_type, rest = read_string(public, 0)
    raw_public, end = read_string(public, rest)
    sig_type, rest = read_string(signature, 0)
    raw_signature, sig_end = read_string(signature, rest)
    if key_type != KEY_TYPE.encode() or sig_type != KEY_TYPE.encode() or end != len(public):
        raise BadSignature(f"only {KEY_TYPE} signatures are accepted", field="signature")
    if sig_end != len(signature) or len(raw_public) != 32 or len(raw_signature) != 64:
        raise BadSignature("malformed Ed25519 signature", field="signature")
    return {
        "public": raw_public,
        "namespace": namespace.decode(errors="replace"),
        "reserved": reserved,
        "hash": hash_algorithm.decode(errors="replace"),
        "signature": raw_signature,
    }


def verify(blob: bytes, data: bytes, namespace: str, raw_public: bytes) -> None:
    """Raise BadSignature unless `blob` is a valid signature by `raw_public` over `data`."""
    fields = parse(blob)
    if fields["public"] != raw_public:
        raise BadSignature("signed with a key that is not this player's roster key", field="signature")
    if fields["namespace"] != namespace:
        raise BadSignature(
            f"signature namespace is {fields['namespace']!r}, expected {namespace!r}", field="signature"
        )
    if fields["hash"] != HASH_ALGORITHM:
        raise BadSignature(f"signature hash {fields['hash']!r}, expected sha512", field="signature")
    if fields["reserved"]:
        raise BadSignature("signature reserved field is not empty", field="signature")
    # Imported here: commands that only read the cached state never check a signature.
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(raw_public).verify(
            fields["signature"], signed_data(data, namespace)
        )
    except InvalidSignature:
        raise BadSignature("signature does not match the message bytes", field="signature") from None
