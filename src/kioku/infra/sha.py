"""SHA-256 for the hooks' fast path, without loading OpenSSL.

``hashlib`` imports ``_hashlib`` (OpenSSL bindings), about 3 ms of every hook process that
hashes anything. CPython also ships its own SHA-256 as a built-in module (``_sha2`` from 3.12,
``_sha256`` before); the digests are identical. ``hashlib`` is the fallback when neither is
there (a build without them).
"""

from __future__ import annotations


_CONSTRUCTOR: list = []  # the sha256 constructor, found once per process


def _constructor():
    if not _CONSTRUCTOR:
        try:
            from _sha2 import sha256 as builtin  # type: ignore[import-not-found]
        except ImportError:
            try:
                from _sha256 import sha256 as builtin  # type: ignore[import-not-found,no-redef]
            except ImportError:
                from hashlib import sha256 as builtin  # type: ignore[assignment]
        _CONSTRUCTOR.append(builtin)
    return _CONSTRUCTOR[0]


def sha256(data: bytes = b"") -> "hashlib._Hash":  # noqa: F821 (typing and hashlib stay unimported)
    """A SHA-256 hash object of ``data`` (``.hexdigest()``, ``.digest()``, ``.update()``)."""
    return _constructor()(data)


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return sha256(text.encode("utf-8")).hexdigest()
