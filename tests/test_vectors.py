"""Every value of the golden vectors (PROTOCOL.md §2-§7), reproduced with the library."""

from __future__ import annotations

import hashlib
import struct

import pytest
from cryptography.exceptions import InvalidTag

from pbem import chain, keys, message, sshsig
from pbem.dice import Dice, Draw, Stream

H = bytes.fromhex


def sha(text: str | bytes) -> bytes:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).digest()


def block_words(seed: bytes, index: int) -> list[int]:
    """The eight words of stream block `index`, computed straight from §6 (not through Stream)."""
    return list(struct.unpack(">8I", hashlib.sha256(seed + struct.pack(">Q", index)).digest()))


@pytest.fixture(scope="module")
def d(vectors):
    return vectors["dice"]


@pytest.fixture(scope="module")
def k(vectors):
    return vectors["keys"]


@pytest.fixture(scope="module")
def roll_seed(d) -> bytes:
    rs, c = d["roll_seed"], d["chain"]
    witnesses = [H(c[name]) for name in rs["witness_values"]]
    return chain.roll_seed(rs["game"], rs["seq"], H(rs["entry_id"]), witnesses)


@pytest.fixture(scope="module")
def signer(k):
    return keys.FileSigner.from_seed(H(k["key"]["private_seed_hex"]), "alice@example")


# ------------------------------------------------------------------------------- the files


def test_vector_files_are_the_shared_ones(vector_dir, shared_vector_dir):
    if not shared_vector_dir.is_dir():
        pytest.skip("../shared/vectors is not beside this clone")
    for name in ("dice-v1.toml", "keys-v1.toml", "message-v1.toml"):
        assert (vector_dir / name).read_bytes() == (shared_vector_dir / name).read_bytes(), name


def test_vectors_fixture_has_the_three_files(vectors):
    assert set(vectors) == {"dice", "keys", "message"}
    assert vectors["message"]["type"] == "move"
    assert vectors["dice"]["chain"]["length"] == 65536


# ------------------------------------------------------------------------------- chains (§6)


def test_chain_length_is_the_protocol_constant(d, k):
    assert d["chain"]["length"] == chain.CHAIN_LENGTH == k["chain_seed"]["chain_length"]


@pytest.mark.parametrize("player", ["bob", "carol"])
def test_chain_seed_anchor_and_value_12(d, player):
    c = d["chain"]
    seed = H(c[f"{player}_chain_seed"])
    assert seed == sha(f"chain seed {player}")
    assert chain.anchor(seed, c["length"]).hex() == c[f"{player}_anchor"]
    assert chain.chain_value(seed, 12, c["length"]).hex() == c[f"{player}_value_seq_12"]


def test_bob_value_15_and_on_chain(d):
    c = d["chain"]
    seed = H(c["bob_chain_seed"])
    v12, v15 = H(c["bob_value_seq_12"]), H(c["bob_value_seq_15"])
    assert chain.chain_value(seed, 15).hex() == c["bob_value_seq_15"]
    assert chain.hash_forward(v15, 3) == v12
    assert chain.on_chain(v12, 12, H(c["bob_anchor"]), 0)
    assert chain.on_chain(v15, 15, v12, 12)
    assert chain.on_chain(v12, 12, v15, 15)  # a lower seq, from a later seq's value
    assert not chain.on_chain(v15, 14, v12, 12)  # wrong distance
    assert not chain.on_chain(H(c["carol_value_seq_12"]), 12, H(c["bob_anchor"]), 0)


def test_chain_value_refuses_seq_outside_the_chain():
    with pytest.raises(ValueError):
        chain.chain_value(bytes(32), 0)
    with pytest.raises(ValueError):
        chain.chain_value(bytes(32), 65536)


# ------------------------------------------------------------------------------ roll seed, stream


def test_roll_seed(d, roll_seed):
    rs = d["roll_seed"]
    assert rs["game"] == "bulge-1944-g7" and rs["seq"] == 12
    assert H(rs["entry_id"]) == sha("example signed move bytes")
    assert rs["witness_values"] == ["bob_value_seq_12", "carol_value_seq_12"]
    assert roll_seed.hex() == rs["seed"]
    # roster order matters
    c = d["chain"]
    swapped = chain.roll_seed(
        rs["game"], rs["seq"], H(rs["entry_id"]), [H(c["carol_value_seq_12"]), H(c["bob_value_seq_12"])]
    )
    assert swapped.hex() != rs["seed"]


def test_stream_from_roll_seed(d, roll_seed):
    s = d["stream"]
    stream = Stream(roll_seed)
    assert [stream.die(6) for _ in range(10)] == s["d6_x10"]
    assert [stream.die(6) + stream.die(6) for _ in range(5)] == s["two_d6_sums_x5"]
    assert [stream.die(10) for _ in range(5)] == s["d10_x5"]
    assert stream.shuffle(list(range(52))) == s["shuffle_0_to_51"]
    assert stream.words_used == s["words_used"] == 76


