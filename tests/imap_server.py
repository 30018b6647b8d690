"""A real IMAP server for tests: a throwaway dovecot instance on 127.0.0.1 (not a test file).

`imap_server` starts `dovecot -F -c CONFIG` as a subprocess with everything in a temporary folder:
its own config, runtime and state folders, log, a passwd-file with one user (alice / secret) and
that user's Maildir. It listens for plain IMAP (no TLS, `ssl = no`) on a free port of 127.0.0.1
only, and is stopped at teardown. Each test gets a fresh server and an empty mailbox (start and
stop take about 0.2 s together).

Use it from a test module (tests/ is on sys.path, as for helpers.py) with

    pytest_plugins = ["imap_server"]  # registers the imap_server fixture
    if TYPE_CHECKING:
        from imap_server import ImapServer  # for annotations only: see test_imap_server.py

A test drops mails into the Maildir with `server.deliver(data)` (tmp/ then new/, as an MTA does),
or APPENDs them over IMAP with `server.connect()`, a logged-in `imaplib.IMAP4`.

Needs Debian's `dovecot-imapd` (dovecot 2.3, as in bookworm); skips with the reason when the
binary is missing or is another major version, whose config format differs (2.4 renamed most of
the settings used here). As root the login processes run as the package's `dovenull` user, the
mail process as `nobody` chrooted into the user's home (so the 0700 pytest temp folders above it
don't matter), and the other internal processes as root; as any other user, everything runs as
that user and no chroot is used.
"""

from __future__ import annotations

import contextlib
import grp
import imaplib
import itertools
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HOST = "127.0.0.1"
USER = "alice"
PASSWORD = "secret"
START_TIMEOUT = 10.0  # seconds until the greeting must come
STOP_TIMEOUT = 5.0  # seconds after SIGTERM before SIGKILL
SEARCH_PATH = os.pathsep.join(filter(None, [os.environ.get("PATH"), "/usr/sbin", "/usr/local/sbin"]))
_names = itertools.count()


@dataclass(frozen=True)
class ImapServer:
    host: str
    port: int
    user: str
    password: str
    maildir: Path  # the user's INBOX: a Maildir with new/, cur/ and tmp/
    log_path: Path  # dovecot's log (log_path); its stdout and stderr go beside it
    mail_owner: tuple[int, int] | None = None  # (uid, gid) the Maildir must belong to, as root

    def connect(self, login: bool = True) -> imaplib.IMAP4:
        """A new imaplib connection, logged in as the user unless login=False."""
        imap = imaplib.IMAP4(self.host, self.port, timeout=10)
        if login:
            imap.login(self.user, self.password)
        return imap

    def deliver(self, data: bytes) -> Path:
        """Drop one mail into the Maildir as an MTA does (write in tmp/, rename into new/)."""
        name = f"{time.time_ns()}.P{os.getpid()}Q{next(_names)}.pbem-test"
        tmp = self.maildir / "tmp" / name
        tmp.write_bytes(data)
        tmp.chmod(0o644)
        if self.mail_owner is not None:
            os.chown(tmp, *self.mail_owner)
        path = self.maildir / "new" / name
        os.replace(tmp, path)
        return path

    def log(self) -> str:
        """dovecot's log so far, and what it printed itself (config errors go there)."""
        parts = []
        for path in (self.log_path, self.log_path.with_suffix(".out")):
            if path.exists():
                parts.append(f"--- {path.name}\n{path.read_text(errors='replace')}")
        return "\n".join(parts)


def dovecot_binary() -> str:
    """The dovecot binary, or a skip when it is missing or not 2.3 (the config format used here)."""
    binary = shutil.which("dovecot", path=SEARCH_PATH)
    if binary is None:
        if os.environ.get("CI"):  # .ci/run installs it: a missing server there is a failure, not a skip
            pytest.fail("dovecot is not installed although .ci/run installs dovecot-imapd")
        pytest.skip("dovecot is not installed (Debian: apt-get install dovecot-imapd)")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10,
                             check=False)
    out = version.stdout
    match = re.match(r"(\d+)\.(\d+)", out.strip())
    if match is None or (int(match[1]), int(match[2])) != (2, 3):
        pytest.skip(f"{binary} --version says {out.strip()!r}; this fixture's config is for dovecot 2.3")
    return binary


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _user_settings(home: Path) -> tuple[list[str], str, tuple[int, int] | None]:
    """The privilege lines of the config, the userdb args and the Maildir's owner (as root)."""
    if os.geteuid() == 0:
        # imap-login refuses to run as root, imap refuses uid 0: use the package's dovenull and
        # nobody. The internal processes (auth reads the passwd-file) stay root: the pytest
        # temp folders are 0700. The "/./" makes the mail process chroot into home first.
        try:
            pwd.getpwnam("dovenull")
            nobody = pwd.getpwnam("nobody")
        except KeyError as exc:
            pytest.skip(f"dovecot as root needs the users dovenull and nobody: {exc}")
        lines = [
            "default_internal_user = root",
            "default_internal_group = root",
            "default_login_user = dovenull",
            f"valid_chroot_dirs = {home}",
        ]
        owner = (nobody.pw_uid, nobody.pw_gid)
        return lines, f"uid={owner[0]} gid={owner[1]} home={home}/./", owner
    # Unprivileged: every process runs as this user and none may chroot.
    user = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    lines = [
        f"default_internal_user = {user}",
        f"default_internal_group = {group}",
        f"default_login_user = {user}",
    ]
    return lines, f"uid={os.getuid()} gid={os.getgid()} home={home}", None


