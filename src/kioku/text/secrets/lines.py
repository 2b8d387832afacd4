"""Redaction of many lines at once and of secrets that span lines."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.findings import SecretFinding
from kioku.text.secrets.words import _TABLE_LABELS
from kioku.text.secrets.engine import _redact_findings, find_secrets, redact


def redact_across_lines(text: str) -> str:
    """:func:`redact`, and a secret split over lines ("ghp_Zq9X…⏎N3mL…", a token pasted into
    a wrapped prompt) is removed whole: every part of it, not only the part that is a secret on
    its own line."""
    if "\n" not in text:
        return redact(text)
    glued: list[str] = []
    origin: list[int] = []  # position in ``text`` of each character of the glued text
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] in " \t\r":
            j += 1
        if j < len(text) and text[j] == "\n":  # a line break and the blanks around it are dropped
            j += 1
            while j < len(text) and text[j] in " \t":
                j += 1
            i = j
            continue
        glued.append(text[i])
        origin.append(i)
        i += 1
    joined = "".join(glued)
    spans = [(origin[f.start], origin[f.end - 1] + 1, f.kind) for f in find_secrets(joined)
             if "\n" in text[origin[f.start]:origin[f.end - 1] + 1]]
    if not spans:
        return redact(text)
    out: list[str] = []
    pos = 0
    for start, end, kind in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return redact("".join(out))


def redact_lines(lines: list[str]) -> list[str]:
    """``[redact(line) for line in lines]``, in one scan instead of one per line.

    The lines are joined and scanned once; only lines that a finding touches are redacted
    again on their own, so the result is exactly the per-line result, except in a Markdown
    table whose header names a password column: its cells are redacted too, though a cell's
    line alone does not show its header. The rest holds because
    every rule, the card check and the entropy layer are confined to one line (their
    character classes exclude newlines, and a newline looks like the end of the text to
    their boundary and look-around checks), so a per-line finding always overlaps a finding
    of the joined scan. (A command-line option's tool may stand on an earlier line ended by a
    backslash, and a password option's value on the line after it: the joined scan finds
    such a value, and the line is then redacted on its own, where the tool or the option is not
    seen, so it stays as a per-line scan leaves it. A note with one is
    refused at save, where the whole text is scanned, and :func:`redact_notes` reads such a
    command's lines together.) The exceptions are multi-line
    constructs (PEM blocks, SSH public keys, whose benign spans could cross lines): with their
    markers present, every line is scanned on its own.
    """
    if len(lines) < 2:
        return [redact(line) for line in lines]
    joined = "\n".join(lines)
    low = joined.lower()
    if "-----" in low or "aaaa" in low or "\r" in joined or any("\n" in line for line in lines):
        return [redact(line) for line in lines]
    findings = find_secrets(joined)
    if not findings:
        return list(lines)
    import bisect

    out = list(lines)
    line_starts: list[int] = []
    pos = 0
    for line in lines:
        line_starts.append(pos)
        pos += len(line) + 1
    touched: set[int] = set()
    for f in findings:
        first = bisect.bisect_right(line_starts, f.start) - 1
        last = bisect.bisect_right(line_starts, max(f.end - 1, f.start)) - 1
        touched.update(range(first, last + 1))
    # A password column's header stands on another line than its cells: those cells are
    # redacted from the joined text's table scan, which a line scanned alone cannot repeat.
    columns: dict[int, list[SecretFinding]] = {}
    if "|" in joined and any(label in low for label in _TABLE_LABELS):
        from kioku.text.secrets.tables import _table_passwords

        for start, end in _table_passwords(joined, low):
            i = bisect.bisect_right(line_starts, start) - 1
            columns.setdefault(i, []).append(SecretFinding("password", start - line_starts[i], end - line_starts[i]))
            touched.add(i)
    for i in touched:
        own = find_secrets(lines[i])
        out[i] = _redact_findings(lines[i], _merged(own, columns[i])) if i in columns else redact(lines[i])
    return out


def _merged(first: list[SecretFinding], second: list[SecretFinding]) -> list[SecretFinding]:
    """The findings of ``first`` and those of ``second`` that overlap none of them, by start."""
    kept = list(first)
    for f in second:
        if not any(f.start < g.end and g.start < f.end for g in first):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def redact_notes(lines: list[str], probe: list[bool] | None = None) -> list[str]:
    """:func:`redact_lines` for notes a person wrote line by line, where a secret can span lines:

    - a line that continues a secret begun on the line before ("The admin password is" ⏎
      "Xk9#mP2$qL7!vR4@"), or a command whose earlier lines end with a backslash
      ("redis-cli -h db \\" ⏎ "-a Xk9mP2qL7 ping"), is redacted whole;
    - the lines of a private key block (a BEGIN line of its own, then base64 and header lines,
      up to its END line or the first line that is neither) are redacted whole.

    ``probe[i]`` False skips the continuation check for line ``i`` (lines Kioku wrote itself). A
    line is checked only when the one before it ends the way a secret's name does ("is", ":",
    "=", "token", "は", ...) or with a backslash, which keeps a long file cheap.
    """
    out = redact_lines(lines)
    inside_key = False
    for i, line in enumerate(lines):
        bare = line.strip()
        if bare[:2] in ("- ", "* ", "+ ", "> "):
            bare = bare[2:].strip()
        bare = bare.strip("`\"'")
        if inside_key:
            if bare.upper().startswith("-----END") or _KEY_MATERIAL.fullmatch(bare):
                out[i] = "[REDACTED:private_key]"
                inside_key = not bare.upper().startswith("-----END")
                continue
            inside_key = False
        if _KEY_BEGIN.fullmatch(bare):
            out[i] = "[REDACTED:private_key]"
            inside_key = True
            continue
        if not i or not bare or (probe is not None and not probe[i]):
            continue
        before = lines[i - 1].rstrip()
        if before.endswith("\\"):  # a command continued with a backslash: its earlier lines, joined
            parts: list[str] = []
            first, size = i - 1, 0
            while first >= 0 and lines[first].rstrip().endswith("\\") and size <= _CONTINUED_CHARS:
                parts.insert(0, lines[first].rstrip()[:-1].rstrip())
                size += len(parts[0])
                first -= 1
            before = " ".join(parts)
        elif not before.lower().endswith(_SECRET_NAME_ENDINGS):
            continue
        # a secret found in this line only with the line before it (a value after "password is")
        # makes the whole line a secret; one this line holds on its own is redacted as usual
        start = len(before) + 1
        text = _LIST_MARKER.sub("", line.strip(), count=1)  # "- [ ] Xk9#…": the value, not the task box
        alone = [(f.start + start, f.end + start) for f in find_secrets(text)]
        joined = f"{before} {text}"
        crossing = [f for f in find_secrets(joined) if f.end > start
                    and not any(a < f.end and f.start < b for a, b in alone)]
        if crossing:
            out[i] = f"[REDACTED:{crossing[0].kind}]"
    return out

_LIST_MARKER = _Lazy(r"^(?:[-*+>]\s+)?(?:\[[ xX]\]\s+)?")

_CONTINUED_CHARS = 400  # how much of the backslash-ended lines before a line is read as one command with it

_KEY_BEGIN = _Lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")

_KEY_MATERIAL = _Lazy(r"[A-Za-z0-9+/=]{16,}|[A-Za-z-]+:.*")

# How the line before a secret's value ends when the value is on the next line.
_SECRET_NAME_ENDINGS = (":", "=", "：", " is", " was", "は", "password", "passwd", "passphrase", "token",
                        "secret", "key", "bearer", "pw", "pin", "パスワード", "暗証番号")
