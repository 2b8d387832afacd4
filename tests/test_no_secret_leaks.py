"""Nothing Kioku writes holds a planted secret (issue 47, "Why" 1-2).

Each scenario plants secrets (a GitHub token in groups and hex-encoded, a Social Security number,
a passphrase) and then walks every file under the test's Kioku home and project: stores and
their journals (gzip archives read decompressed), Chroma's sqlite files, digests, ledgers, logs
and exports. No planted string may be found, in UTF-8 or in UTF-16 (LE and BE). Real Chroma,
real files, the real worker path (``kioku.worker.drain.run_evaluate``).
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import string
from pathlib import Path

import pytest

_RANDOM = random.Random("sweep")
TOKEN = "ghp_" + "".join(_RANDOM.choice(string.ascii_letters + string.digits) for _ in range(36))
SPACED = " ".join(TOKEN[i:i + 8] for i in range(0, 40, 8))  # five groups of eight, as it was pasted
SSN = "536-22-8190"
PASSPHRASE = "velvet orbit cactus lantern"
PLANTED = [TOKEN, SPACED, TOKEN.encode().hex(), TOKEN[20:], TOKEN[4:16], SSN, "536228190", PASSPHRASE,
           base64.b64encode(TOKEN.encode()).decode()]


def _contents(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            return [data, gzip.decompress(data)]
        except (OSError, EOFError):
            return [data]
    return [data]


def leaks(*roots: Path) -> list[tuple[str, str, str]]:
    """(file, planted string, encoding) for every planted string found under ``roots``."""
    found = []
    needles = [(s, enc, s.encode(enc)) for s in PLANTED for enc in ("utf-8", "utf-16-le", "utf-16-be")]
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
            for blob in _contents(path):
                for text, enc, needle in needles:
                    if needle in blob:
                        found.append((str(path.relative_to(root)), text, enc))
    return found



def _transcript(path: Path, session: str) -> Path:
    """A turn in which ``gh auth login --with-token`` failed with the token pasted in groups and
    worked with the token whole (and an option more), the prompt carrying it hex-encoded and an
    SSN; then thanks, and a wifi passphrase."""
    lines = []
    n = 0

    def line(kind: str, **extra) -> None:
        nonlocal n
        n += 1
        lines.append({"type": kind, "uuid": f"{session}-u{n}", "sessionId": session, "isSidechain": False,
                      "timestamp": f"2026-01-01T00:00:{n:02d}Z", **extra})

    def user(content) -> None:
        line("user", message={"role": "user", "content": content})

    def assistant(text: str = "", tool: tuple[str, str] | None = None) -> None:
        blocks = [{"type": "text", "text": text}] if text else []
        if tool:
            blocks.append({"type": "tool_use", "id": tool[0], "name": "Bash", "input": {"command": tool[1]}})
        line("assistant", message={"id": f"{session}-m{n}", "role": "assistant", "model": "claude-x", "content": blocks,
                                   "usage": {"input_tokens": 10, "output_tokens": 5}})

    def result(tool_id: str, text: str, error: bool) -> None:
        user([{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}])

    user(f"log in to GitHub, the token hex is {TOKEN.encode().hex()} and the form wants SSN {SSN}")
    assistant(tool=("t1", f"echo {SPACED} | gh auth login --with-token"))
    result("t1", "error validating token: HTTP 401: Bad credentials (https://api.github.com/)", True)
    assistant(tool=("t2", f"echo {TOKEN} | gh auth login --with-token --git-protocol https"))
    result("t2", "Logged in to github.com as octo", False)
    assistant("Logged in to GitHub.")
    user(f"thanks, that worked! the wifi password is {PASSPHRASE}")
    assistant("Glad it worked.")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture
def learned(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The transcript evaluated by the worker, its lesson learned (the user confirmed the turn)."""
    from kioku.lessons.store.client import open_store
    from kioku.worker import drain

    monkeypatch.setenv("KIOKU_NO_WORKER", "1")
    path = _transcript(tmp_path / "session.jsonl", "sweep-1")
    result = drain.run_evaluate({"agent": "main", "session_id": "sweep-1", "transcript_path": str(path),
                                 "cwd": str(project)}, lag_wait=0)
    assert result["status"] == "evaluated", result
    path.unlink()  # the transcript is Claude Code's, not Kioku's: it is not swept
    lessons = [r for scope in ("global", "project") for r in open_store(scope, project).get("main", "improvements")]
    evaluations = open_store("global", project).get("main", "evaluations")
    return lessons, evaluations