def write_config(base: Path, run_dir: Path, port: int) -> tuple[Path, Path, tuple[int, int] | None]:
    """Write the instance's config, passwd-file and Maildir under base; the config's path first."""
    home = base / "home"
    maildir = home / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    (base / "state").mkdir(exist_ok=True)
    passwd = base / "passwd"
    passwd.write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::::\n")
    privileges, userdb_args, owner = _user_settings(home)
    if owner is not None:
        for path in (home, maildir, *(maildir / sub for sub in ("new", "cur", "tmp"))):
            os.chown(path, *owner)
    no_chroot = [] if owner is not None else ["  chroot ="]
    lines = [
        f"base_dir = {run_dir}",
        f"state_dir = {base / 'state'}",
        "instance_name = pbem-test-imap",
        f"log_path = {base / 'dovecot.log'}",
        "protocols = imap",
        f"listen = {HOST}",
        "ssl = no",
        "disable_plaintext_auth = no",  # 2.4 calls it auth_allow_cleartext = yes
        "auth_mechanisms = plain login",
        "auth_failure_delay = 0",  # a wrong password fails after ~0.5 s, not 2 s
        *privileges,
        "mail_location = maildir:~/Maildir",
        "passdb {",
        "  driver = passwd-file",
        f"  args = scheme=PLAIN username_format=%u {passwd}",
        "}",
        "userdb {",
        "  driver = static",
        f"  args = {userdb_args}",
        "}",
        "service anvil {",
        *no_chroot,
        "  unix_listener anvil-auth-penalty {",  # no growing delay after a failed login
        "    mode = 0",
        "  }",
        "}",
        "service imap-login {",
        *no_chroot,
        "  inet_listener imap {",
        f"    address = {HOST}",
        f"    port = {port}",
        "  }",
        "  inet_listener imaps {",
        "    port = 0",
        "  }",
        "}",
    ]
    config = base / "dovecot.conf"
    config.write_text("\n".join(lines) + "\n")
    return config, maildir, owner


def _greeted(port: int) -> bool:
    """True once imap-login answers with its '* OK' greeting (the master accepts before that)."""
    try:
        with socket.create_connection((HOST, port), timeout=1) as sock:
            greeting = b""
            while b"\r\n" not in greeting and len(greeting) < 1000:
                chunk = sock.recv(1000)
                if not chunk:
                    break
                greeting += chunk
            return greeting.startswith(b"* OK")
    except OSError:
        return False


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to dovecot's process group (all of its processes at once: ~0.1 s), then SIGKILL."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STOP_TIMEOUT)


@pytest.fixture
def imap_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ImapServer]:
    """A fresh dovecot on 127.0.0.1:PORT with user alice / secret and an empty INBOX Maildir."""
    binary = dovecot_binary()
    base = tmp_path_factory.mktemp("dovecot")
    run_dir = base / "run"
    short_run = None
    if len(str(run_dir)) > 70:  # unix socket paths must stay under 108 bytes
        short_run = Path(tempfile.mkdtemp(prefix="dovecot-run-"))
        run_dir = short_run
    try:
        for attempt in range(3):  # another process may take the free port before dovecot binds it
            port = free_port()
            config, maildir, owner = write_config(base, run_dir, port)
            server = ImapServer(HOST, port, USER, PASSWORD, maildir, base / "dovecot.log", owner)
            for stale in (base / "dovecot.log", base / "dovecot.out"):
                stale.unlink(missing_ok=True)
            with open(base / "dovecot.out", "wb") as out:
                proc = subprocess.Popen(
                    [binary, "-F", "-c", str(config)],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    cwd=base, start_new_session=True,
                )
            deadline = time.monotonic() + START_TIMEOUT
            while not (ready := _greeted(port)) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if ready:
                break
            why = (f"exited with code {proc.returncode}" if proc.poll() is not None
                   else f"did not greet within {START_TIMEOUT:.0f} s")
            _stop(proc)
            log = server.log()
            if "Address already in use" in log and attempt < 2:
                continue
            pytest.fail(f"dovecot on {HOST}:{port} {why}; config {config}\n{log}", pytrace=False)
        try:
            yield server
        finally:
            _stop(proc)
    finally:
        if short_run is not None:
            shutil.rmtree(short_run, ignore_errors=True)
