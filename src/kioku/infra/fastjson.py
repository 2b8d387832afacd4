"""JSON for the hooks' every-prompt path, without importing the ``json`` package.

``import json`` loads ``re``, ``enum`` and ``functools`` (about a third of a Python start-up
here) only to build the pure-Python fallbacks and the whitespace regex; the parsing and
encoding that ``json.loads``/``json.dumps`` run are the C functions of the ``_json`` module.
This module drives those same C functions directly, so the results are the ones ``json``
gives:

- :func:`loads` (``str`` in): ``json.loads`` with its defaults. Anything that is not a
  well-formed document is handed to ``json.loads`` itself, so errors are its
  ``JSONDecodeError`` (a ``ValueError``) with its message.
- :func:`dumps`: ``json.dumps(obj, ensure_ascii=..., sort_keys=...)`` with the default
  separators, no indent. Other options belong to ``json``.

Where ``_json`` or its interface is missing (another interpreter), both fall back to ``json``.
Standard library only; ``tests/infra/test_infra_fastjson.py`` compares them with ``json``.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover - every CPython has it
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"  # what json's WHITESPACE regex skips around a document
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _ScannerContext:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``, at its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_CONSTANTS.__getitem__)


_scan_once = None


def _scanner():
    global _scan_once
    if _scan_once is None:
        _scan_once = _json.make_scanner(_ScannerContext())
    return _scan_once


def loads(text: str):
    """``json.loads(text)`` for a ``str``."""
    if _json is None or not isinstance(text, str):
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scanner()(text, start)
    except StopIteration:
        value, end = None, -1  # no value where one must start: json words the error
    except (ValueError, SystemError):
        # A document cut off inside a value: the C scanner raises json's error by importing
        # ``json.decoder``, which this module avoids, and without it fails with SystemError.
        end = -1  # json.loads below raises the proper JSONDecodeError
    except (AttributeError, TypeError):  # pragma: no cover - an interpreter with another interface
        end = -1
    if end < 0 or text[end:].strip(_WHITESPACE):
        import json

        return json.loads(text)  # raises JSONDecodeError with json's own message
    return value


def _not_serializable(obj: object):
    raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")


def dumps(obj: object, *, ensure_ascii: bool = True, sort_keys: bool = False) -> str:
    """``json.dumps(obj, ensure_ascii=ensure_ascii, sort_keys=sort_keys)``."""
    if _json is not None:
        encode_string = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        if isinstance(obj, str):
            return encode_string(obj)
        try:
            encoder = _json.make_encoder({}, _not_serializable, encode_string, None, ": ", ", ",
                                         sort_keys, False, True)
        except (AttributeError, TypeError):  # pragma: no cover - an interpreter with another interface
            encoder = None
        if encoder is not None:
            return "".join(encoder(obj, 0))
    import json  # pragma: no cover

    return json.dumps(obj, ensure_ascii=ensure_ascii, sort_keys=sort_keys)  # pragma: no cover


def without_lone_surrogates(value, depth: int = 0):
    """``value`` with every lone UTF-16 surrogate ("\\ud800" in the JSON) replaced by U+FFFD, in
    strings, keys and lists up to 20 levels deep (hook input is two or three): such a string
    cannot be written as UTF-8 (a hash, a file, SQLite), so every later step failed."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if depth > 20:
        return value
    if isinstance(value, dict):
        return {without_lone_surrogates(k, depth + 1): without_lone_surrogates(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v, depth + 1) for v in value]
    return value