def test_stream_words_are_the_spec_blocks(roll_seed):
    stream = Stream(roll_seed)
    expected = block_words(roll_seed, 0) + block_words(roll_seed, 1)
    assert [stream.word() for _ in range(16)] == expected
    assert stream.words_used == 16


def test_stream_zero_seed(d):
    z = d["stream_zero_seed"]
    stream = Stream(bytes(32))
    assert [stream.die(6) for _ in range(12)] == z["d6_x12"]
    fresh = Stream(bytes(32))
    assert [fresh.uniform(2**31 + 1) for _ in range(4)] == z["below_2_31_plus_1_x4"]
    assert fresh.words_used == z["below_words_used"] == 6


def test_uniform_range_is_checked():
    with pytest.raises(ValueError):
        Stream(bytes(32)).uniform(0)
    with pytest.raises(ValueError):
        Stream(bytes(32)).uniform(2**32 + 1)
    assert Stream(bytes(32)).uniform(2**32) == block_words(bytes(32), 0)[0]


# ------------------------------------------------------------------------------- dice records


def test_dice_roll_records_the_draw(roll_seed, d):
    rolled = Dice(Stream(roll_seed))
    assert rolled.roll(6, "attack on Bastogne", "7.2") == d["stream"]["d6_x10"][0]
    word = block_words(roll_seed, 0)[0]
    assert rolled.draws == [Draw("die", 6, 1 + word % 6, "attack on Bastogne", "7.2", [word])]
    assert rolled.draws[0].to_dict() == {
        "kind": "die",
        "size": 6,
        "result": 5,
        "purpose": "attack on Bastogne",
        "rule": "7.2",
        "words": [word],
    }


def test_dice_rejection_records_every_word(d):
    n = 2**31 + 1
    limit = 2**32 - 2**32 % n
    words = block_words(bytes(32), 0)
    recorded = Dice(Stream(bytes(32)))
    results = [recorded.uniform(n, f"draw {i}", "R1") for i in range(4)]
    assert results == d["stream_zero_seed"]["below_2_31_plus_1_x4"]
    second = recorded.draws[1]
    assert second.kind == "uniform" and second.size == n and second.purpose == "draw 1"
    assert len(second.words) == 2
    assert second.words == words[1:3]
    assert second.words[0] >= limit > second.words[1]
    assert second.result == second.words[1] % n
    assert [len(draw.words) for draw in recorded.draws] == [1, 2, 1, 2]
    assert sum(len(draw.words) for draw in recorded.draws) == recorded.stream.words_used == 6


def test_dice_shuffle_records_result_and_words(roll_seed, d):
    recorded = Dice(Stream(roll_seed))
    for _ in range(10 + 10 + 5):
        recorded.roll(6 if len(recorded.draws) < 20 else 10, "warm-up", "0")
    deck = recorded.shuffle(list(range(52)), "deal", "3.1")
    assert deck == d["stream"]["shuffle_0_to_51"]
    draw = recorded.draws[-1]
    assert (draw.kind, draw.size, draw.result, draw.purpose, draw.rule) == ("shuffle", 52, deck, "deal", "3.1")
    assert len(draw.words) == 76 - 25  # no rejection for small n here
    assert recorded.stream.words_used == d["stream"]["words_used"]


# -------------------------------------------------------------------------- genesis, open, sealed


def test_genesis(d):
    g = d["genesis"]
    assert [H(i) for i in g["join_ids"]] == [sha("join alice"), sha("join bob"), sha("join carol")]
    assert chain.genesis(g["join_ids"]).hex() == g["genesis"]
    assert chain.genesis(list(reversed(g["join_ids"]))).hex() == g["genesis"]
    assert chain.genesis(sorted(g["join_ids"])) == sha(b"".join(H(i) for i in sorted(g["join_ids"])))


def test_open_seed(d, k):
    o = d["open_seed"]
    assert H(o["charter_digest"]) == sha(b"example charter bytes\n")
    assert o["charter_digest"] == k["chain_seed"]["charter_digest"]
    assert o["entry_id"] == d["roll_seed"]["entry_id"]
    assert chain.open_seed(H(o["charter_digest"]), H(o["entry_id"])).hex() == o["seed"]


def test_sealed_digest(d):
    s = d["sealed"]
    digest = chain.sealed_digest(s["game"], s["player"], H(s["bound_entry_id"]), H(s["key"]), s["text"])
    assert digest.hex() == s["sealed"]
    assert H(s["key"]) == bytes(range(32))
    other = chain.sealed_digest(s["game"], "bob", H(s["bound_entry_id"]), H(s["key"]), s["text"])
    assert other.hex() != s["sealed"]


# ------------------------------------------------------------------------------- hidden (§7)


