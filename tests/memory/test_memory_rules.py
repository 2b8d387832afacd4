"""Deterministic rules: type classification, topic choice, contradiction and duplicate detection."""

from __future__ import annotations

import pytest

from memtest_fixtures import pmem, umem  # noqa: F401
from kioku.memory.api import is_duplicate
from kioku.memory.classify import classify_type, pick_topic
from kioku.memory.contradict import assess, choices, contradicts
from kioku.memory.textutil import token_set


@pytest.mark.parametrize("text,expected", [
    ("I prefer tabs over spaces", "user"),
    ("I like concise answers with code first", "user"),
    ("My editor is neovim", "user"),
    ("私は簡潔な回答が好き", "user"),
    ("個人的に関数型スタイルを好む", "user"),
    ("Don't add a summary at the end of every answer", "feedback"),
    ("That was wrong: the migration must run before the deploy", "feedback"),
    ("You should ask before deleting files", "feedback"),
    ("その書き方はよくない", "feedback"),
    ("テストを消すのはやめてください", "feedback"),
    ("We use pnpm in this project", "project"),
    ("This project targets Python 3.11", "project"),
    ("このプロジェクトではpytestを使う", "project"),
    ("Docs are at https://docs.example.com/kioku", "reference"),
    ("The Grafana dashboard lives in the ops folder", "reference"),
    ("The runbook is in the team wiki", "reference"),
    ("設計ドキュメントは社内wikiにある", "reference"),
    ("Migrations are generated with alembic", "project"),  # no cue → project (default)
    ("Prefers answers in Japanese", "user"),
    ("User prefers short answers", "user"),
    ("Always answer in English", "feedback"),
    ("今後は日本語で返答してください", "feedback"),
    ("敬語は使わないで", "feedback"),
    ("このリポジトリではyarnを使わないで、pnpmを使う", "project"),
    ("APIはJSONで返答する", "project"),
    ("The team prefers squash merges", "project"),
    ("Always run lint before pushing", "feedback"),          # as "Never run lint before pushing" is
    ("We always deploy on Fridays", "project"),
    ("コードにコメントを書きすぎないで", "feedback"),
    ("この関数は引数を変えないで呼ぶ", "project"),
])
def test_classify_type(text, expected):
    assert classify_type(text) == expected


@pytest.mark.parametrize("text,type_,topic", [
    ("I prefer dark mode", "user", "user-preferences.md"),
    ("Stop apologising", "feedback", "feedback-history.md"),
    ("We deploy to staging with kubernetes", "project", "infrastructure-notes.md"),
    ("本番サーバーは東京リージョン", "project", "infrastructure-notes.md"),
    ("We decided to switch to SQLAlchemy 2", "project", "tech-decisions.md"),
    ("React を採用した", "project", "tech-decisions.md"),
    ("Functions use snake_case names", "project", "project-conventions.md"),
    ("The API docs are at https://api.example.com", "reference", "references.md"),
    ("The Grafana server is at https://grafana.example.com", "reference", "infrastructure-notes.md"),
])
def test_pick_topic(text, type_, topic):
    assert pick_topic(text, type_) == topic


@pytest.mark.parametrize("new,old", [
    ("use bun, never npm", "use npm for installs"),
    ("We use bun", "We use npm"),
    ("Use pnpm instead of yarn", "We use yarn for everything"),
    ("prefer tabs", "prefer spaces"),
    ("I prefer dark mode", "I prefer light mode"),
    ("Use uv, not pip", "We use poetry to manage dependencies"),
    ("Never use docker for local dev", "use docker for local dev"),
    ("Switch to vitest", "We run tests with jest"),
    ("always run the full test suite before committing", "never run the full test suite before committing"),
    ("bunを使う、npmは使わない", "このプロジェクトではnpmを使う"),
    ("npmではなくbunを使う", "npmを使う"),
    ("インデントはタブを使う", "インデントはスペースを使う"),
    ("必ずテストを実行する", "テストを実行しない"),
    ("We indent with 2 spaces", "We indent with tabs"),
    ("We use Dependabot for dependency updates", "We use Renovate for dependency updates"),
    ("The team lead is Bob", "The team lead is Alice"),                 # the same thing named anew
    ("The release manager is Dana Lee", "The release manager is Sam Ortiz"),
    ("The Python version is 3.12", "The Python version is 3.11"),      # a dotted version is one value
    ("Django is pinned to 4.2.11", "Django is pinned to 4.2.7"),
    ("The app is now deployed to Fly.io", "The app is deployed to Heroku"),     # placed the same way
    ("The site is now behind Cloudflare", "The site is behind Fastly"),
    ("We moved the frontend from webpack to vite", "Bundle the frontend with webpack"),
    ("We switched to pnpm from npm", "We always use npm for installs"),
    ("The frontend does not use React", "The frontend uses React"),
])
def test_contradictions_detected(new, old):
    assert contradicts(new, old), (new, old)


