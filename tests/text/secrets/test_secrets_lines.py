"""redact_lines (one scan for many lines) must give exactly the per-line redact result."""

from __future__ import annotations

import random

from test_secrets import ORDINARY, REDACTIONS, SECRETS

from kioku.text.secrets import redact, redact_lines


def _corpus() -> list[str]:
    lines = [text for _, text in SECRETS] + list(ORDINARY) + [text for text, _ in REDACTIONS]
    # index-line shaped variants: a secret as the last and as the first word of a line
    lines += [f"- [project] the key is {text} → notes.md" for _, text in SECRETS[:40]]
    lines += [f"{text} password" for _, text in SECRETS[:20]]
    lines += ["password", "is hunter2x", "- [project] token:", "AKIAABCDEFGHIJKLMNOP", "4111 1111 1111 1111",
              "api_key=", "Zx9kQ2mVb7Lp4TnR8sWd3YhF", "passwords for prod", "was Secr3tValue!",
              "ssh-rsa", "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7", "-----BEGIN PUBLIC KEY-----",
              "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo", "-----END PUBLIC KEY-----"]
    return [line for line in lines if "\n" not in line]


def test_redact_lines_equals_per_line_redact_on_shuffled_mixtures() -> None:
    corpus = _corpus()
    rng = random.Random(11)
    for _ in range(60):
        lines = rng.sample(corpus, k=min(len(corpus), rng.randint(2, 40)))
        assert redact_lines(lines) == [redact(line) for line in lines]


def test_redact_lines_edge_cases() -> None:
    assert redact_lines([]) == []
    assert redact_lines(["only one line"]) == ["only one line"]
    two = ["a multi\nline item with password=hunter2xyz", "plain"]
    assert redact_lines(two) == [redact(x) for x in two]
    clean = ["- [project] we use bun → project-conventions.md"] * 50
    assert redact_lines(clean) == clean
    # a value that must end its clause, followed by another line: the line break ends it
    notes = ["- pass: " + "hunter" + "22", "the wifi pass is " + "kitsune" + "88", "- [project] we use bun → a.md"]
    redacted = redact_lines(notes)
    assert redacted == [redact(x) for x in notes] and "[REDACTED:password]" in redacted[0] + redacted[1]
    assert "hunter" not in redacted[0] and "kitsune" not in redacted[1]


def test_redact_notes_reads_a_command_continued_with_backslashes_as_one() -> None:
    from kioku.text.secrets import redact_notes

    value = "Kx82" + "mQzP"
    notes = ["Reach the cache:", "redis-cli \\", "  -h db \\", "  -p 6380 \\", f"  -a {value} ping", "- next"]
    redacted = redact_notes(notes)
    assert value not in "\n".join(redacted)
    assert redacted[:4] == notes[:4] and redacted[5] == notes[5]
    # the value alone on the next line, and a chain longer than ten lines
    assert value not in "\n".join(redact_notes(["redis-cli -h db -a \\", f"  {value} ping"]))
    long_chain = ["mongosh \\"] + [f"  --opt{n} x \\" for n in range(11)] + [f"  -p {value}"]
    assert value not in "\n".join(redact_notes(long_chain))
    # a port, a variable: nothing is redacted
    plain = ["mongosh \\", "  -p 27017", "redis-cli \\", '  -a "$REDIS_PASS" ping']
    assert redact_notes(plain) == plain


def test_a_password_column_is_redacted_when_lines_are_scanned_together() -> None:
    """Recall reads MEMORY.md's lines with redact_lines: a cell under a "Password" header is a
    password though its own line does not show the header."""
    from kioku.text.secrets import redact_notes

    value = "Xk9#" + "mP2qL7"
    lines = ["| Service | Password |", "|---|---|", f"| db | {value} |", "| web | see vault |", "after"]
    for redacted in (redact_lines(lines), redact_notes(lines)):
        assert redacted[2] == "| db | [REDACTED:password] |"
        assert redacted[:2] == lines[:2] and redacted[3:] == lines[3:]
