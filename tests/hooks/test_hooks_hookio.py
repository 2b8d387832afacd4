"""hookio's cheap helpers agree with the full implementations they stand in for."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kioku.infra import config, paths
from kioku.hooks import dispatch as hookio
from kioku.memory.triggers import REMEMBER_HINT
from kioku.hooks.user_prompt_submit import no_remember_hint_raw

WORDS = ["please", "Remember", "REMEMBER", "that", "we", "use", "bun", "save", "Saved", "this:", "note",
         "Note", "for", "future", "From", "now", "on", "keep", "in", "mind", "write", "it", "down",
         "don't", "forget", "store", "memory", "覚えておいて", "保存して", "忘れないで", "メモして",
         "記憶", "記録", "テスト", "を", "の", "fix", "the", "parser", "refactor", "tests", "port",
         "5432", "Memorize", "FORGET", "rememb", "er", "sa", "ve", "\n", "\"quoted\"", "é", "→",
         "今後は", "これからは", "次回から", "次から", "今度から", "以後は", "以降", "、",
         "sessions", "Standing", "later", "lasting", "long-term", "Long term", "next time", "next session",
         "persist", "Permanent", "henceforth", "this point", "forward", "forever", "for good", "heads-up:", "beyond today:", "Retain this", "Durable note"]


def test_raw_prefilter_never_skips_a_prompt_the_hint_matches():
    rng = random.Random(1234)
    checked = matched = 0
    for _ in range(5000):
        prompt = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))
        payload = {"session_id": "s", "cwd": "/tmp/p", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        for ascii_only in (False, True):  # Claude Code sends UTF-8; escaped input must work too
            raw = json.dumps(payload, ensure_ascii=ascii_only).encode()
            checked += 1
            if REMEMBER_HINT.search(prompt):
                matched += 1
                assert not no_remember_hint_raw(raw), prompt
    assert matched > 1000 and checked == 10000


@pytest.mark.parametrize("prompt", ["fix the failing parser test", "why is the build slow", "テストを直して"])
def test_raw_prefilter_skips_ordinary_prompts(prompt):
    raw = json.dumps({"prompt": prompt, "cwd": "/tmp/p", "session_id": "s"}, ensure_ascii=False).encode()
    assert no_remember_hint_raw(raw)


def test_project_root_and_config_lookup_match_paths_module(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    for start in (repo, sub, plain):
        assert hookio.project_root_of({"cwd": str(start)}) == str(paths.find_project_root(start))
    monkeypatch.chdir(sub)
    assert hookio.project_root_of({}) == str(paths.find_project_root())
    for env in ({"KIOKU_HOME": str(tmp_path / "kh")}, {"KIOKU_HOME": "", "CLAUDE_CONFIG_DIR": str(tmp_path / "c")},
                {"KIOKU_HOME": "", "CLAUDE_CONFIG_DIR": "", "KIOKU_USER_HOME": str(tmp_path / "u")}):
        for key, value in env.items():
            if value:
                monkeypatch.setenv(key, value)
            else:
                monkeypatch.delenv(key, raising=False)
        files = config.config_files(repo)
        assert not hookio.config_present(str(repo))
        files[0].parent.mkdir(parents=True, exist_ok=True)
        files[0].write_text("disabled = false\n")
        assert hookio.config_present(str(repo))
        files[0].unlink()


def test_no_trigger_prompt_imports_neither_json_nor_re(tmp_path):
    repo = Path(__file__).resolve().parents[2]
    code = ("import io, sys; sys.path.insert(0, sys.argv[1]); from kioku.hooks import dispatch as hookio\n"
            "raw = b'{\"prompt\": \"fix the flaky parser test\", \"cwd\": \"/tmp\"}'\n"
            "out = io.StringIO(); hookio.run('UserPromptSubmit', stdin=io.BytesIO(raw), stdout=out)\n"
            "print(sorted(m for m in ('json', 're', 'pathlib', 'typing', 'dataclasses') if m in sys.modules), out.getvalue())")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    res = subprocess.run([sys.executable, "-S", "-c", code, str(repo / "src")], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"

