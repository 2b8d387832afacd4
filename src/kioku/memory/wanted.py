"""Marking a memory as waiting for its search enrichment (standard library only: the save hook runs it).

A saved, edited or merged memory is marked (``kioku.infra.enrich_queue.want``); the detached
worker enriches it where a model may be called. The mark names the memory's folder and id, and
the project it was saved in (whose settings may turn enrichment off).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from kioku.memory.store import MemoryDir


def want_enrichment(md: MemoryDir, entry_id: str, project_root: Path | None = None) -> None:
    from kioku.infra import enrich_queue, pathstr

    root = str(project_root) if project_root else pathstr.find_project_root()
    enrich_queue.want("memory", entry_id, str(md.path), folder=str(md.path), scope=md.scope, project_root=root)
