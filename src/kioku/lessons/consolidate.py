"""Consolidation across agents: equivalent lessons, conflicts, transferred principles.

Hooks (public API):
- :func:`consolidatable` — improvements with ``consolidation_eligible``, ``source == "self"``, not
  deprecated;
- :func:`mark_cross_validated` — ``cross_validated=True`` and ``validating_agents`` (comma-joined);
  a candidate below 0.7 (stored from user feedback) is raised to 0.7: another agent learned it too.
  A lesson already marked with the same agents is not written again;
- :func:`receive_principle` — store a principle validated elsewhere with confidence × 0.9,
  ``source="system_principles"``, ``consolidation_eligible=False`` (never consolidated again, so it
  cannot echo back), ``cross_validated=True``; retrieval ranks cross-validated items × 1.2.

:func:`consolidate` (``kioku lessons consolidate [--agents a,b] [--dry-run] [--scope global|project]``):
1. embeds every consolidatable lesson of the agents (real MiniLM);
2. two lessons of *different* agents are **equivalent** when cosine >= :data:`EQUIVALENCE_THRESHOLD`
   and their polarity agrees; they are grouped (union-find);
3. a **conflict** is either of two kinds:
   - "opposite": the lessons with the directive words removed ("always", "never", "use",
     "avoid", "don't", ...) have cosine >= the same threshold but opposite polarity ("Always X"
     vs "Never X": MiniLM gives such pairs cosines of 0.8-0.9, so without the polarity check they
     would look equivalent);
   - "different values": cosine >= the threshold, the same polarity, and the same sentence with
     something else in one place (:func:`differ_in_one_place`: "Use tabs for indentation" /
     "Use spaces for indentation", "Retry at most 3 times" / "… 5 times", "migrate before /
     after deploying", タブ / スペース; MiniLM gives such pairs cosines of 0.58-0.99, most of them
     above the threshold).
   Conflicts are reported. A group holding a lesson in conflict (a third agent's paraphrase can
   join both sides) is reported as conflicted, and is neither marked cross-validated nor
   transferred;
4. groups spanning >= 2 agents are marked cross-validated, and their best lesson (highest
   confidence) is transferred to every other selected agent that lacks it.

A copy is not a confirmation: lessons that share a lineage (one's ``original_id`` is the other's
id, or both carry the same ``original_id``, as ``kioku lessons clone`` and imports leave them) count as
one. A group needs lessons of at least two lineages from at least two agents; otherwise it is
neither reported as shared nor marked nor transferred.

The report lists only real writes: a transfer to an agent that already holds the lesson, and a
cross-validation already recorded, are left out (``cross_validated`` counts lessons marked now).

:data:`EQUIVALENCE_THRESHOLD` is the cosine at which two lessons count as one, fitted on
tests/lessons/data/equivalence_pairs.json (and re-derived by tests/lessons/test_lessons_consolidate.py).
Re-running is idempotent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from kioku.lessons import scopes as sc
from kioku.lessons.improvements import KIND, join_tags, learn, now, split_tags

EQUIVALENCE_THRESHOLD = 0.694
TRANSFER_FACTOR = 0.9
MIN_AGENTS = 2

_NEG = re.compile(r"\b(never|avoid|avoids|avoiding|don'?t|do not|does not|must not|mustn'?t|"
                  r"should not|shouldn'?t|stop|no longer|instead of|refrain from)\b", re.I)
_POS = re.compile(r"\b(always|use|prefer|do|should|must|make sure|ensure|remember to)\b", re.I)
_JA_NEG = re.compile(r"(しない|しないこと|避け|禁止|使わない|ないこと)")


def polarity(text: str) -> int:
    """-1 for prohibitions ("never", "avoid", "don't"), +1 for directives, 0 otherwise."""
    if _NEG.search(text) or _JA_NEG.search(text):
        return -1
    return 1 if _POS.search(text) else 0


def subject(text: str) -> str:
    """The lesson without its directive words, to compare what two lessons are about."""
    stripped = _POS.sub(" ", _NEG.sub(" ", text))
    return re.sub(r"\s+", " ", stripped).strip() or text


MAX_SLOT_WORDS = 3   # what differs between two such lessons: a value, not a rewording
MAX_SLOT_CHARS = 8   # the same for Japanese, counted in characters

_QUANTIFIERS = re.compile(r"\b(every|ones)\b", re.I)  # "every migration", "new ones" (each, all: stopwords)
# Phrases that put one thing against another, made one word each: :func:`subject` strips
# "instead of", and "not" is a stopword.
_SIDE_PHRASES = ((re.compile(r"\binstead of\b", re.I), " insteadof "),
                 (re.compile(r",\s*not\b", re.I), " butnot "))
# The same in Japanese, each one word for :func:`_ja_sides` only (「AではなくB」 / 「Aの代わりにB」,
# 「Aの前にB」 / 「Aする前にB」, 「Aの後にB」): made one unit in every comparison, they would shorten
# the shared start and end that :func:`differ_in_one_place` weighs.
_JA_SIDE_PHRASES = ((re.compile(r"の代わりに|ではなくて?|じゃなくて?"), " insteadof "),
                    (re.compile(r"(?:の|する|より)?前に"), " before "),
                    (re.compile(r"(?:の|した|より)?後(?:に|で)"), " after "))
# Words with two sides: the same words on the other sides differ ("Run lint before tests" /
# "Run tests before lint", "Copy the config from staging to production" / reversed).
_ORDER_WORDS = frozenset(("before", "after", "above", "below", "over", "under", "than", "to", "from", "into",
                          "onto", "insteadof", "butnot"))
# Stopwords that carry the point of a rule ("migrate before deploying" / "after deploying", "the
# same database" / "a separate database"): kept, so that the two lessons differ in them.
_CONTRASTS = _ORDER_WORDS | frozenset(("more", "most", "few", "same", "only", "no", "on", "off", "up", "down",
                                       "in", "out", "with", "against", "until"))
_LETTERS = frozenset("adimst")  # stopwords as articles and contractions, but flags here ("-s", "-a")
_JA_UNIT = re.compile(r"[0-9a-z]+|\w")
# A command-line option ("--ff-only", "--no-ff", "-euo"), one unit: split into words, "--ff-only"
# and "--no-ff" would share "ff", and "--no-rebase" would only add "no" to "--rebase".
_FLAG = re.compile(r"(?<![\w\-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
_SPACES_AND_HYPHENS = re.compile(r"[\s\-\u2010\u2011]+")
# A prefix that turns a word into its opposite: "compressed" / "uncompressed", "synchronous" /
# "asynchronous", "mutable" / "immutable", "serialize" / "deserialize"; and "encrypt" / "decrypt".
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "a", "de", "dis", "non", "anti")


def _units(text: str) -> tuple[list[str], bool]:
    """Words to line two lessons up by, and whether the lesson is Japanese: the lesson without its
    directive words (:func:`subject`), stemmed ("committing" is "commit"), stopwords and
    quantifiers out, each command-line option one unit (:func:`_option_unit`); for Japanese,
    whose words are not spaced, each character is a unit and each run of Latin letters or digits one."""
    from kioku.retrieval.hybrid import has_cjk
    from kioku.retrieval.text import ENGLISH_STOPWORDS, normalize, tokenize

    for pattern, word in _SIDE_PHRASES:
        text = pattern.sub(word, text)
    flags: dict[str, str] = {}

    def hold(m: re.Match[str]) -> str:  # a word no directive pattern or stopword list knows
        name = "kiokuflagq" + "".join(chr(ord("a") + int(d)) for d in str(len(flags)))
        flags[name] = _option_unit(m.group(0))
        return f" {name} "

    japanese = has_cjk(text)
    about = subject(_FLAG.sub(hold, text))
    if japanese:
        units = _JA_UNIT.findall(normalize(about))
    else:
        units = tokenize(_QUANTIFIERS.sub(" ", about), stopwords=ENGLISH_STOPWORDS - _CONTRASTS - _LETTERS)
    return [flags.get(u, u) for u in units], japanese


def _option_unit(option: str) -> str:
    """A command-line option as compared: a long one in lower case ("--No-FF" is "--no-ff"), a
    short one in its case, a bundle of letters in order ("-D" is not "-d"; "-rf" is "-fr")."""
    if option.startswith("--"):
        return option.lower()
    return "-" + "".join(sorted(option[1:])) if option[1:].isalpha() else option  # "-Xmx512m" as written


def _short_options(text: str) -> list[str]:
    """The one-dash options of a lesson as compared (:func:`_option_unit`)."""
    return [_option_unit(o) for o in _FLAG.findall(text) if not o.startswith("--")]


def _ja_sides(text: str) -> list[str] | None:
    """A Japanese lesson's units with 「ではなく」, 「の代わりに」, 「前に」 and 「後に」 as one word
    each (the words :func:`_swapped` looks around), or None for a lesson without them."""
    from kioku.retrieval.hybrid import has_cjk

    if not has_cjk(text):
        return None
    marked = text
    for pattern, word in _JA_SIDE_PHRASES:
        marked = pattern.sub(word, marked)
    if marked == text:
        return None
    return [_key(u) for u in _units(marked)[0]]


def _stretches(ua: list[str], ub: list[str]) -> tuple[int, int, list[str], list[str]]:
    """The length of the shared start and end of two unit lists, and what each has between them."""
    shortest = min(len(ua), len(ub))
    head = 0
    while head < shortest and ua[head] == ub[head]:
        head += 1
    tail = 0
    while tail < shortest - head and ua[-1 - tail] == ub[-1 - tail]:
        tail += 1
    return head, tail, ua[head:len(ua) - tail], ub[head:len(ub) - tail]


def _key(unit: str) -> str:
    """A unit as compared: a final "e" dropped, so "merging" ("merg") and "merge" line up."""
    return unit[:-1] if len(unit) > 4 and unit.endswith("e") else unit


def _synonymous(mid_a: list[str], mid_b: list[str]) -> bool:
    """One word and what stands for it in search ("postgres" / "postgresql", "db" / "database")."""
    from kioku.retrieval.text import synonyms

    a, b = " ".join(mid_a), " ".join(mid_b)
    return (len(mid_a) == 1 and b in synonyms(mid_a[0])) or (len(mid_b) == 1 and a in synonyms(mid_b[0]))


def _spelled_alike(a: str, b: str) -> bool:
    """Two spellings of one word ("optimiz" / "optimis", "parameteriz" / "parametriz",
    "hardcod" / "hardcode"): at least five letters each, the same digits, and at least 85 %
    alike. Short names that differ by a letter or two are different tools ("npm" / "pnpm"),
    "Tuesday" / "Thursday" are 80 % alike, and a word with a negating prefix is its opposite
    ("compressed" / "uncompressed", "encrypt" / "decrypt")."""
    from difflib import SequenceMatcher

    a, b = a.removesuffix("e"), b.removesuffix("e")  # a joined stretch's short last word kept its "e"
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if any(long == prefix + short for prefix in _NEGATING_PREFIXES) or (
            a[2:] == b[2:] and {a[:2], b[:2]} == {"en", "de"}):
        return False  # opposites, not spellings
    if min(len(a), len(b)) < 5 or [c for c in a if c.isdigit()] != [c for c in b if c.isdigit()]:
        return False
    return SequenceMatcher(None, a, b).ratio() >= 0.85


def _swapped(ua: list[str], ub: list[str]) -> bool:
    """Two differing stretches of the same words, with what stands on the two sides of a word
    such as "before", "to" or "instead of" swapped ("lint before tests" / "tests before lint").
    A clause moved to the front ("Run tests before you push" / "Before pushing, run the tests")
    is no swap: there the words after "before" are the same in both."""
    if sorted(ua) != sorted(ub):
        return False
    for word in {_key(w) for w in _ORDER_WORDS} & set(ua):
        if ua.count(word) != 1 or ub.count(word) != 1:
            continue
        i, j = ua.index(word), ub.index(word)
        left_a, right_a, left_b, right_b = set(ua[:i]), set(ua[i + 1:]), set(ub[:j]), set(ub[j + 1:])
        if right_a & left_b and left_a & right_b and not right_a & right_b:
            return True
    return False


def _joined(units: list[str]) -> str:
    """A stretch of words as one word ("hard code" is "hardcode"), but numbers keep their
    boundaries ("v1.10" is not "v11.0")."""
    return " ".join(units) if any(c.isdigit() for unit in units for c in unit) else "".join(units)


def differ_in_one_place(a: str, b: str) -> bool:
    """Whether two lessons are the same sentence with a different value in one place.

    Lined up word by word, they share a beginning and an end that together make up at least half
    of the longer one, and between them each has a short stretch the other lacks entirely
    ("tabs" / "spaces", "3" / "5", "pnpm" / "npm", "Black" / "Yapf"; in Japanese, compared by
    character, the two stretches may share one: サーバー / ローカル). Such lessons teach
    different things, yet embed close. A stretch one lesson adds to the other ("Use 4 spaces" /
    "Use spaces") is a refinement, not a conflict; two spellings of a word ("hard-code" /
    "hardcode", "optimise" / "optimize"), and a word and what stands for it in search
    ("postgres" / "postgresql"), are the same word. The same words swapped around "before",
    "to", "than" or "instead of" (:func:`_swapped`) differ. Other
    words that mean the same ("short" / "small", "invoking" / "calling") count as different too:
    the cost is a report line and a principle not transferred, where treating "tabs" and
    "spaces" alike would spread one of them as both agents' finding."""
    from kioku.retrieval.text import normalize

    if _SPACES_AND_HYPHENS.sub("", normalize(a)) == _SPACES_AND_HYPHENS.sub("", normalize(b)) \
            and _short_options(a) == _short_options(b):
        return False  # "set up" / "setup", "re-running" / "rerunning" (but "-d" / "-D" differ)
    (raw_a, japanese_a), (raw_b, japanese_b) = _units(a), _units(b)
    ua, ub = [_key(u) for u in raw_a], [_key(u) for u in raw_b]
    if ua == ub:
        return False
    japanese = japanese_a or japanese_b
    sides_a, sides_b = _ja_sides(a), _ja_sides(b)
    if sides_a is not None and sides_b is not None:
        if sides_a == sides_b:
            return False  # 「コミットする前に」 / 「コミット前に」, 「ではなく」 / 「の代わりに」: the same lesson
        if _swapped(*_stretches(sides_a, sides_b)[2:]):
            return True  # 「npmではなくyarnを使う」 / 「yarnではなくnpmを使う」
    limit = MAX_SLOT_CHARS if japanese else MAX_SLOT_WORDS
    head, tail, mid_a, mid_b = _stretches(ua, ub)
    if _swapped(mid_a, mid_b):
        return True
    if (not mid_a or not mid_b or len(mid_a) > limit or len(mid_b) > limit
            or (not japanese and set(mid_a) & set(mid_b))  # a shared character (ー, る) is no shared word
            or (_spelled_alike(_joined(mid_a), _joined(mid_b))
                and not any(u.startswith("-") for u in mid_a + mid_b))  # options are never respellings
            or _synonymous(raw_a[head:len(raw_a) - tail], raw_b[head:len(raw_b) - tail])):
        return False
    return 2 * (head + tail) >= max(len(ua), len(ub))


