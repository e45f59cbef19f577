"""Who sent it: a message is authenticated by a DKIM signature (RFC 6376, checked by dkimpy)
that verifies, made by the domain of its From address itself (the signature's ``d=`` is that
domain, without regard to case: no parent, no other domain), covering the From and the
Message-ID headers, and covering the whole body (a signature with ``l=``, which lets anyone add
text after the part it signs, does not count).

The signers' public keys come from DNS, through dkimpy's own resolver; or, when
``NOMIC_CARDS_DKIM_KEYS`` names a file, from that file alone (for a list server whose keys are
known, or a test): one key a line, ``selector._domainkey.domain TXT-VALUE`` as the DNS record
would hold it (``v=DKIM1; k=rsa; p=MIIB...``); blank lines and lines starting with ``#`` aside.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from nomic_cards.errors import NomicCardsError

KEYS_VARIABLE = "NOMIC_CARDS_DKIM_KEYS"
#: how long a DNS lookup of a key may take
DNS_TIMEOUT = 5
#: the signatures tried, at most, in one message
MAX_SIGNATURES = 5


class ConfigError(NomicCardsError):
    """The mail settings cannot be used (a keys file that cannot be read, say)."""


@dataclass(frozen=True)
class PinnedKeys:
    """Keys pinned in a file: ``selector._domainkey.domain`` (lower case, no final dot) -> the
    TXT record."""

    path: str
    records: Mapping[str, bytes]

    def lookup(self, name: bytes | str, timeout: int = DNS_TIMEOUT) -> bytes | None:
        text = name.decode("ascii", "replace") if isinstance(name, bytes) else name
        return self.records.get(text.rstrip(".").lower())


def read_keys(path: str) -> PinnedKeys:
    """The keys of file ``path``; :class:`ConfigError` naming the line that is wrong."""
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not ASCII text"
        raise ConfigError(f"{KEYS_VARIABLE} {path}: cannot be read ({why})") from None
    records: dict[str, bytes] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition(" ")
        name = name.rstrip(".").lower()
        if "._domainkey." not in name or not value.strip():
            raise ConfigError(f"{KEYS_VARIABLE} {path} line {number}: give a key as "
                              "'selector._domainkey.domain v=DKIM1; k=rsa; p=...'")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        records[name] = value.encode("ascii")
    return PinnedKeys(path, records)


def keys_from_environment(environ: Mapping[str, str]) -> PinnedKeys | None:
    """The pinned keys ``NOMIC_CARDS_DKIM_KEYS`` names (None: keys come from DNS)."""
    path = environ.get(KEYS_VARIABLE) or None
    return None if path is None else read_keys(path)


@dataclass(frozen=True)
class Verdict:
    """How the message was authenticated (``how``), or why it was not (``why_not``)."""

    how: str | None
    why_not: str


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def authenticate(raw: bytes, sender: str | None, *,
                 keys: PinnedKeys | None = None) -> Verdict:
    """Whether a DKIM signature of ``raw`` authenticates ``sender`` (its From address)."""
    if sender is None or "@" not in sender:
        return Verdict(None, "no From address to authenticate")
    domain = sender.rpartition("@")[2].lower()
    import dkim

    lookup: Callable[..., bytes | None] = keys.lookup if keys is not None else dkim.get_txt
    try:
        checker = dkim.DKIM(raw, timeout=DNS_TIMEOUT)
        signatures = [v for k, v in checker.headers if k.lower() == b"dkim-signature"]
    except Exception as exc:  # noqa: BLE001 - dkimpy's parser on a malformed message
        return Verdict(None, f"its DKIM signature cannot be read ({_reason(exc)})")
    if not signatures:
        return Verdict(None, "it has no DKIM signature")
    reasons: list[str] = []
    for index in range(min(len(signatures), MAX_SIGNATURES)):
        try:
            ok = checker.verify(idx=index, dnsfunc=lookup)
        except Exception as exc:  # noqa: BLE001 - dkim.DKIMException, or a DNS failure
            reasons.append(_reason(exc))
            continue
        signer = (checker.domain or b"").decode("ascii", "replace").lower()
        fields = checker.signature_fields or {}
        covered = {h.lower() for h in (checker.include_headers or ())}
        if not ok:
            reasons.append(f"the signature of {signer} does not verify")
        elif signer != domain:
            reasons.append(f"it is signed by {signer}, not by {domain}, the From's domain")
        elif b"l" in fields:
            reasons.append(f"the signature of {signer} covers only part of the body (l=)")
        elif b"from" not in covered or b"message-id" not in covered:
            reasons.append(f"the signature of {signer} does not cover the From and the "
                           "Message-ID")
        else:
            selector = (checker.selector or b"").decode("ascii", "replace")
            return Verdict(f"DKIM signature of {signer} (selector {selector})", "")
    return Verdict(None, "; ".join(reasons) or "no DKIM signature verifies")
