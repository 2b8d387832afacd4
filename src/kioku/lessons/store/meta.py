"""Metadata normalisation for the agent-memory store (stdlib only).

Chroma 1.5 rejects ``None`` values in ``add``, empty metadata dicts, empty lists,
mixed-type lists and nested dicts. Every metadata dict passes through
``clean_metadata`` before it is journaled, so the journal only holds values Chroma accepts
and a replay can never fail on them:

- ``None`` values are dropped. For ``update_metadata`` that means "leave this key as it is"
  (updates merge key by key). Nothing in Kioku stores None on purpose:
  an untested improvement has ``success_rate = -1.0`` and ``tested = False``; a never-used
  one has ``last_used = ""`` and ``usage_count = 0``.
- An empty dict (after dropping None) becomes ``{"kioku_placeholder": True}``; the
  placeholder is removed again when records are read back (``strip_placeholder``).
- Lists/tuples/sets: an empty one becomes ``""`` (so an update really clears the value);
  a homogeneous list of str/int/float/bool is kept; anything else becomes a list of str.
- bool/int/float/str are kept (NaN/inf floats become strings). Note: Chroma does not
  round-trip every float exactly (1795984377.0443513 reads back as 1795984377.044351, one
  ulp off): compare floats read back with a tolerance. Dicts become JSON strings;
  other objects (datetime, Path) become ``str(value)`` / ``isoformat()``.
- Keys must be non-empty strings not starting with ``$`` and not ``chroma:``-prefixed:
  a ValueError is raised before anything is written.
"""

from __future__ import annotations

import json
import math
from typing import Any

PLACEHOLDER_KEY = "kioku_placeholder"
_SCALARS = (bool, int, float, str)


def _scalar(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    iso = getattr(value, "isoformat", None)
    if callable(iso):
        return iso()
    return str(value)


def _clean_value(value: Any) -> Any:
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [v for v in (sorted(value, key=str) if isinstance(value, (set, frozenset)) else value)
                 if v is not None]
        if not items:
            return ""
        items = [_scalar(v) for v in items]
        first = type(items[0])
        if first in _SCALARS and all(type(v) is first for v in items):
            return items
        return [str(v) for v in items]
    return _scalar(value)


def clean_metadata(metadata: dict | None, *, placeholder: bool = True) -> dict:
    """A copy of ``metadata`` that Chroma will accept (see the module docstring)."""
    out: dict[str, Any] = {}
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"metadata keys must be non-empty strings, got {key!r}")
        if key.startswith("$") or key.startswith("chroma:"):
            raise ValueError(f"metadata key {key!r} is reserved by Chroma")
        if value is None:
            continue
        out[key] = _clean_value(value)
    if not out and placeholder:
        out[PLACEHOLDER_KEY] = True
    return out


def strip_placeholder(metadata: dict | None) -> dict:
    if not metadata:
        return {}
    return {k: v for k, v in metadata.items() if k != PLACEHOLDER_KEY}
