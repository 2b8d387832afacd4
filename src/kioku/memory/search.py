"""``kioku search``: find memories across every memory file, with ``path:line`` references.

``search(query, project_root=None, limit=10, archive=False, dense="auto") -> list[SearchHit]``

Searched: MEMORY.md entry lines and topic-file entries (a ``## heading`` and its text form
one searchable block whose line is the heading's), user-wide and project folders, and with
``archive=True`` the ``archive/`` folders too. Loose lines before the first heading of a
topic file (hand-written notes) are searched one by one.

Ranking is ``kioku.retrieval.hybrid.search_texts`` (BM25 over the Kioku tokenizer, which
handles Japanese with character bigrams, fused with MiniLM similarity when the model is
available). Only blocks that share a term with the query are returned, ranked by the fused
score, so an unrelated query finds nothing; when nothing matches lexically the few closest
blocks by meaning are returned instead (``semantic=True``). A plain case-insensitive
substring scan is the last resort for queries the tokenizer drops (stopwords, one kana).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from kioku.memory.index import ENTRY_RE, INDEX_NAME, MAX_INDEX_BYTES
from kioku.memory.topics import MAX_TOPIC_BYTES

_HEADING = re.compile(r"^##\s+\S")
_META = re.compile(r"^\s*<!--\s*kioku:.*-->\s*$")
_ID = re.compile(r"\bid=([0-9a-z]+)")
SEMANTIC_ONLY_MAX = 3


@dataclass
class SearchHit:
    file: str
    line: int
    text: str
    score: float
    scope: str = "project"
    semantic: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def _blocks(path: Path, scope: str, limit_bytes: int) -> list[tuple[tuple[str, int], str, str]]:
    """(id, searchable text, display text) for one memory file; [] if unreadable."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(limit_bytes).decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() in ("---", "...")), None)
        start = (end + 1) if end is not None else 1
    out: list[tuple[tuple[str, int], str, str]] = []
    block: list[str] = []
    block_line = 0

    def flush() -> None:
        if block:
            body = [b for b in block[1:] if b.strip() and not _META.match(b)]
            display = block[0].lstrip("# ").strip()
            if body:
                display += " — " + body[0].strip()
            ids = [m.group(1) for b in block[1:3] for m in [_ID.search(b)] if m and _META.match(b)]
            if ids:  # shown so that `kioku forget --id` can name exactly this memory
                display = display[:220] + f" [id {ids[0]}]"
            out.append(((str(path), block_line), "\n".join([block[0], *body]), display[:240]))

    is_index = path.name == INDEX_NAME
    for number, line in enumerate(lines[start:], start=start + 1):
        if is_index:
            if ENTRY_RE.match(line):
                out.append(((str(path), number), line, line.strip()))
            continue
        if _HEADING.match(line):
            flush()
            block, block_line = [line], number
        elif block:
            block.append(line)
        elif line.strip() and not line.startswith("# ") and not _META.match(line):
            out.append(((str(path), number), line, line.strip()[:240]))
    flush()
    return out


def collect(project_root: Path | None = None, archive: bool = False) -> list[tuple[tuple[str, int], str, str, str]]:
    from kioku.memory.folders import memory_dirs

    items = []
    for md in memory_dirs(project_root):
        folders = [md.path] + ([md.archive_path] if archive else [])
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob("*.md")):
                if not path.is_file() or path.is_symlink():
                    continue
                limit = MAX_INDEX_BYTES if path.name == INDEX_NAME else MAX_TOPIC_BYTES
                items.extend((key, text, display, md.scope) for key, text, display in _blocks(path, md.scope, limit))
    return items


def search(query: str, project_root: Path | None = None, limit: int = 10, archive: bool = False,
           dense: bool | str = "auto") -> list[SearchHit]:
    from kioku.retrieval.hybrid import search_texts

    query = query.strip()
    if not query or limit <= 0:
        return []
    items = collect(project_root, archive)
    if not items:
        return []
    by_id = {key: (display, scope) for key, _text, display, scope in items}
    pairs = [(key, text) for key, text, _display, _scope in items]
    lexical = search_texts(query, pairs, k=max(limit * 5, 50), dense=False)
    hits: list[SearchHit] = []
    if lexical:
        matched = {key for key, _ in lexical}
        ranked = search_texts(query, pairs, k=len(pairs), dense=dense) if dense is not False else lexical
        for key, score in ranked:
            if key in matched:
                display, scope = by_id[key]
                hits.append(SearchHit(key[0], key[1], display, round(float(score), 6), scope))
            if len(hits) >= limit:
                break
        return hits
    needle = query.lower()
    for key, text, display, scope in items:
        if needle in text.lower():
            hits.append(SearchHit(key[0], key[1], display, 1.0, scope))
            if len(hits) >= limit:
                return hits
    if hits or dense is False:
        return hits
    try:
        ranked = search_texts(query, pairs, k=min(limit, SEMANTIC_ONLY_MAX), dense=dense)
    except Exception:
        return []
    for key, score in ranked:
        display, scope = by_id[key]
        hits.append(SearchHit(key[0], key[1], display, round(float(score), 6), scope, semantic=True))
    return hits
