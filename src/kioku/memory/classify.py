"""Guess a memory's type and topic file from its wording (English and Japanese; stdlib only).

Types follow Claude Code's auto-memory: ``user`` (about the person: preferences, habits),
``feedback`` (how the assistant should or should not behave, corrections), ``project``
(facts and conventions of this codebase) and ``reference`` (where things are: URLs, docs,
dashboards). Each cue adds weight to a type; the highest total wins and ties go to the
order feedback > user > reference > project. With no cue at all a memory is ``project``,
the safest place (it stays with the repository and is not carried to other projects).

Topics: user → user-preferences.md, feedback → feedback-history.md; infrastructure words
(deploy, servers, CI, databases, サーバ, デプロイ ...) → infrastructure-notes.md; other
references → references.md; decisions (decided, chose, switch to, instead of, 決定, 採用 ...)
→ tech-decisions.md; anything else → project-conventions.md.

Speed: runs on the hook save path, so cues are word/phrase lookups on a lower-cased,
space-padded word sequence (word boundaries for free) and substring tests for Japanese.
"""

from __future__ import annotations

import re
import unicodedata

from kioku.infra.lazyre import LazyPattern

TYPE_ORDER = ("feedback", "user", "reference", "project")

_WORD = re.compile(r"[a-z0-9][a-z0-9_'+#-]*")


def _combos(firsts, seconds, thirds=("",)) -> tuple[str, ...]:
    return tuple(" ".join(p for p in (a, b, c) if p) for a in firsts for b in seconds for c in thirds)


_ADVERBS = ("", "really", "usually", "always", "generally", "strongly")
# (weight, phrases matched at word boundaries, phrases that must start the text, Japanese substrings)
_CUES: dict[str, list[tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]] = {
    "feedback": [
        (3, (), ("don't", "do not", "dont", "stop", "quit", "avoid", "never", "please don't", "please do not",
                 "please stop", "please avoid", "please never",
                 # the positive form of the same standing instruction ("Always run lint before pushing")
                 "always", "please always", "make sure to", "be sure to"),
         ("ないでください", "ないで下さい", "ないでね", "ないでほしい", "ないで欲しい")),
        (4, _combos(("that", "this", "it"), ("was", "is"), ("wrong", "bad", "incorrect", "great", "perfect", "helpful")) +
         ("that's wrong", "that's not right", "not what i asked", "not what i wanted"), (), ()),
        (3, _combos(("you",), ("should", "shouldn't", "must", "keep", "always", "never", "did", "were", "made")) +
         ("you are too", "you're too", "too verbose", "too long", "too short", "too slow", "wrong approach",
          "not like that", "good job", "well done", "keep doing"), (), ()),
        (4, (), (), ("よくない", "良くない", "ダメ", "だめ", "駄目", "間違", "違います", "やめて", "しないで", "悪い",
                     "不要です", "良かった", "よかった")),
        # how to talk to the person: the language or tone of every answer
        (3, (), ("always answer", "always reply", "always respond", "answer in", "reply in", "respond in",
                 "never answer", "never reply"), ("日本語で返", "英語で返", "日本語で回答", "英語で回答", "日本語で答え", "英語で答え", "敬語")),
    ],
    "user": [
        (4, _combos(("i", "i'm", "i am"), _ADVERBS, ("prefer", "like", "love", "hate", "dislike", "enjoy", "want",
                                                     "use", "work")) +
         ("i'm a", "i am a", "call me", "my preference", "my favorite", "my favourite", "my name", "my editor",
          "my shell", "my timezone", "my role"), (), ()),
        (2, (), ("prefer",), ()),
        # a note written about the person in the third person ("Prefers answers in Japanese")
        (3, (), ("prefers", "user prefers", "the user prefers", "user likes", "the user likes", "user wants",
                 "the user wants"), ()),
        (4, (), (), ("私は", "僕は", "俺は", "わたしは", "個人的に", "私の好み", "が好き", "を好む", "が苦手", "が嫌い")),
    ],
    "reference": [
        (2, ("docs", "doc", "documentation", "dashboard", "runbook", "wiki", "playbook", "spec", "design doc",
             "confluence", "notion", "jira", "slack channel", "grafana", "kibana") +
         _combos(("is", "are", "lives", "live", "located", "found", "kept", "hosted", "stored"), ("at", "in", "on", "under")),
         (), ()),
        (3, (), (), ("ドキュメント", "ダッシュボード", "マニュアル", "手順書", "にある", "に置いて", "で確認できる", "を参照")),
    ],
    "project": [
        (3, _combos(("we", "our team", "the team"), ("use", "uses", "prefer", "deploy", "run", "build", "follow",
                                                    "decided", "chose", "always", "never")), (), ()),
        (2, _combos(("this", "the", "our"), ("project", "repo", "repository", "codebase", "app", "service")), (), ()),
        (3, (), (), ("このプロジェクト", "本プロジェクト", "このリポジトリ", "我々は", "うちでは", "チームでは")),
    ],
}

