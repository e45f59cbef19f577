"""A real IMAP server for the tests and the benchmark: Debian's Dovecot (``dovecot-imapd``), run
as a child process with a configuration of its own in a private folder -- listening on
127.0.0.1 on a free port, implicit TLS with a certificate made for the run (``trustme``, whose
CA the client is given), one user in a passwd-file, the mail in a Maildir of that folder.

Run by root (a container's CI), Dovecot's processes drop to its own users and the mail to
``nobody``'s: the Maildir is then ``nobody``'s, and the folders above it are made traversable
(never readable) by others, or the IMAP process could not reach it."""

from __future__ import annotations

import contextlib
import grp
import imaplib
import os
import pwd
import shutil
import signal
import ssl
import stat
import subprocess
import time
from pathlib import Path

import trustme

from tests.mailbox import free_port

DOVECOT = "/usr/sbin/dovecot"
USER = "game"
PASSWORD = "polls-the-business-list"


def missing_reason() -> str | None:
    """Why the IMAP tests cannot run here (None: they can)."""
    if not Path(DOVECOT).is_file():
        return "Debian's dovecot-imapd is not installed (/usr/sbin/dovecot)"
    return None


def _ids() -> tuple[str, str, int, int]:
    """The internal and login users of Dovecot's processes, and the mail's uid and gid."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return me.pw_name, me.pw_name, me.pw_uid, me.pw_gid
    nobody = pwd.getpwnam("nobody")
    internal = "dovecot" if _has_user("dovecot") else "nobody"
    login = "dovenull" if _has_user("dovenull") else "nobody"
    return internal, login, nobody.pw_uid, nobody.pw_gid


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


class Dovecot:
    """Dovecot serving one mailbox from ``root`` (a private folder); :meth:`start`,
    :meth:`stop`, and :meth:`deliver` to put a message in the INBOX as the mail server would."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        #: a port for STARTTLS (the password sent only once TLS is up)
        self.starttls_port = free_port()
        self.host = "127.0.0.1"
        self.process: subprocess.Popen[bytes] | None = None
        ca = trustme.CA()
        self.cafile = root / "ca.pem"
        ca.cert_pem.write_to_path(str(self.cafile))
        server = ca.issue_cert("127.0.0.1", "localhost")
        self.certfile, self.keyfile = root / "cert.pem", root / "key.pem"
        server.cert_chain_pems[0].write_to_path(str(self.certfile))
        server.private_key_pem.write_to_path(str(self.keyfile))
        self.home = root / "mail" / USER
        self.log = root / "dovecot.log"

    def env(self, **more: str) -> dict[str, str]:
        """The settings ``mail poll`` reads from the environment for this server."""
        return {"NOMIC_CARDS_IMAP_HOST": self.host, "NOMIC_CARDS_IMAP_PORT": str(self.port),
                "NOMIC_CARDS_IMAP_USER": USER, "NOMIC_CARDS_IMAP_PASSWORD": PASSWORD,
                "NOMIC_CARDS_IMAP_TLS": "ssl", "NOMIC_CARDS_IMAP_CA_FILE": str(self.cafile),
                **more}

    def _config(self) -> Path:
        internal, login, uid, gid = _ids()
        run, state = self.root / "run", self.root / "state"
        for d in (run, state, self.home):
            d.mkdir(parents=True, exist_ok=True)
        passwd = self.root / "passwd"
        passwd.write_text(f"{USER}:{{PLAIN}}{PASSWORD}:{uid}:{gid}::{self.home}\n")
        if os.geteuid() == 0:
            os.chown(self.home, uid, gid)
            for d in (self.home.parent, *self.home.parents):  # traversable, as /home is
                if d == Path("/"):
                    break
                mode = d.stat().st_mode
                if not mode & stat.S_IXOTH:
                    d.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
        conf = self.root / "dovecot.conf"
        conf.write_text(f"""\
base_dir = {run}
state_dir = {state}
log_path = {self.log}
instance_name = nomic-cards-test-{self.port}
protocols = imap
listen = {self.host}
ssl = required
ssl_cert = <{self.certfile}
ssl_key = <{self.keyfile}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain
default_internal_user = {internal}
default_internal_group = {grp.getgrgid(pwd.getpwnam(internal).pw_gid).gr_name}
default_login_user = {login}
first_valid_uid = {min(uid, 500)}
first_valid_gid = {min(gid, 500)}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {passwd}
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {passwd}
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Kept {{
    auto = create
  }}
}}
service imap-login {{
  inet_listener imap {{
    port = {self.starttls_port}
  }}
  inet_listener imaps {{
    port = {self.port}
    ssl = yes
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
""")
        return conf

    def start(self) -> Dovecot:
        conf = self._config()
        self.process = subprocess.Popen([DOVECOT, "-F", "-c", str(conf)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"dovecot exited {self.process.returncode}: {out.strip()} "
                                   f"{self._log_tail()}")
            try:
                with self.client():
                    return self
            except (OSError, imaplib.IMAP4.error):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"dovecot did not answer on port {self.port}: {self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return " | ".join(self.log.read_text().splitlines()[-5:])
        except OSError:
            return ""

    @contextlib.contextmanager
    def client(self) -> imaplib.IMAP4_SSL:  # type: ignore[misc]
        context = ssl.create_default_context(cafile=str(self.cafile))
        imap = imaplib.IMAP4_SSL(self.host, self.port, ssl_context=context, timeout=10)
        try:
            imap.login(USER, PASSWORD)
            yield imap
        finally:
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                imap.logout()

    def deliver(self, raw: bytes, folder: str = "INBOX") -> None:
        """Put ``raw`` in ``folder``, unseen, as the mail server delivers it."""
        with self.client() as imap:
            typ, data = imap.append(folder, "", None, raw)
            assert typ == "OK", data

    def flags(self, folder: str = "INBOX") -> list[tuple[str, str]]:
        """(Message-ID, flags) of each message of ``folder``, in order (``\\Recent`` aside: it
        says only which session saw the message first)."""
        out = []
        with self.client() as imap:
            imap.select(folder)
            typ, data = imap.uid("FETCH", "1:*", "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
            for part in data:
                if isinstance(part, tuple):
                    head, body = part[0].decode(), part[1].decode()
                    mid = body.partition(":")[2].strip()
                    flags = head[head.index("FLAGS (") + 7:].partition(")")[0]
                    out.append((mid, " ".join(f for f in flags.split() if f != "\\Recent")))
        return out

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()
        shutil.rmtree(self.root / "run", ignore_errors=True)