def test_a_lesson_learned_from_a_transcript_keeps_no_secret_anywhere(learned, isolated_home, project):
    """The lesson is learned (global: it names no file of the project) without the token, and
    nothing of the token, the SSN or the passphrase is in any store, journal, digest, ledger or log."""
    lessons, evaluations = learned
    assert lessons, "the confirmed cause→fix lesson was stored"
    [lesson] = lessons
    assert "gh auth login --with-token" in lesson.document and "[REDACTED:github_token]" in lesson.document
    assert lesson.metadata["scope"] == "global"
    assert evaluations and all("[REDACTED:" in e.document for e in evaluations if "log in" in e.document)
    assert leaks(isolated_home, project) == []


def test_the_digest_and_session_start_hold_no_secret(learned, isolated_home, project, monkeypatch):
    from kioku.hooks import session_start

    monkeypatch.setenv("KIOKU_HOLD_BACK", "0")
    payload = {"cwd": str(project), "hook_event_name": "SessionStart", "session_id": "sweep-2", "source": "startup",
               "transcript_path": str(isolated_home / ".claude" / "projects" / "p" / "sweep-2.jsonl")}
    result = session_start.handle(payload)
    assert result is not None and "gh auth login" in result.additional_context
    assert not any(s in result.additional_context for s in PLANTED)
    digests = list(isolated_home.rglob("digests/*.json"))
    assert digests and all("gh auth login" in d.read_text(encoding="utf-8") for d in digests
                           if "improvement" in d.read_text(encoding="utf-8"))
    assert leaks(isolated_home, project) == []


def test_exports_hold_no_secret(learned, isolated_home, project, kioku):
    for fmt in ("json", "md"):
        out = kioku("export", "--agent", "main", "--format", fmt, "--out", str(project / f"export.{fmt}"), cwd=project)
        assert out.returncode == 0, out.stderr
        assert not any(s in out.stdout for s in PLANTED)
    assert "gh auth login" in (project / "export.json").read_text(encoding="utf-8")
    assert leaks(isolated_home, project) == []


def test_remember_refuses_every_planted_form_and_writes_nothing(isolated_home, project, kioku):
    for text in (f"the CI token is {SPACED}", f"token hex: {TOKEN.encode().hex()}", f"token ends with {TOKEN[20:]}",
                 f"my SSN is {SSN}", f"the wifi password is {PASSPHRASE}",
                 f"token b64 {base64.b64encode(TOKEN.encode()).decode()}", f"ci token starts {TOKEN[:16]}"):
        out = kioku("remember", text, cwd=project)
        assert out.returncode == 3, (text, out.stdout, out.stderr)
        assert out.stderr.count("\n") == 1 and not any(s in out.stderr for s in PLANTED)
    kioku("remember", "we deploy with fly.io", cwd=project)  # an ordinary note still saves
    assert "fly.io" in (project / ".agents" / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert leaks(isolated_home, project) == []


def test_what_an_older_store_holds_leaves_through_no_export_digest_or_archive(isolated_home, project, kioku,
                                                                            monkeypatch):
    """Records a Kioku before this filter wrote (the store's own redaction turned off to plant them)
    are redacted on the way out: the export, a rebuilt digest and a maintenance archive."""
    from kioku.lessons import digest, maintenance
    from kioku.lessons.scopes import open_scope
    from kioku.lessons.store import journal, journal_lines
    from kioku.lessons.store.client import Record
    from kioku.lessons.improvements import new_metadata

    with monkeypatch.context() as off:  # plant as an earlier version would have
        off.setattr(journal, "without_secrets", lambda entry: dict(entry))
        off.setattr(journal_lines, "redacted_documents", lambda docs: list(docs))
        off.setattr(journal_lines, "redacted_metadatas", lambda metas: list(metas))
        store = open_scope("global", project)
        meta = new_metadata("main", "global", "error_handling", 0.9, learned_from="self_evaluation")
        store.upsert("main", "improvements", [Record("imp_old", f"use {TOKEN} for gh, SSN {SSN}", meta)])
    planted_files = leaks(isolated_home, project)
    assert planted_files, "the planting worked: the old record holds the token"
    store = open_scope("global", project)
    [record] = store.get("main", "improvements")
    exported = kioku("export", "--agent", "main", "--format", "json", cwd=project)
    assert exported.returncode == 0 and "imp_old" in exported.stdout
    assert not any(s in exported.stdout for s in PLANTED)
    digest.rebuild_store_digests(store)
    text = Path(digest.digest_path("main", "global", project)).read_text(encoding="utf-8")
    assert "use [REDACTED:github_token] for gh" in text and TOKEN not in text and SSN not in text
    archive = maintenance._archive("main", "deprecated", [{"id": record.id, "document": record.document}])
    assert TOKEN not in archive.read_text(encoding="utf-8") and SSN not in archive.read_text(encoding="utf-8")
