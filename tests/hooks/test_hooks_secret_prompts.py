"""UserPromptSubmit: secrets in plain words, split over lines or on another line are never
saved; a huge prompt is cut before any scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from kioku.hooks import user_prompt_submit

TOKEN = "ghp_" + "Qx7vR2mN9pL4kT8wZ1yB6cD3fG5hJ0aSEe4U"


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    monkeypatch.setenv("KIOKU_NO_WORKER", "1")


def _stored(project: Path, home: Path) -> str:
    out = []
    for root in (project, home):
        for p in root.rglob("*.md") if root.exists() else ():
            out.append(p.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(out)


@pytest.mark.parametrize("prompt, value", [
    ("remember my password is swordfish", "swordfish"),
    ("remember that the staging password is bluewhale", "bluewhale"),
    ("パスワードは swordfish です。覚えておいて", "swordfish"),
    ("覚えておいて: 暗証番号は4821です", "4821"),
    ("remember the door PIN is 4821", "4821"),
    # a named thing and "It is …" after the question: the note reads "The db password is …"
    ("Can you remember the db password for next time? It is " + "Winter" + "2024x.", "Winter2024x"),
    ("Can you remember my password for next time? It is correct-" + "horse-battery.", "correct-horse-battery"),
    # a value that must end its clause, ended by a line break
    ("remember: the wifi pass is " + "kitsune" + "88\nthe router is in the hall", "kitsune88"),
    ("remember that my pw is " + "sword" + "fish\nthe router is in the hall", "swordfish"),
    ("remember " + "kitsune" + "88 is my wifi password", "kitsune88"),  # the value first
])
def test_plain_language_secret_is_not_saved(hook_input, project, isolated_home, prompt, value):
    result = user_prompt_submit.handle(hook_input("user_prompt_submit", prompt=prompt))
    assert result is not None and "did NOT save" in result.additional_context
    assert value not in result.additional_context and value not in (result.system_message or "")
    assert value not in _stored(project, isolated_home)


@pytest.mark.parametrize("prompt", [
    f"remember that the deploy token is {TOKEN[:20]}\n{TOKEN[20:]}",
    f"remember: we deploy with the bot account\nits token is {TOKEN}",
])
def test_secret_split_over_lines_or_on_another_line_leaves_nothing(hook_input, project, isolated_home, prompt):
    result = user_prompt_submit.handle(hook_input("user_prompt_submit", prompt=prompt))
    assert result is not None and "did NOT save" in result.additional_context
    stored = _stored(project, isolated_home)
    assert TOKEN[:12] not in stored and TOKEN[20:32] not in stored and "deploy" not in stored


@pytest.mark.parametrize("prompt", [
    "remember that we use bun for installs. " + "filler words and more " * 700_000,
    "remember: " + " ".join(f"Zq{n:07d}xYw8{n % 97:02d}kLmN3pR{n % 89:02d}vB" for n in range(480_000)),
])
def test_huge_prompt_is_cut_before_any_scan(hook_input, project, isolated_home, prompt, monkeypatch):
    from kioku.hooks.dispatch import MAX_PROMPT_CHARS
    from kioku.memory import triggers

    scanned: list[int] = []  # the length of every text the remember scanners were given

    class Hint:
        def search(self, text: str, *args: object):
            scanned.append(len(text))
            return hint.search(text, *args)

    hint, detect = triggers.REMEMBER_HINT, triggers.detect_remember
    monkeypatch.setattr(triggers, "REMEMBER_HINT", Hint())
    monkeypatch.setattr(triggers, "detect_remember", lambda text: scanned.append(len(text)) or detect(text))
    result = user_prompt_submit.handle(hook_input("user_prompt_submit", prompt=prompt))
    assert scanned and max(scanned) <= MAX_PROMPT_CHARS, scanned
    assert result is not None and "could not save" in result.additional_context
    assert _stored(project, isolated_home) == ""
