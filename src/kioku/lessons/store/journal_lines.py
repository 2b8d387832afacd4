"""What a journal line may hold: every document and the text of every metadata field pass
``kioku.text.secrets.redact_derived``; ids, hashes and times are kept as they are."""

from __future__ import annotations

import json

from kioku.text.secrets import redact_derived, redact_value


def identifies(key: str) -> bool:
    """A metadata field that identifies or dates a record (ids, hashes, times): never redacted."""
    return key == "id" or key.endswith(("_id", "_ids", "_uuid", "_sha256", "_epoch"))


def redacted_documents(documents: list) -> list:
    """The documents of a write with every secret redacted (``redact_derived``)."""
    return [redact_derived(d) if isinstance(d, str) else d for d in documents]


def redacted_metadatas(metadatas: list) -> list:
    """The metadata of a write with the secrets in its text fields redacted (ids, hashes and times kept)."""
    return [redact_value(m, keep=identifies) if isinstance(m, dict) else m for m in metadatas]


def without_secrets(entry: dict) -> dict:
    """A journal entry whose documents and metadata text hold no secret (a copy; other fields kept)."""
    out = dict(entry)
    if isinstance(out.get("documents"), list):
        out["documents"] = redacted_documents(out["documents"])
    if isinstance(out.get("metadatas"), list):
        out["metadatas"] = redacted_metadatas(out["metadatas"])
    return out


def line(record: dict) -> str:
    """One journal line: ``record`` without secrets, as compact JSON."""
    return json.dumps(without_secrets(record), ensure_ascii=False, separators=(",", ":"))
