"""What waits for its search enrichment: one small marker file per memory or lesson (stdlib only).

The save paths (``kioku.memory.save.remember`` inside the UserPromptSubmit hook among them)
call :func:`want` after a memory or a lesson is written: it costs one small file write, no
model, no worker start. The detached worker (``kioku.worker.enrich``) reads the markers with
:func:`pending` after its jobs, asks the model when one may be called, and removes each marker
with :func:`done` once its item is enriched, or when no model may be called at all (then the item
stays as searchable as it always was, and ``kioku enrich`` can enrich it later).

A marker is ``<state_dir>/enrich/wanted/<kind>-<hash>.json`` holding ``{"kind": "memory" |
"lesson", "id", "at", ...}`` plus where the item lives (a memory's ``folder`` and ``scope``, a
lesson's ``agent`` and ``scope``, and the ``project_root`` it was saved in). Marking the same
item again replaces its marker. The write is not synced to disk: a marker lost in a crash only
means that item waits for ``kioku enrich``. Nothing is marked inside a model run Kioku started.
"""

from __future__ import annotations

import os
import time

from kioku.infra import fastjson, pathstr
from kioku.infra.sha import sha256

KINDS = ("memory", "lesson")


def wanted_dir() -> str:
    return os.path.join(pathstr.state_dir(), "enrich", "wanted")


def marker_name(kind: str, ident: str, where: str) -> str:
    digest = sha256("\0".join((kind, ident, where)).encode("utf-8")).hexdigest()
    return f"{kind}-{digest[:20]}.json"


def want(kind: str, ident: str, where: str, **fields: object) -> str | None:
    """Mark one item as waiting for enrichment; returns the marker's path (None when not marked).

    ``where`` tells two items with the same id apart (a memory's folder, a lesson's scope)."""
    from kioku.infra.env import NESTED_RUN

    if kind not in KINDS or not ident or os.environ.get(NESTED_RUN):
        return None
    folder = wanted_dir()
    data = {"kind": kind, "id": ident, "at": time.time(),
            **{k: v for k, v in fields.items() if isinstance(v, (str, int, float, bool))}}
    target = os.path.join(folder, marker_name(kind, ident, where))
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        tmp = f"{target}.{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(fastjson.dumps(data, ensure_ascii=False))  # the json package costs a hook ms
        os.replace(tmp, target)
    except OSError:
        return None  # derived work: the save itself succeeded, and `kioku enrich` catches up
    return target


def pending() -> list[tuple[str, dict]]:
    """(marker path, its fields) of every waiting item, oldest first; unreadable markers are dropped."""
    import json

    folder = wanted_dir()
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []
    out: list[tuple[float, str, dict]] = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            done(path)
            continue
        if isinstance(data, dict) and data.get("kind") in KINDS and data.get("id"):
            out.append((float(data.get("at") or 0), path, data))
        else:
            done(path)
    out.sort(key=lambda item: (item[0], item[1]))
    return [(path, data) for _at, path, data in out]


def done(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
