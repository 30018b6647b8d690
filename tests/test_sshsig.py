"""SSHSIG and key files against the real ssh-keygen (PROTOCOL.md §2)."""

from __future__ import annotations

import base64
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pbem import keys, sshsig
from pbem.errors import BadSignature, UsageError

if shutil.which("ssh-keygen") is None:
    pytest.skip("ssh-keygen is not installed", allow_module_level=True)

DATA = b"pbem = 1\ntype = \"move\"\n\xe2\x82\xac and some bytes \x00\xff\n"
ENV = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}  # never touch the user's agent


def ssh_keygen(*args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run(
        ["ssh-keygen", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=ENV,
        timeout=30,
    )
    if check and run.returncode != 0:
        raise AssertionError(f"ssh-keygen {' '.join(args)} failed: {run.stderr.decode(errors='replace')}")
    return run


def make_key(directory: Path, name: str, passphrase: str = "", comment: str = "alice", kind: str = "ed25519") -> Path:
    path = directory / name
    extra = ["-b", "1024"] if kind == "rsa" else []
    ssh_keygen("-q", "-t", kind, *extra, "-N", passphrase, "-C", comment, "-f", str(path))
    return path


@pytest.fixture(scope="module")
def alice(tmp_path_factory):
    """An unencrypted ssh-keygen key, its signer and an allowed_signers file naming it alice."""
    directory = tmp_path_factory.mktemp("alice")
    path = make_key(directory, "id_ed25519")
    signer = keys.FileSigner.load(path)
    allowed = directory / "allowed_signers"
    allowed.write_text("alice " + (directory / "id_ed25519.pub").read_text())
    return path, signer, allowed


def ssh_verify(allowed: Path, sig: Path, data: bytes, namespace: str = "pbem-v1") -> subprocess.CompletedProcess:
    return ssh_keygen(
        "-Y", "verify", "-f", str(allowed), "-I", "alice", "-n", namespace, "-s", str(sig),
        stdin=data, check=False,
    )


def ssh_sign(key: Path, data_path: Path, namespace: str = "pbem-v1") -> str:
    ssh_keygen("-q", "-Y", "sign", "-n", namespace, "-f", str(key), str(data_path))
    return Path(str(data_path) + ".sig").read_text()


# ---------------------------------------------------------------------------------- loading


def test_load_reads_key_and_comment(alice):
    path, signer, _ = alice
    public_line = Path(str(path) + ".pub").read_text().strip()
    assert signer.public.line() == public_line
    assert signer.public.comment == "alice"
    assert keys.PublicKey.parse(public_line) == signer.public
    assert len(signer.public.raw) == 32


# ---------------------------------------------------------------------- ours -> ssh-keygen


def test_ssh_keygen_accepts_our_signature(alice, tmp_path):
    _, signer, allowed = alice
    sig = tmp_path / "data.sig"
    sig.write_text(sshsig.armor(signer.sign(DATA, "pbem-v1")))
    run = ssh_verify(allowed, sig, DATA)
    assert run.returncode == 0, run.stderr
    assert b'Good "pbem-v1" signature for alice' in run.stdout + run.stderr


def test_ssh_keygen_rejects_our_signature_over_changed_data(alice, tmp_path):
    _, signer, allowed = alice
    sig = tmp_path / "data.sig"
    sig.write_text(sshsig.armor(signer.sign(DATA, "pbem-v1")))
    changed = bytearray(DATA)
    changed[3] ^= 0x01
    assert ssh_verify(allowed, sig, bytes(changed)).returncode != 0
    assert ssh_verify(allowed, sig, DATA).returncode == 0  # the same file is fine with the right data


def test_ssh_keygen_rejects_our_signature_in_another_namespace(alice, tmp_path):
    _, signer, allowed = alice
    sig = tmp_path / "data.sig"
    sig.write_text(sshsig.armor(signer.sign(DATA, "pbem-chain-v1")))
    assert ssh_verify(allowed, sig, DATA, "pbem-v1").returncode != 0
    assert ssh_verify(allowed, sig, DATA, "pbem-chain-v1").returncode == 0


# ---------------------------------------------------------------------- ssh-keygen -> ours


@pytest.mark.parametrize("namespace", ["pbem-v1", "pbem-chain-v1", "pbem-hidden-v1"])
def test_ssh_keygen_signature_is_byte_identical_to_ours(alice, tmp_path, namespace):
    path, signer, _ = alice
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    text = ssh_sign(path, data_path, namespace)
    assert text == sshsig.armor(signer.sign(DATA, namespace))
    sshsig.verify(sshsig.dearmor(text), DATA, namespace, signer.public.raw)


def test_ssh_keygen_signature_of_the_vector_key(vectors, tmp_path):
    """The vector key written as an OpenSSH file: ssh-keygen produces the vector armor."""
    from cryptography.hazmat.primitives import serialization

    k = vectors["keys"]
    signer = keys.FileSigner.from_seed(bytes.fromhex(k["key"]["private_seed_hex"]), "alice@example")
    key_path = tmp_path / "vector_key"
    key_path.write_bytes(
        signer._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
        )
    )
    key_path.chmod(0o600)
    data_path = tmp_path / "message"
    data_path.write_bytes(k["message"]["signed_bytes"].encode())
    assert ssh_sign(key_path, data_path, k["message"]["namespace"]) == k["message"]["armor"]
    Path(str(key_path) + ".pub").write_text(k["key"]["public"] + "\n")
    assert ssh_keygen("-lf", str(key_path) + ".pub").stdout.decode().strip() == (
        f"256 {k['key']['fingerprint']} alice@example (ED25519)"
    )


def test_we_reject_ssh_keygen_signature_over_changed_data(alice, tmp_path):
    path, signer, _ = alice
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    blob = sshsig.dearmor(ssh_sign(path, data_path))
    changed = bytearray(DATA)
    changed[-1] ^= 0x80
    with pytest.raises(BadSignature) as err:
        sshsig.verify(blob, bytes(changed), "pbem-v1", signer.public.raw)
    assert err.value.field == "signature"
    assert "does not match" in str(err.value)


def test_we_reject_ssh_keygen_signature_in_another_namespace(alice, tmp_path):
    path, signer, _ = alice
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    blob = sshsig.dearmor(ssh_sign(path, data_path, "pbem-chain-v1"))
    with pytest.raises(BadSignature) as err:
        sshsig.verify(blob, DATA, "pbem-v1", signer.public.raw)
    assert "namespace" in str(err.value)
    sshsig.verify(blob, DATA, "pbem-chain-v1", signer.public.raw)


def test_we_reject_ssh_keygen_signature_by_another_key(alice, tmp_path):
    path, _, _ = alice
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    blob = sshsig.dearmor(ssh_sign(path, data_path))
    other = keys.FileSigner.from_seed(bytes([2]) * 32)
    with pytest.raises(BadSignature):
        sshsig.verify(blob, DATA, "pbem-v1", other.public.raw)


def test_rewrapped_armor_still_verifies(alice, tmp_path):
    path, signer, _ = alice
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    text = ssh_sign(path, data_path)
    body = "".join(text.splitlines()[1:-1])
    rewrapped = "\n".join(
        ["# " + sshsig.BEGIN] + ["# " + body[i : i + 33] for i in range(0, len(body), 33)] + ["# " + sshsig.END]
    )
    sshsig.verify(sshsig.dearmor(rewrapped), DATA, "pbem-v1", signer.public.raw)


# ----------------------------------------------------------------------- passphrases, generate


def test_passphrase_protected_ssh_keygen_key(tmp_path):
    path = make_key(tmp_path, "locked", passphrase="secret", comment="carol")
    signer = keys.FileSigner.load(path, lambda: "secret")
    assert signer.public.line() == (tmp_path / "locked.pub").read_text().strip()
    data_path = tmp_path / "data"
    data_path.write_bytes(DATA)
    # ssh-keygen needs the passphrase to sign; give it through a decrypted copy
    plain = tmp_path / "plain"
    shutil.copy(path, plain)
    plain.chmod(0o600)
    ssh_keygen("-q", "-p", "-P", "secret", "-N", "", "-f", str(plain))
    assert ssh_sign(plain, data_path) == sshsig.armor(signer.sign(DATA, "pbem-v1"))

    with pytest.raises(UsageError) as err:
        keys.FileSigner.load(path, lambda: "wrong")
    assert err.value.field == "--key"
    with pytest.raises(UsageError) as err:
        keys.FileSigner.load(path)  # no way to ask for the passphrase
    assert "passphrase" in str(err.value)
    with pytest.raises(UsageError):
        keys.FileSigner.load(path, lambda: "")


def test_wrong_passphrase_is_named_as_such(tmp_path):
    path = make_key(tmp_path, "locked", passphrase="secret")
    with pytest.raises(UsageError, match="wrong passphrase"):
        keys.FileSigner.load(path, lambda: "wrong")


def test_generate_writes_a_key_ssh_keygen_reads(tmp_path):
    path = tmp_path / "keys" / "id_ed25519"
    signer = keys.generate(path, "pw", "bob")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    public_path = Path(str(path) + ".pub")
    assert public_path.read_text() == signer.public.line() + "\n"
    assert signer.public.line().endswith(" bob")

    derived = ssh_keygen("-y", "-P", "pw", "-f", str(path)).stdout.decode().split()
    assert derived[:2] == signer.public.line().split()[:2]
    assert ssh_keygen("-y", "-P", "wrong", "-f", str(path), check=False).returncode != 0

    listed = ssh_keygen("-lf", str(public_path)).stdout.decode().strip()
    assert signer.public.fingerprint_line() == listed
    assert listed == f"256 {signer.public.fingerprint()} bob (ED25519)"

    loaded = keys.FileSigner.load(path, lambda: "pw")
    assert loaded.public == signer.public
    assert loaded.sign(DATA, "pbem-v1") == signer.sign(DATA, "pbem-v1")

    with pytest.raises(UsageError):
        keys.generate(path, "pw", "bob")  # never overwrites


def test_generate_without_passphrase(tmp_path):
    path = tmp_path / "open_key"
    signer = keys.generate(path, None, "dave")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ssh_keygen("-y", "-f", str(path)).stdout.decode().split()[:2] == signer.public.line().split()[:2]
    assert keys.FileSigner.load(path).public == signer.public


def test_fingerprint_line_without_comment(tmp_path):
    path = make_key(tmp_path, "nameless", comment="")
    signer = keys.FileSigner.load(path)
    assert signer.public.comment == ""
    assert signer.public.fingerprint_line() == ssh_keygen("-lf", str(path) + ".pub").stdout.decode().strip()
    assert signer.public.fingerprint_line().endswith(" no comment (ED25519)")


# ---------------------------------------------------------------------------- refused keys


def test_parse_refuses_sk_keys():
    blob = sshsig.ssh_string("sk-ssh-ed25519@openssh.com") + sshsig.ssh_string(bytes(32)) + sshsig.ssh_string("ssh:")
    line = f"sk-ssh-ed25519@openssh.com {base64.b64encode(blob).decode()} alice@yubikey"
    with pytest.raises(UsageError) as err:
        keys.PublicKey.parse(line)
    assert err.value.field == "pubkey"
    assert "sk-ssh-ed25519@openssh.com" in str(err.value)
    with pytest.raises(UsageError):
        keys.PublicKey.parse("sk-ssh-ed25519@openssh.com AAAA", field="roster.alice")


def test_parse_and_load_refuse_rsa_keys(tmp_path):
    path = make_key(tmp_path, "id_rsa", kind="rsa")
    line = (tmp_path / "id_rsa.pub").read_text()
    assert line.startswith("ssh-rsa ")
    with pytest.raises(UsageError) as err:
        keys.PublicKey.parse(line, field="roster.alice")
    assert err.value.field == "roster.alice"
    with pytest.raises(UsageError) as err:
        keys.FileSigner.load(path)
    assert "Ed25519" in str(err.value)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "ssh-ed25519",
        "ssh-ed25519 not-base64!",
        "ssh-ed25519 " + base64.b64encode(sshsig.ssh_string("ssh-ed25519") + sshsig.ssh_string(bytes(31))).decode(),
        "ssh-ed25519 " + base64.b64encode(sshsig.ssh_string("ssh-rsa") + sshsig.ssh_string(bytes(32))).decode(),
        "ssh-ed25519 " + base64.b64encode(sshsig.public_key_blob(bytes(32)) + b"\0").decode(),
    ],
)
def test_parse_refuses_malformed_lines(line):
    with pytest.raises(UsageError):
        keys.PublicKey.parse(line)