def consolidatable(agent: str, scope: str = "global", project_root: Path | None = None) -> list[Any]:
    if not sc.scope_exists(scope, project_root):
        return []
    store = sc.open_scope(scope, project_root)
    return [r for r in store.get(agent, KIND)
            if (r.metadata or {}).get("consolidation_eligible", False)
            and (r.metadata or {}).get("source", "self") == "self"
            and not (r.metadata or {}).get("deprecated", False)]


def mark_cross_validated(agent: str, ids: Sequence[str], validating_agents: Iterable[str],
                         scope: str = "global", project_root: Path | None = None) -> int:
    from kioku.lessons.digest_refresh import refresh_digest

    store = sc.open_scope(scope, project_root)
    recs = store.get(agent, KIND, ids=list(ids))
    if not recs:
        return 0
    iso, epoch = now()
    ids, changes, changed = [], [], []
    for rec in recs:
        meta = rec.metadata or {}
        agents = join_tags(sorted(set(split_tags(meta.get("validating_agents")) + list(validating_agents))))
        confidence = round(max(float(meta.get("confidence", 0.0)), 0.7), 4)
        if (meta.get("cross_validated") is True and meta.get("validating_agents") == agents
                and float(meta.get("confidence", 0.0)) == confidence):
            continue  # already recorded: nothing new to write
        change = {"cross_validated": True, "validating_agents": agents, "confidence": confidence,
                  "cross_validated_at": iso, "cross_validated_at_epoch": epoch}
        if meta.get("cross_validated") is not True:  # what `kioku lessons rollback` puts back
            change["confidence_before_cross_validation"] = float(meta.get("confidence", 0.0))
        ids.append(rec.id)
        changes.append(change)
        changed.append((rec.id, rec.document, {**meta, **change}))
    if not ids:
        return 0
    store.update_metadata(agent, KIND, ids, changes)
    refresh_digest(agent, scope, project_root, changed=changed)
    return len(ids)


