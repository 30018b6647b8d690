"""Reveal chains, hidden chains and the seeds derived from them (docs/protocol.md §4-§7).

All values are raw bytes here; callers convert to and from hex at the edges.
"""

from __future__ import annotations

import hashlib
import struct

CHAIN_LENGTH = 65536  # §6: L


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hash_forward(value: bytes, steps: int) -> bytes:
    """SHA256 applied `steps` times."""
    for _ in range(steps):
        value = hashlib.sha256(value).digest()
    return value


def anchor(c0: bytes, length: int = CHAIN_LENGTH) -> bytes:
    """c_L, the commitment a player signs in his join (§6)."""
    return hash_forward(c0, length)


def chain_value(c0: bytes, seq: int, length: int = CHAIN_LENGTH) -> bytes:
    """value(s) = c_{L-s}: the reveal for the roll point bound to the entry with seq s."""
    if not 1 <= seq < length:
        raise ValueError(f"seq {seq} outside 1..{length - 1}")
    return hash_forward(c0, length - seq)


def on_chain(value: bytes, seq: int, known: bytes, known_seq: int) -> bool:
    """Is `value` the chain's value for `seq`, given its value for `known_seq` (§6)? Either seq may be
    the later one: a value for a lower seq lies further along the hashing."""
    if seq >= known_seq:
        return hash_forward(value, seq - known_seq) == known
    return hash_forward(known, known_seq - seq) == value


def genesis(join_ids_hex: list[str]) -> bytes:
    """SHA-256 of the participants' join ids as raw bytes, in ascending order of their hex (§4)."""
    return sha256(b"".join(bytes.fromhex(h) for h in sorted(join_ids_hex)))


def _u16(n: int) -> bytes:
    return struct.pack(">H", n)


def _u64(n: int) -> bytes:
    return struct.pack(">Q", n)


def _name(text: str) -> bytes:
    raw = text.encode()
    return _u16(len(raw)) + raw


def roll_seed(game: str, seq: int, entry_id: bytes, witness_values: list[bytes]) -> bytes:
    """§6: seed of the roll point bound to entry (seq, id), witness values in roster order."""
    return sha256(b"pbem-dice-v1\0" + _name(game) + _u64(seq) + entry_id + b"".join(witness_values))


def open_seed(charter_digest: bytes, entry_id: bytes) -> bytes:
    """§5: the seed of an `open` roll point; no witnesses, resolved at once."""
    return sha256(b"pbem-open-v1\0" + charter_digest + entry_id)


def sealed_digest(game: str, player: str, bound_entry: bytes, key: bytes, text: str) -> bytes:
    """§5: the commitment a `seal` carries for a simultaneous decision."""
    return sha256(b"pbem-sealed-v1\0" + _name(game) + _name(player) + bound_entry + key + text.encode())


def hidden_stream_seed(hidden_value: bytes, public_seed: bytes) -> bytes:
    """§7: seed of a player's private draws at a roll point (h_{L-s} and the public seed)."""
    return sha256(b"pbem-hidden-v1\0" + hidden_value + public_seed)


def private_key(hidden_value: bytes, seq: int) -> bytes:
    """§7: the ChaCha20-Poly1305 key of a private record in the entry with seq s."""
    return sha256(b"pbem-private-v1\0" + hidden_value + _u64(seq))


def seal_private(hidden_value: bytes, seq: int, salt: bytes, prev: bytes, record: bytes) -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    return ChaCha20Poly1305(private_key(hidden_value, seq)).encrypt(salt[:12], record, prev)


def open_private(hidden_value: bytes, seq: int, salt: bytes, prev: bytes, sealed: bytes) -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    return ChaCha20Poly1305(private_key(hidden_value, seq)).decrypt(salt[:12], sealed, prev)


def seed_text(kind: str, charter_digest_hex: str) -> bytes:
    """§6: the bytes a player signs to derive his chain ('chain') or hidden ('hidden') seed."""
    return f"pbem {kind} seed\n{charter_digest_hex}\n".encode()


SEED_NAMESPACES = {"chain": "pbem-chain-v1", "hidden": "pbem-hidden-v1"}