_INFRA_WORDS = {"deploy", "deploys", "deployed", "deploying", "deployment", "deployments", "server", "servers",
                "staging", "production", "prod", "kubernetes", "k8s", "docker", "container", "containers", "cluster",
                "terraform", "ansible", "nginx", "aws", "gcp", "azure", "s3", "ec2", "lambda", "ci", "cd", "pipeline",
                "host", "hostname", "port", "dns", "vpn", "ssh", "database", "db", "redis", "postgres", "postgresql",
                "mysql", "monitoring", "grafana", "kibana", "datadog", "sentry"}
_INFRA_PHRASES = ("github actions",)
_INFRA_JA = ("サーバ", "本番", "ステージング", "デプロイ", "インフラ", "データベース")
_DECISION_WORDS = {"decided", "decision", "chose", "choose", "chosen", "adopt", "adopted", "adopting", "over",
                   "replace", "replaced", "replacing"}
_DECISION_PHRASES = ("switch to", "switched to", "migrate to", "migrated to", "move to", "moved to", "instead of",
                     "rather than", "in favor of", "in favour of")
_DECISION_JA = ("決定", "採用", "移行", "に変更", "代わりに")


# A relative path inside the repository ("src/api", "tests/fixtures/x.json"), not "/etc" or "~/x".
_REPO_PATH = LazyPattern(r"(?<![\w/~.:])[a-z0-9_.-]+/[a-z0-9_./-]*")
_PRAISE_WORDS = ("good", "great", "nice", "perfect", "excellent", "bad", "wrong", "not good")
_PRAISE = LazyPattern(r"(?:" + "|".join(_PRAISE_WORDS) + r")\s*[:!—-]")


def _prepare(text: str) -> tuple[str, list[str], str]:
    low = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    words = _WORD.findall(low)
    return low, words, " " + " ".join(words) + " "


def classify_type(text: str) -> str:
    low, words, padded = _prepare(text)
    head = " ".join(words[:3]) + " "
    scores = {t: 0 for t in TYPE_ORDER}
    for type_, cues in _CUES.items():
        for weight, phrases, starts, japanese in cues:
            if (any(f" {p} " in padded for p in phrases) or any(head.startswith(s + " ") for s in starts)
                    or any(j in low for j in japanese)):
                scores[type_] += weight
    url = "http://" in low or "https://" in low or "www." in low
    if url:
        scores["reference"] += 5
    elif "/" in low and _REPO_PATH.search(low):
        scores["project"] += 3  # "Handlers live in src/api": a place in this codebase, not a reference
    if low.rstrip("。.!！ ").endswith("ないで"):
        scores["feedback"] += 3  # "コメントを書きすぎないで": a request to stop doing something
    if low.startswith(_PRAISE_WORDS) and _PRAISE.match(low):
        scores["feedback"] += 5  # "Good: small commits are what I want" judges the assistant's work
    best = max(TYPE_ORDER, key=lambda t: (scores[t], -TYPE_ORDER.index(t)))
    return best if scores[best] > 0 else "project"


def pick_topic(text: str, type_: str) -> str:
    if type_ == "user":
        return "user-preferences.md"
    if type_ == "feedback":
        return "feedback-history.md"
    low, words, padded = _prepare(text)
    if _INFRA_WORDS.intersection(words) or any(f" {p} " in padded for p in _INFRA_PHRASES) or any(
            j in low for j in _INFRA_JA):
        return "infrastructure-notes.md"
    if type_ == "reference":
        return "references.md"
    if _DECISION_WORDS.intersection(words) or any(f" {p} " in padded for p in _DECISION_PHRASES) or any(
            j in low for j in _DECISION_JA):
        return "tech-decisions.md"
    return "project-conventions.md"