def receive_principle(agent: str, lesson: str, category: str, confidence: float,
                      validating_agents: Iterable[str], original_id: str = "",
                      scope: str = "global", project_root: Path | None = None) -> list[str]:
    """Store a principle validated by other agents (confidence × 0.9, source system_principles)."""
    agents = join_tags(sorted(set(validating_agents)))
    return learn(agent, lesson, category, round(float(confidence) * TRANSFER_FACTOR, 4),
                 scope=scope, learned_from="consolidation", project_root=project_root,
                 source="system_principles", original_id=original_id,
                 extra_metadata={"cross_validated": True, "validating_agents": agents,
                                 "consolidation_eligible": False})


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _lineage(rec: Any) -> set[str]:
    """The ids a lesson descends from or is: its own and its ``original_id`` (a clone's or an
    import's source; a clone of a clone keeps the first original)."""
    original = str((rec.metadata or {}).get("original_id") or "")
    return {rec.id, original} if original else {rec.id}


def _lineages(items: list[tuple[str, Any]], members: list[int]) -> int:
    """How many independent lineages a group holds (members sharing an id in their lineage are one)."""
    parent = {i: i for i in members}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i in members:
        for rid in _lineage(items[i][1]):
            if rid in owner:
                parent[find(i)] = find(owner[rid])
            else:
                owner[rid] = i
    return len({find(i) for i in members})


