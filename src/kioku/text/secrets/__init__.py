"""The one secret filter: every text Kioku stores, shows or sends passes here (standard library only).

- ``find_secrets(text) -> list[SecretFinding]``: non-overlapping findings (kind, start, end), sorted
  by position. A finding never carries the secret itself, so it is safe to log.
- ``contains_secret(text) -> bool``
- ``redact(text) -> str``: each finding replaced by ``[REDACTED:<kind>]``; for ``key = value`` style
  findings only the value is replaced, so the reader still sees what was there.
- ``redact_across_lines(text)``, ``redact_lines(lines)``, ``redact_notes(lines)``: the same for a
  secret split over lines, for many lines in one scan, and for notes written line by line.
- ``ensure_storable(text, what="memory")``: raises ``SecretRejected`` naming the kind(s); the message
  never contains any part of the secret.
- ``redact_derived(text)``: the filter for text Kioku writes or sends on its own (lessons and their
  tags, evaluation tasks and reasons, journal entries, digests, exports, and the requests to a
  model judge or enrichment and the model's answers): every finding redacted, a secret split
  over lines removed whole. ``redact_value(value)`` applies it to every string inside a JSON-like
  value (dict keys kept; ``keep(key)`` true leaves that key's value as it is).

Which to use: text a person asks to keep is checked with ``ensure_storable`` and refused (they
are told); text Kioku derives is passed through ``redact_derived`` (or ``redact_value`` for a
request or a record) and kept without the secret; text shown back (recall, search) is redacted
with ``redact`` / ``redact_notes``.

Layers, in the order the scan (:mod:`.engine`) tries them:

1. Specific formats (:mod:`.table`: provider key prefixes, PEM blocks, JWTs, credentials in URLs,
   ``password=...`` style assignments in English and Japanese, passwords given to command-line tools),
   Markdown tables and .pgpass lines (:mod:`.tables`), card numbers with Luhn (:mod:`.entropy`).
   Personal identifiers that must never reach committed memory (:mod:`.rules_personal`: national
   ID numbers, passport numbers) by their issuers' checks.
2. Secrets in disguise (:mod:`.disguised`): hex, base64 and percent-encoded runs are decoded and
   read, and a token written in groups split by blanks, dashes or dots is glued back together.
3. A generic high-entropy detector for base64-ish tokens of 16 characters and more (:mod:`.entropy`). Guards keep
   ordinary text quiet: the token must mix upper case, lower case and digits, be fragmented like
   random data (not CamelCase words), and have high Shannon entropy. Deliberate choices:
   * pure hex strings (git SHAs, sha256 digests, UUIDs) are not flagged by the generic layer,
     because hashes in prose are common and harmless; hex keys are still caught in a key-ish
     context (``api_key=...``, ``token: ...``) or by their provider prefix;
   * tokens inside a URL without credentials, names made of word-like pieces (file paths,
     "all-MiniLM-L6-v2", "2026-03-29-Issues-Triage"), SSH public keys, PEM certificates / public
     keys and data: URIs are not flagged; credentials in URLs have their own rules;
   * obvious placeholders are not secrets: ``$VAR``, ``${{ secrets.X }}``, ``<your-key>``,
     ``os.environ[...]``, ``***``, and literal placeholder words (``user:password@``).

Speed: each rule runs only where a cheap ``str.find`` anchor occurs, and token-shaped rules only
inside whitespace-free chunks of >= 20 characters, so an ordinary 2 KB prompt costs a few dozen
substring searches; quantifiers are bounded so hostile input stays linear. Patterns are compiled
on first use (:mod:`kioku.infra.lazyre`): a text with nothing to look at compiles none.
"""

from __future__ import annotations

from kioku.infra.errors import SecretRejected
from kioku.text.secrets.engine import contains_secret, find_secrets, redact
from kioku.text.secrets.findings import KIND_LABELS, SecretFinding
from kioku.text.secrets.lines import redact_across_lines, redact_lines, redact_notes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = [
    "KIND_LABELS",
    "SecretFinding",
    "contains_secret",
    "ensure_storable",
    "find_secrets",
    "redact",
    "redact_across_lines",
    "redact_derived",
    "redact_lines",
    "redact_notes",
    "redact_value",
]


def ensure_storable(text: str, what: str = "memory") -> None:
    """Raise ``SecretRejected`` if ``text`` contains a secret. The message names only kinds."""
    findings = find_secrets(text)
    if not findings:
        return
    labels: list[str] = []
    for f in findings:
        if f.label not in labels:
            labels.append(f.label)
    if len(labels) == 1:
        desc = labels[0]
    else:
        desc = ", ".join(labels[:-1]) + " and " + labels[-1]
    raise SecretRejected(
        f"refusing to store {what}: it looks like it contains {desc}; nothing was saved"
    )


def redact_derived(text: str) -> str:
    """``text`` Kioku derived, stores or sends without any secret: each finding replaced by
    ``[REDACTED:<kind>]``, and a secret split over lines removed whole (every part of it)."""
    return redact_across_lines(text) if text else text


def redact_value(value: Any, keep: Callable[[str], bool] | None = None) -> Any:
    """A copy of the JSON-like ``value`` with :func:`redact_derived` applied to every string in it:
    in lists, tuples and dict values (dict keys are kept as they are, and the values of the keys
    ``keep`` accepts: ids, hashes). Other values are returned unchanged."""
    if isinstance(value, str):
        return redact_derived(value)
    if isinstance(value, dict):
        return {k: v if keep is not None and isinstance(k, str) and keep(k) else redact_value(v, keep)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(v, keep) for v in value)
    return value
