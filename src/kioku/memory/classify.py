"""Guess a memory's type and topic file from its wording (English and Japanese; stdlib only).

Types follow Claude Code's auto-memory: ``user`` (about the person: preferences, habits),
``feedback`` (how the assistant should or should not behave, corrections), ``project``
(facts and conventions of this codebase) and ``reference`` (where things are: URLs, docs,
dashboards). Each cue adds weight to a type; the highest total wins and ties go to the
order feedback > user > reference > project. With no cue at all a memory is ``project``,
the safest place (it stays with the repository and is not carried to other projects).

Topics: user → user-preferences.md, feedback → feedback-history.md; reference →
infrastructure-notes.md when it names infrastructure, else references.md; project →
infrastructure-notes.md (deploy/servers/CI words), tech-decisions.md (decided, chose,
switch to, instead of, 決定, 採用 ...) or project-conventions.md.
"""

from __future__ import annotations

import re

TYPE_ORDER = ("feedback", "user", "reference", "project")

_CUES: dict[str, list[tuple[re.Pattern[str], int]]] = {
    "feedback": [
        (re.compile(r"^\s*(?:please\s+)?(?:don'?t|do not|stop|quit|avoid|never)\b", re.I), 3),
        (re.compile(r"\b(?:that|this|it) (?:was|is) (?:wrong|bad|incorrect|not (?:right|what)|great|perfect|helpful)\b", re.I), 4),
        (re.compile(r"\byou (?:should(?:n't| not)?|shouldn't|must|keep|always|never|did|were|are too|made)\b", re.I), 3),
        (re.compile(r"\b(?:too (?:verbose|long|short|slow)|wrong approach|not like that|good job|well done|keep doing)\b", re.I), 3),
        (re.compile(r"(?:よくない|良くない|ダメ|だめ|駄目|間違|違います|やめて|しないで|しないでください|悪い|不要です|良かった|よかった)"), 4),
    ],
    "user": [
        (re.compile(r"\bI(?:'m| am)?\s+(?:really\s+|usually\s+|always\s+|generally\s+)?(?:prefer|like|love|hate|dislike|enjoy|want|use|work|am)\b", re.I), 4),
        (re.compile(r"\b(?:my (?:preference|favou?rite|name|editor|shell|timezone|role)|call me|i'm a|i am a)\b", re.I), 4),
        (re.compile(r"^\s*prefer\b", re.I), 2),
        (re.compile(r"(?:私は|僕は|俺は|わたしは|個人的に|私の好み|が好き|を好む|が苦手|が嫌い)"), 4),
    ],
    "reference": [
        (re.compile(r"https?://\S+|\bwww\.\S+", re.I), 5),
        (re.compile(r"\b(?:docs?|documentation|dashboard|runbook|wiki|playbook|spec|design doc|confluence|notion|jira|slack channel|grafana|kibana)\b", re.I), 2),
        (re.compile(r"\b(?:is|are|lives?|live|located|found|kept|hosted|stored) (?:at|in|on|under)\b", re.I), 2),
        (re.compile(r"(?:ドキュメント|ダッシュボード|マニュアル|手順書|にある|に置いて|で確認できる|を参照)"), 3),
    ],
    "project": [
        (re.compile(r"\b(?:we|our team|the team) (?:use|uses|prefer|deploy|run|build|follow|decided|chose|always|never)\b", re.I), 3),
        (re.compile(r"\b(?:this|the|our) (?:project|repo|repository|codebase|app|service)\b", re.I), 2),
        (re.compile(r"(?:このプロジェクト|本プロジェクト|このリポジトリ|我々は|うちでは|チームでは)"), 3),
    ],
}

_INFRA = re.compile(
    r"\b(?:deploy\w*|server|servers|staging|production|prod|kubernetes|k8s|docker|container|cluster|"
    r"terraform|ansible|nginx|aws|gcp|azure|s3|ec2|lambda|ci|cd|pipeline|github actions|host|hostname|"
    r"port|dns|vpn|ssh|database|db|redis|postgres\w*|mysql|monitoring|grafana|kibana|datadog|sentry)\b"
    r"|(?:サーバ|本番|ステージング|デプロイ|インフラ|データベース)",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:decided|decision|chose|choose|chosen|switch(?:ed)? to|migrat\w* to|move[ds]? to|adopt\w*|"
    r"instead of|rather than|over|in favou?r of|replac\w*)\b|(?:決定|採用|移行|に変更|代わりに)",
    re.I,
)


def classify_type(text: str) -> str:
    scores = {t: 0 for t in TYPE_ORDER}
    for type_, cues in _CUES.items():
        for pattern, weight in cues:
            if pattern.search(text):
                scores[type_] += weight
    best = max(TYPE_ORDER, key=lambda t: (scores[t], -TYPE_ORDER.index(t)))
    return best if scores[best] > 0 else "project"


def pick_topic(text: str, type_: str) -> str:
    if type_ == "user":
        return "user-preferences.md"
    if type_ == "feedback":
        return "feedback-history.md"
    if _INFRA.search(text):
        return "infrastructure-notes.md"
    if type_ == "reference":
        return "references.md"
    if _DECISION.search(text):
        return "tech-decisions.md"
    return "project-conventions.md"