def _holds(agent: str, lesson: str, scope: str, project_root: Path | None) -> bool:
    """Whether ``agent`` already stores ``lesson`` in ``scope`` (the id its text gives)."""
    store = sc.open_scope(scope, project_root)
    return bool(store.get(agent, KIND, ids=[sc.improvement_id(agent, scope, lesson)]))


def consolidate(agents: Sequence[str] | None = None, *, dry_run: bool = False, scope: str = "global",
                project_root: Path | None = None, threshold: float = EQUIVALENCE_THRESHOLD) -> dict[str, Any]:
    from kioku.retrieval.embedder import get_embedder

    if not sc.scope_exists(scope, project_root):
        return {"agents": [], "scope": scope, "dry_run": dry_run, "threshold": threshold,
                "equivalent_groups": [], "conflicts": [], "transfers": [], "cross_validated": 0}
    store = sc.open_scope(scope, project_root)
    names = [sc.validate_agent(a) for a in agents] if agents else store.agents()
    items: list[tuple[str, Any]] = [(a, r) for a in names for r in consolidatable(a, scope, project_root)]
    report: dict[str, Any] = {"agents": list(names), "scope": scope, "dry_run": dry_run,
                              "threshold": threshold, "equivalent_groups": [], "conflicts": [],
                              "transfers": [], "cross_validated": 0}
    if len(items) < 2:
        return report
    emb = get_embedder()
    full = emb.embed([r.document for _, r in items])
    subj = emb.embed([subject(r.document) for _, r in items])
    pol = [polarity(r.document) for _, r in items]
    sim, ssim = full @ full.T, subj @ subj.T
    parent = list(range(len(items)))
    in_conflict: set[int] = set()
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if items[i][0] == items[j][0]:
                continue  # equivalence is across agents; one agent's duplicates are upserts
            opposite = pol[i] * pol[j] < 0 and ssim[i, j] >= threshold
            alike = pol[i] * pol[j] >= 0 and sim[i, j] >= threshold
            if opposite or (alike and differ_in_one_place(items[i][1].document, items[j][1].document)):
                in_conflict.update((i, j))
                report["conflicts"].append({
                    "kind": "opposite" if opposite else "different values",
                    "similarity": round(float(ssim[i, j] if opposite else sim[i, j]), 4),
                    "a": {"agent": items[i][0], "id": items[i][1].id, "improvement": items[i][1].document},
                    "b": {"agent": items[j][0], "id": items[j][1].id, "improvement": items[j][1].document}})
            elif alike:
                parent[_find(parent, i)] = _find(parent, j)
    groups: dict[int, list[int]] = {}
    for i in range(len(items)):
        groups.setdefault(_find(parent, i), []).append(i)
    for members in groups.values():
        group_agents = sorted({items[i][0] for i in members})
        if len(group_agents) < MIN_AGENTS or _lineages(items, members) < MIN_AGENTS:
            continue  # one agent, or copies of one lesson: no independent confirmation
        conflicted = any(i in in_conflict for i in members)
        report["equivalent_groups"].append({
            "agents": group_agents, "conflicted": conflicted,
            "members": [{"agent": items[i][0], "id": items[i][1].id, "improvement": items[i][1].document}
                        for i in members]})
        if conflicted:
            continue  # a contested principle is reported, neither confirmed nor spread
        if not dry_run:
            for a in group_agents:
                ids = [items[i][1].id for i in members if items[i][0] == a]
                report["cross_validated"] += mark_cross_validated(a, ids, group_agents, scope, project_root)
        best = max(members, key=lambda i: (float(items[i][1].metadata.get("confidence", 0)),
                                           -float(items[i][1].metadata.get("created_at_epoch", 0))))
        rec = items[best][1]
        for target in names:
            if target in group_agents or _holds(target, rec.document, scope, project_root):
                continue  # a member, or given the principle before: nothing new to write
            conf = float(rec.metadata.get("confidence", 0.7))
            entry = {"to": target, "from_agents": group_agents, "original_id": rec.id,
                     "improvement": rec.document, "confidence": round(conf * TRANSFER_FACTOR, 4)}
            if not dry_run:
                entry["ids"] = receive_principle(target, rec.document,
                                                 str(rec.metadata.get("category", "general")), conf,
                                                 group_agents, rec.id, scope, project_root)
            report["transfers"].append(entry)
    return report
