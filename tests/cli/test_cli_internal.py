"""kioku.cli.internal: `kioku hook` and `kioku worker`, which the hooks run, work and stay out of help."""

from __future__ import annotations

import json
from pathlib import Path

from kioku.infra import jobs

TRANSCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "plain_success.jsonl"


def test_internal_commands_are_hidden_from_help(kioku) -> None:
    listed = {line.split()[0] for line in kioku("--help").stdout.splitlines() if line.startswith("  ")}
    assert not {"hook", "worker"} & listed
    assert kioku("hook", "--help").returncode == 0 and kioku("worker", "--help").returncode == 0


def test_hook_runs_an_event_on_a_payload_from_stdin(project: Path, kioku) -> None:
    payload = {"session_id": "cli-hook", "transcript_path": str(project / "t.jsonl"), "cwd": str(project),
               "hook_event_name": "UserPromptSubmit", "prompt": "remember that the docs site builds with hugo"}
    out = kioku("hook", "UserPromptSubmit", input=json.dumps(payload), cwd=project)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"].startswith("Saved to memory")
    assert "hugo" in (project / ".agents" / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    by_module_name = kioku("hook", "user_prompt_submit", input=json.dumps({**payload, "prompt": "hello"}), cwd=project)
    assert by_module_name.returncode == 0 and by_module_name.stderr == ""
    bad = kioku("hook", "Nope", input="{}", cwd=project)
    assert bad.returncode == 0 and bad.stdout == "" and "unknown hook event" in bad.stderr


def test_worker_drain_is_wait_under_its_old_name_and_says_so(project: Path, kioku, monkeypatch) -> None:
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")  # the job waits for the worker this test starts
    jobs.enqueue({"agent": "main", "session_id": "cli-worker", "cwd": str(project),
                  "transcript_path": str(TRANSCRIPT)})
    out = kioku("worker", "--drain", "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["processed"] == 1 and jobs.pending() == []
    assert out.stderr == "kioku: warning: --drain is the old name of --wait; use --wait\n"
    waited = kioku("worker", "--wait", cwd=project)
    assert waited.returncode == 0 and waited.stdout == "processed 0 job(s), 0 failed\n" and waited.stderr == ""
    detached = kioku("worker", cwd=project)  # as the hooks start it: no report unless asked
    assert detached.returncode == 0 and detached.stdout == ""