def test_hidden_chain_value(d):
    h = d["hidden"]
    assert H(h["hidden_seed"]) == sha("hidden seed alice")
    assert h["seq"] == 12
    assert chain.chain_value(H(h["hidden_seed"]), h["seq"]).hex() == h["h_for_seq"]


def test_hidden_private_draws(d, roll_seed):
    h = d["hidden"]
    assert h["public_seed"] == "the roll_seed above"
    stream = Stream(chain.hidden_stream_seed(H(h["h_for_seq"]), roll_seed))
    assert [stream.uniform(40) for _ in range(5)] == h["private_below_40_x5"]


def test_hidden_private_key_and_record(d):
    h = d["hidden"]
    value, seq, salt, prev = H(h["h_for_seq"]), h["seq"], H(h["salt"]), H(h["prev"])
    assert prev == sha("previous entry")
    assert chain.private_key(value, seq).hex() == h["private_key"]
    sealed = chain.seal_private(value, seq, salt, prev, h["record"].encode())
    assert sealed.hex() == h["private"]
    assert chain.open_private(value, seq, salt, prev, H(h["private"])) == h["record"].encode()
    with pytest.raises(InvalidTag):  # prev is the associated data
        chain.open_private(value, seq, salt, sha("another entry"), H(h["private"]))
    with pytest.raises(InvalidTag):  # the key depends on seq
        chain.open_private(value, seq + 1, salt, prev, H(h["private"]))


# ------------------------------------------------------------------------------- keys (§2)


def test_key_public_line_and_fingerprint(k, signer):
    assert H(k["key"]["private_seed_hex"]) == bytes([1]) * 32
    assert signer.public.line() == k["key"]["public"]
    assert signer.public.fingerprint() == k["key"]["fingerprint"]
    parsed = keys.PublicKey.parse(k["key"]["public"])
    assert parsed == signer.public
    assert parsed.comment == "alice@example"
    assert parsed.fingerprint_line() == f"256 {k['key']['fingerprint']} alice@example (ED25519)"


def test_message_id_and_armor(k, signer):
    m = k["message"]
    body = m["signed_bytes"].encode()
    assert hashlib.sha256(body).hexdigest() == m["id"]
    assert m["namespace"] == "pbem-v1"
    blob = signer.sign(body, m["namespace"])
    assert sshsig.armor(blob) == m["armor"]
    assert sshsig.dearmor(m["armor"]) == blob
    sshsig.verify(blob, body, "pbem-v1", signer.public.raw)
    fields = sshsig.parse(blob)
    assert fields["public"] == signer.public.raw
    assert fields["namespace"] == "pbem-v1" and fields["hash"] == "sha512" and fields["reserved"] == b""


@pytest.mark.parametrize("kind", ["chain", "hidden"])
def test_key_derived_seed_texts(k, kind):
    section = k[f"{kind}_seed"]
    digest = k["chain_seed"]["charter_digest"]
    assert chain.seed_text(kind, digest) == section["signed_text"].encode()
    assert chain.SEED_NAMESPACES[kind] == section["namespace"]


def test_key_derived_chain_seed(k, signer):
    cs = k["chain_seed"]
    c0 = hashlib.sha256(signer.sign(cs["signed_text"].encode(), cs["namespace"])).digest()
    assert c0.hex() == cs["c0"]
    assert chain.anchor(c0, cs["chain_length"]).hex() == cs["anchor"]
    assert chain.chain_value(c0, 1, cs["chain_length"]).hex() == cs["value_seq_1"]
    assert chain.on_chain(H(cs["value_seq_1"]), 1, H(cs["anchor"]), 0)


def test_key_derived_hidden_seed(k, signer):
    hs = k["hidden_seed"]
    h0 = hashlib.sha256(signer.sign(hs["signed_text"].encode(), hs["namespace"])).digest()
    assert h0.hex() == hs["h0"]
    assert chain.anchor(h0).hex() == hs["hcommit"]
    assert chain.chain_value(h0, 5).hex() == hs["h_for_seq_5"]


# -------------------------------------------------------------------------- message-v1.toml (§3)


def test_message_file_parses_to_the_vector(vectors, vector_dir, k, signer):
    raw = (vector_dir / "message-v1.toml").read_bytes()
    m = message.parse(raw)
    assert m.id == k["message"]["id"]
    assert m.body == k["message"]["signed_bytes"].encode()
    assert m.signature == sshsig.dearmor(k["message"]["armor"])
    assert m.stored() == raw
    m.verify(signer.public.raw)
    assert (m.type, m.game, m.player, m.seq) == ("move", "vector-game", "alice", 7)
    assert m.orders == [{"kind": "roll", "dice": "2d6", "purpose": "test"}]
    assert m.fields == vectors["message"]  # the whole file is valid TOML: comments are the armor


def test_message_vector_is_what_the_emitter_writes(vectors, vector_dir, signer):
    m = message.sign(dict(vectors["message"]), signer)
    assert m.stored() == (vector_dir / "message-v1.toml").read_bytes()
