"""The memories the user allowed with ``kioku trust`` (standard library only).

A trust is bound to a memory's exact content: its digest (``kioku.memory.written``), so an edit
after the trust makes the memory a new one, withheld again until it is trusted again. Trusts
are kept per project place like the written record, in
``<state>/memory-trust/<place>.json`` (``{"trusted": {digest: {"id", "file", "at", "commit"}}}``),
written atomically under a lock.
"""

from __future__ import annotations

import os

from kioku.infra import clock, fsutil, pathstr

FOLDER = "memory-trust"
MAX_BYTES = 16 * 1024 * 1024


def _folder() -> str:
    return os.path.join(pathstr.state_dir(), FOLDER)


def _load(path: str) -> dict[str, dict]:
    from kioku.infra.fastjson import loads

    try:
        data = loads(fsutil.read_regular(path, MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError, IsADirectoryError):
        return {}
    found = data.get("trusted") if isinstance(data, dict) else None
    return {k: v for k, v in found.items() if isinstance(v, dict)} if isinstance(found, dict) else {}


def trusted_digests(project_root: str) -> dict[str, dict]:
    """Digest -> what was trusted (id, file, when, commit), over every place of the project."""
    from kioku.memory.written import place_keys

    out: dict[str, dict] = {}
    for key in place_keys(project_root):
        out.update(_load(os.path.join(_folder(), key + ".json")))
    return out


def _change(project_root: str, add: dict[str, dict], remove: set[str]) -> None:
    from kioku.infra.fastjson import dumps
    from kioku.memory.written import place_keys

    folder = _folder()
    with fsutil.exclusive_lock(os.path.join(folder, ".lock")):
        for key in place_keys(project_root):
            path = os.path.join(folder, key + ".json")
            current = _load(path)
            current.update(add)
            for digest in remove:
                current.pop(digest, None)
            fsutil.atomic_write_text(path, dumps({"trusted": current}, ensure_ascii=False, sort_keys=True) + "\n")


def trust(project_root: str, records: dict[str, dict]) -> None:
    """Trust the memories ``records`` (digest -> id, file, at, commit) names."""
    if records:
        _change(project_root, records, set())


def revoke(project_root: str, digests: set[str]) -> None:
    if digests:
        _change(project_root, {}, digests)


def carry_over(md, originals, merged, file: str = "") -> None:
    """A memory ``kioku organize`` merged from ``originals`` is Kioku's own when every one of them
    was; trusted when each was Kioku's own or trusted; otherwise it is judged as it now reads."""
    if md.scope != "project":
        return
    from kioku.memory.written import WrittenRecord, memory_digest, record

    root = str(md.base)
    seen = WrittenRecord(root)
    digests = [memory_digest(e.summary, e.text) for e in originals]
    if all(d in seen for d in digests):
        record(root, [memory_digest(merged.summary, merged.text)])
        return
    trusts = trusted_digests(root)
    if all(d in seen or d in trusts for d in digests):
        trust(root, {memory_digest(merged.summary, merged.text): {
            "id": merged.id, "file": file, "at": clock.iso_z(),
            "commit": "", "from": "merge of trusted memories"}})