@pytest.mark.parametrize("new,old", [
    ("use pytest for tests", "use npm for scripts"),               # different categories
    ("npm run build builds the docs", "use bun"),                  # mention, not a choice
    ("use bun", "the bundle is too big"),                          # 'bun' inside a word
    ("use tabs in Makefiles", "use spaces in Python files"),       # different scopes
    ("use bun and npm", "use npm"),                                # both endorsed: compatible
    ("We use Postgres for the main database", "use sqlite for tests"),
    ("always run tests before committing", "always write docs for public functions"),
    ("I prefer dark mode", "We use GitHub Actions for CI"),
    ("Use npm", "Use npm"),                                        # same statement, no conflict
    ("Never use type hints in tests", "Always use type hints"),   # a scoped exception
    ("Always squash commits before merging", "Never force-push to main"),
    ("We indent Go with tabs", "We indent YAML with 2 spaces"),
    ("Go files are indented with tabs", "Python files are indented with 4 spaces"),
    ("We use Dependabot for the backend", "We use Renovate for the frontend"),
    ("We use Node 20 now", "We use pnpm"),                         # another thing, not a new value
    ("We use Node 20 now, not 18", "We use pnpm now"),
    ("The database is now backed up to S3 nightly", "The database is PostgreSQL 15"),  # another attribute
    ("The frontend is now deployed to Vercel", "The frontend is React 18"),
    ("Our CI is now cached with Redis", "Our CI is GitHub Actions"),
    ("The API is now behind Cloudflare", "The API is a Django app"),
    ("The team lead is Bob", "The team lead was Alice"),               # history, not a change
    ("The team name is Platform", "The project name is Kioku"),       # another subject
    ("My manager is Bob", "Our manager is Alice"),
    ("We switched to pnpm from npm", "Run pnpm install before running tests"),  # npm is not in pnpm
])
def test_non_contradictions(new, old):
    assert contradicts(new, old) is None, (new, old)


@pytest.mark.parametrize("new,old", [
    ("Our default branch is main", "Our default branch is master"),    # lower case: may describe
    ("The API is slow", "The API is fast"),
    ("A good example is Rails", "A good example is Django"),           # one of several
    ("Our CI is CircleCI", "Our CI is GitHub Actions"),                # not a role or an address
    ("The backend is Django", "The backend is Python"),                # built with, or a change?
    ("We moved to GitLab from GitHub", "GitHub Actions runs the nightly job"),   # about another thing
    ("We migrated to Postgres from MySQL", "The analytics warehouse stays on MySQL"),
    ("Respond in English", "Respond in Japanese"),                     # the answer language
    ("Reply in English from now on", "Respond in Japanese"),
    ("英語で返答して", "日本語で返答して"),
    ("We don't deploy with fly.io on Mondays", "We deploy with fly.io on Mondays"),  # negated
])
def test_a_new_name_that_may_not_replace_keeps_both_and_asks(new, old):
    verdict = assess(new, old)
    assert verdict and verdict[0] == "unsure", (new, old, verdict)


@pytest.mark.parametrize("new,old", [
    ("The main database is in us-east-1", "The main database is Postgres"),   # where, not what
    ("The cache is a Redis cluster for sessions", "The cache is Memcached"),
    ("The bot is also Dependabot", "The bot is Renovate"),
    ("The main branch is protected", "The main branch is master"),
    ("The staging database is Postgres", "The production database is MySQL"),
])
def test_a_longer_or_placed_predicate_is_not_a_new_name(new, old):
    verdict = assess(new, old)
    assert not verdict or verdict[0] != "replaces", (new, old, verdict)


def test_choice_stances():
    assert choices("use bun, never npm") == {"js-package-manager": {"bun": 1, "npm": -1}}
    assert choices("Use pnpm instead of yarn")["js-package-manager"] == {"yarn": -1, "pnpm": 1}
    assert choices("the npm registry was down") == {}


@pytest.mark.parametrize("a,b,dup", [
    ("Use pytest for all tests", "use pytest for all tests.", True),
    ("Run the linter before every commit please", "Run the linter before every single commit please", True),
    ("Run the linter before every commit", "Deploy on Fridays is forbidden", False),
    ("本番へのデプロイは金曜日に行わない", "本番へのデプロイは、金曜日に行わない。", True),
    ("本番へのデプロイは金曜日に行わない", "テストは毎晩実行する", False),
    ("We deploy the API with fly.io on Mondays", "We deploy the API with fly.io", False),  # says more
    ("We deploy the API with fly.io now", "We deploy the API with fly.io", True),
    ("We deploy the API with fly.io", "We deploy the API with fly.io on Mondays", True),     # says less
    ("Important: we deploy the API with fly.io", "We deploy the API with fly.io", True),     # filler
    ("本番へのデプロイは金曜日に行わないよ", "本番へのデプロイは金曜日に行わない", True),       # a particle
])
def test_near_duplicates(a, b, dup):
    assert is_duplicate(a, token_set(a), b) is dup


def test_a_long_sentence_with_one_word_swapped_is_a_new_memory_not_a_duplicate(project):
    from kioku.memory import api

    first = "Use bun for installs in the web package, because the lockfile is bun.lockb and CI caches it"
    second = first.replace("web package", "docs package")
    api.remember(first, type="project", project_root=project)
    assert api.remember(second, type="project", project_root=project).status == "saved"
    assert api.remember(second + ".", type="project", project_root=project).status == "duplicate"
    api.remember("APIのテストはpytestで実行し、カバレッジを計測する", type="project", project_root=project)
    assert api.remember("UIのテストはpytestで実行し、カバレッジを計測する", type="project",
                        project_root=project).status == "saved"


def test_a_tool_with_two_jobs_counts_as_a_formatter_only_where_formatting_is_named():
    # ruff lints and formats: "run ruff before committing" is not replaced by "use black"
    assert assess("Use black", "Always run ruff before committing") is None
    assert assess("Use ruff", "Use black") is None
    assert "py-format" not in choices("Always run ruff before committing")
    assert choices("Format with ruff")["py-format"] == {"ruff": 1}
    assert assess("Format Python code with ruff instead of black", "Format Python code with black") is not None
    assert assess("フォーマッターはもうblackを使わない。ruffを使う", "フォーマッターはblackを使う") is not None
