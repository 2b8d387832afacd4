"""Table-driven tests for kioku.memory.triggers: what a prompt asks to remember, and questions."""

from __future__ import annotations

import subprocess
import sys

import pytest
from timing import cost_ratio, growth

import kioku.memory.triggers as detect
from kioku.memory.triggers import english, english_checks, phrases_en

from kioku.memory.triggers import (
    REMEMBER_HINT,
    RememberRequest,
    detect_remember,
    is_question,
)

# (prompt, expected content, expected trigger, language)
POSITIVES: list[tuple[str, str, str, str]] = [
    ("remember that we always use bun, never npm", "we always use bun, never npm", "remember", "en"),
    ("Remember: tests need redis", "tests need redis", "remember", "en"),
    ("please remember that the staging DB is read-only.", "the staging DB is read-only", "remember", "en"),
    ("Please remember the deploy runs on Fridays only", "the deploy runs on Fridays only", "remember", "en"),
    ("remember to always run ruff before committing", "always run ruff before committing", "remember", "en"),
    ("Remember this: our API uses snake_case JSON", "our API uses snake_case JSON", "remember", "en"),
    ("save this: tests need redis running on 6379", "tests need redis running on 6379", "save this", "en"),
    ("save to memory: prefer pnpm workspaces", "prefer pnpm workspaces", "save to memory", "en"),
    ("Save this to memory - the CI image is ubuntu-24.04", "the CI image is ubuntu-24.04", "save to memory", "en"),
    ("add to memory that I prefer tabs over spaces", "I prefer tabs over spaces", "save to memory", "en"),
    ("don't forget that the API is rate-limited to 100 rps", "the API is rate-limited to 100 rps", "don't forget", "en"),
    ("Do not forget: migrations must be reversible!", "migrations must be reversible", "don't forget", "en"),
    ("dont forget that staging uses a separate AWS account", "staging uses a separate AWS account", "don't forget", "en"),
    ("note for future sessions: the monorepo uses turborepo", "the monorepo uses turborepo", "note for future", "en"),
    ("For future reference, logs live in /var/log/app", "logs live in /var/log/app", "note for future", "en"),
    ("make a note that the designer prefers Inter font", "the designer prefers Inter font", "note for future", "en"),
    ("keep in mind that the prod cluster is in eu-west-1", "the prod cluster is in eu-west-1", "keep in mind", "en"),
    ("From now on, always write tests with pytest", "always write tests with pytest", "from now on", "en"),
    # a polite request phrased as a question keeps its note
    ("Can you remember that I like concise answers?", "I like concise answers", "remember", "en"),
    ("Could you please remember that staging needs the VPN?", "staging needs the VPN", "remember", "en"),
    ("Could you remember to run lint before each commit?", "run lint before each commit", "remember", "en"),
    ("Can you keep in mind that we use pnpm?", "we use pnpm", "keep in mind", "en"),
    # "keep in mind" and "don't forget" without "that", as bare "remember"
    ("Keep in mind we use pnpm, not npm.", "we use pnpm, not npm", "keep in mind", "en"),
    ("Bear in mind, we ship on Tuesdays.", "we ship on Tuesdays", "keep in mind", "en"),
    ("Keep in mind going forward that we deploy with Helm.", "we deploy with Helm", "keep in mind", "en"),
    ("Don't forget we deploy with Helm.", "we deploy with Helm", "don't forget", "en"),
    # "from now on" at the end of the rule, and a note's trailing "for future sessions"
    ("Use tabs for indentation from now on.", "Use tabs for indentation", "from now on", "en"),
    ("I refactored the auth module. Use pnpm for installs going forward.", "Use pnpm for installs",
     "from now on", "en"),
    ("remember that we use pnpm for future sessions", "we use pnpm", "remember", "en"),
    # misspelled, "u" for "you", a dash after a lead-in, "it:", and how long before the note
    ("rember that the api base url is https://api.example.com/v2", "the api base url is https://api.example.com/v2",
     "remember", "en"),
    ("hey can u remeber that the main branch is called trunk", "the main branch is called trunk", "remember", "en"),
    ("Also — remember that the cron jobs run in Asia/Tokyo time.", "the cron jobs run in Asia/Tokyo time",
     "remember", "en"),
    ("please remember it: we don't use semicolons in TypeScript.", "we don't use semicolons in TypeScript",
     "remember", "en"),
    ("Remember for future reference that the bundle id is com.acme.rider.", "the bundle id is com.acme.rider",
     "remember", "en"),
    ("Keep this in mind for all future work on this repo: no new dependencies without review.",
     "no new dependencies without review", "keep in mind", "en"),
    ("Permanently remember that we deploy on Tuesdays.", "we deploy on Tuesdays", "remember", "en"),
    ("Please commit to memory that the API expects snake_case keys.", "the API expects snake_case keys",
     "save to memory", "en"),
    ("Write this down for future sessions: release branches are named release/YYYY.MM.",
     "release branches are named release/YYYY.MM", "write this down", "en"),
    ("Please make a note for future sessions that we target Python 3.11.", "we target Python 3.11",
     "note for future", "en"),
    ("note for your memory: my GitHub handle is @rhea-dev", "my GitHub handle is @rhea-dev", "note for future", "en"),
    ("For all future sessions, assume I'm on macOS with zsh.", "assume I'm on macOS with zsh", "from now on", "en"),
    ("From now on and in future sessions, use uv instead of pip.", "use uv instead of pip", "from now on", "en"),
    ("Remember the preferred log format: JSON lines with ts and msg fields.",
     "the preferred log format: JSON lines with ts and msg fields", "remember", "en"),
    # a request after ", and" in a task's sentence, and a closing tag that says how long
    ("Fix the failing assertion in test_cart.py, and remember for future sessions that totals are stored in cents.",
     "totals are stored in cents", "remember", "en"),
    ("No more Friday deploys. Remember that for future sessions.", "No more Friday deploys", "remember", "en"),
    ("In the future, always ask before running migrations. Please remember that.",
     "always ask before running migrations", "from now on", "en"),
    ("ずっと覚えておいてほしいこと：mainブランチに直接pushしない。", "mainブランチに直接pushしない", "覚えておいて", "ja"),
    ("これ覚えておいてくれる？うちの本番はGCPの asia-northeast1。", "うちの本番はGCPの asia-northeast1", "覚えておいて", "ja"),
    ("Hey Claude, remember that we deploy with fly.io", "we deploy with fly.io", "remember", "en"),
    ("I want you to remember that the main branch is protected", "the main branch is protected", "remember", "en"),
    ("Fix the flaky test. Also, remember that CI runs on Node 20.", "CI runs on Node 20", "remember", "en"),
    ("memorize this: the product name is always written Kioku", "the product name is always written Kioku", "remember", "en"),
    ("we always squash-merge PRs - remember that", "we always squash-merge PRs", "remember", "en"),
    ("The release branch is cut on Mondays, don't forget that!", "The release branch is cut on Mondays", "don't forget", "en"),
    ("今後はbunを使うことを覚えておいて", "今後はbunを使うこと", "覚えておいて", "ja"),
    ("覚えておいて：テストにはRedisが必要", "テストにはRedisが必要", "覚えておいて", "ja"),
    ("覚えておいてください：本番DBは読み取り専用です。", "本番DBは読み取り専用です", "覚えておいて", "ja"),
    ("デプロイは金曜日だけって覚えといて", "デプロイは金曜日だけ", "覚えといて", "ja"),
    ("インデントはタブを使うと記憶して", "インデントはタブを使う", "記憶して", "ja"),
    ("メモリに保存して：APIはsnake_caseを使う", "APIはsnake_caseを使う", "保存して", "ja"),
    ("ステージングは別アカウントだとメモして", "ステージングは別アカウントだ", "メモして", "ja"),
    ("マイグレーションは必ず可逆にすることを忘れないで", "マイグレーションは必ず可逆にすること", "忘れないで", "ja"),
    ("忘れないでください：ログは/var/log/appにある", "ログは/var/log/appにある", "忘れないで", "ja"),
    ("「コミット前にruffを実行する」を覚えておいて", "コミット前にruffを実行する", "覚えておいて", "ja"),
    ("記憶に保存して：ユーザーは簡潔な回答を好む", "ユーザーは簡潔な回答を好む", "保存して", "ja"),
    ("以下を保存して: CIはubuntu-24.04で動く", "CIはubuntu-24.04で動く", "保存して", "ja"),
    ("Please remember:\n- use bun\n- use ruff\n\nNow fix the bug.", "- use bun\n- use ruff", "remember", "en"),
    ("Fix the login bug.\nRemember that the auth service runs on port 8081", "the auth service runs on port 8081", "remember", "en"),
    ("```py\n# remember this\n```\nremember that we use black", "we use black", "remember", "en"),
    ("remember that we use bun, and fix the failing test", "we use bun", "remember", "en"),
    # a sentence that only qualifies the fact stays with it; a new request does not
    ("Please remember that we deploy on Fridays. Never on Mondays.", "we deploy on Fridays. Never on Mondays",
     "remember", "en"),
    ("remember that we use pnpm. Only in the web package. Except for CI. thanks",
     "we use pnpm. Only in the web package. Except for CI", "remember", "en"),
    ("Remember that I prefer tabs. Now fix the bug in parser.py.", "I prefer tabs", "remember", "en"),
    ("Remember that I prefer tabs. But please fix the bug too.", "I prefer tabs", "remember", "en"),
    ("Remember that I prefer tabs. But can you fix the bug?", "I prefer tabs", "remember", "en"),
    ("remember that we deploy on Fridays. But first fix the failing build.", "we deploy on Fridays", "remember", "en"),
    ("remember that we deploy on Fridays. Even so, run the migration first.", "we deploy on Fridays", "remember",
     "en"),
    ("remember that we deploy on Fridays. Because of the freeze, update the changelog.", "we deploy on Fridays",
     "remember", "en"),
    ("Remember that releases go out on Tuesdays. Not Thursdays\nfix the build",
     "releases go out on Tuesdays. Not Thursdays", "remember", "en"),
    ("note to self: remember to update the changelog", "update the changelog", "remember", "en"),
    ("You should remember that the API is versioned", "the API is versioned", "remember", "en"),
    ("Save this to memory: 'always run migrations before seeding'", "always run migrations before seeding", "save to memory", "en"),
    ("From now on use 2-space indentation.", "use 2-space indentation", "from now on", "en"),
    ("Going forward, always run ruff before committing", "run ruff before committing", "from now on", "en"),
    ("That is wrong, we use pnpm now. Remember it.", "That is wrong, we use pnpm now", "remember", "en"),
    ("That's the staging URL: https://stg.example.com - remember that", "That's the staging URL: https://stg.example.com",
     "remember", "en"),
    ("覚えておいて: APIは/v2配下。あと、ログインのバグを直して", "APIは/v2配下", "覚えておいて", "ja"),
    ("覚えておいて: パッケージ管理はbunを使う。あと、ログインのバグを直してください。", "パッケージ管理はbunを使う",
     "覚えておいて", "ja"),
    ("覚えておいて: 本番はAWS。また、ステージングはGCPで運用している", "本番はAWS。また、ステージングはGCPで運用している",
     "覚えておいて", "ja"),
    ("覚えておいて: デプロイは金曜日禁止。あと、リリースノートは必ず更新してから出す",
     "デプロイは金曜日禁止。あと、リリースノートは必ず更新してから出す", "覚えておいて", "ja"),
    ("今後は返答を日本語でお願いします", "返答を日本語でお願いします", "今後", "ja"),
    ("以後、main への直接 push は禁止です", "main への直接 push は禁止です", "以後", "ja"),
    ("これからは敬語は不要です", "敬語は不要です", "これから", "ja"),
    ("can you please remember that I prefer short answers", "I prefer short answers", "remember", "en"),
    ("remember, we never push to main directly", "we never push to main directly", "remember", "en"),
    ("今後はテストにpytestを使う。覚えておいて", "今後はテストにpytestを使う", "覚えておいて", "ja"),
    ("覚えておいて。テストにはRedisが必要", "テストにはRedisが必要", "覚えておいて", "ja"),
    ("次のことを覚えておいてください。本番環境ではdebugをfalseにする。", "本番環境ではdebugをfalseにする", "覚えておいて", "ja"),
    ("本番は金曜にデプロイしない。忘れないで", "本番は金曜にデプロイしない", "忘れないで", "ja"),
    ("保存しておいて：デプロイ前にlintを実行する", "デプロイ前にlintを実行する", "保存しておいて", "ja"),
    ("次回からは pnpm を使うことを覚えておいてね", "次回からは pnpm を使うこと", "覚えておいて", "ja"),
    ("Remember: when deploying, always run migrations first", "when deploying, always run migrations first", "remember", "en"),
    ("remember that when deploying we run migrations first", "when deploying we run migrations first", "remember", "en"),
    ("Write this down: staging uses port 8443", "staging uses port 8443", "write this down", "en"),
    ("Keep this in mind: the API is slow on Mondays", "the API is slow on Mondays", "keep in mind", "en"),
    ("デプロイは木曜日ってメモっておいて", "デプロイは木曜日", "メモっておいて", "ja"),
    ("remember this for later: the VPN is required", "the VPN is required", "remember", "en"),
    ("Remember that what we ship must pass CI", "what we ship must pass CI", "remember", "en"),
    ("Remember these commands: make build, make test", "these commands: make build, make test", "remember", "en"),
    ("覚えておいてほしいのは、本番DBは読み取り専用ということ", "本番DBは読み取り専用", "覚えておいて", "ja"),
    ("これからはyarnじゃなくてpnpmを使うから覚えておいて", "これからはyarnじゃなくてpnpmを使う", "覚えておいて", "ja"),
    ("APIのレスポンスはcamelCaseです。これを覚えておいてください。", "APIのレスポンスはcamelCaseです", "覚えておいて", "ja"),
    ("以下を記憶して：\n- テストはpytest\n- フォーマッタはruff", "- テストはpytest\n- フォーマッタはruff", "記憶して", "ja"),
    # standing instructions, as "from now on, ..." in English
    ("今後は敬語で返答して", "敬語で返答して", "今後", "ja"),
    ("これからはテストを先に書いて", "テストを先に書いて", "これから", "ja"),
    ("次回からテストを先に書いて", "テストを先に書いて", "次回から", "ja"),
    ("以後、mainへの直接pushは禁止", "mainへの直接pushは禁止", "以後", "ja"),
    ("バグを直して。今後は必ずテストを書いて", "必ずテストを書いて", "今後", "ja"),
    ("今後はbunを使う", "bunを使う", "今後", "ja"),
    ("次回からテストはpytestにする", "テストはpytestにする", "次回から", "ja"),
    # a "remember:" block stops before a request for work now; a quoted subject stays; the words
    # asking to keep it go; a statement after a bare "remember"; a Japanese note is the fact
    ("Please remember: never push directly to main.\nAlso, fix the failing test in foo.py.",
     "never push directly to main", "remember", "en"),
    ("remember: we use bun.\nRun the tests now.",
     "we use bun", "remember", "en"),
    ("remember: staging is stage.example.com. Also, can you check the build?",
     "staging is stage.example.com", "remember", "en"),
    ("remember:\n- run lint before commit\n- use pnpm",
     "- run lint before commit\n- use pnpm", "remember", "en"),
    ("remember: Run lint before every commit.\nUse pnpm, never npm.",
     "Run lint before every commit.\nUse pnpm, never npm", "remember", "en"),
    ("remember: the deploy needs two approvals. Then run the smoke tests.",
     "the deploy needs two approvals. Then run the smoke tests", "remember", "en"),
    ("Remember: before a release, bump the version in pyproject. Run the migrations first.",
     "before a release, bump the version in pyproject. Run the migrations first", "remember", "en"),
    ("Remember: we use pnpm, not npm. Also run the linter before every commit.",
     "we use pnpm, not npm. Also run the linter before every commit", "remember", "en"),
    ("Remember: we squash merge. And update the changelog in every PR.",
     "we squash merge. And update the changelog in every PR", "remember", "en"),
    ("Remember that `pnpm` is the only package manager we use.",
     "`pnpm` is the only package manager we use", "remember", "en"),
    ("From now on, `ruff` replaces `flake8`.",
     "`ruff` replaces `flake8`", "from now on", "en"),
    ("Remember this rule: never push to main.",
     "never push to main", "remember", "en"),
    ("Remember for all future sessions: tabs are banned.",
     "tabs are banned", "remember", "en"),
    ("Make a note that staging needs VPN",
     "staging needs VPN", "note for future", "en"),
    ("これは大事なので覚えておいてください。本番へのデプロイは必ず承認が必要です。",
     "本番へのデプロイは必ず承認が必要です", "覚えておいて", "ja"),
    ("重要なので覚えておいて。mainへの直接pushは禁止。",
     "mainへの直接pushは禁止", "覚えておいて", "ja"),
    ("本番へのデプロイは必ず承認が必要なので覚えておいて",
     "本番へのデプロイは必ず承認が必要", "覚えておいて", "ja"),
    ("pnpmを使うこと覚えといて", "pnpmを使うこと", "覚えといて", "ja"),  # こと keeps its と
    ("From here on out, use type hints in every Python function.", "use type hints in every Python function",
     "from now on", "en"),
    ("Bump the dependency, but don't forget going forward that we pin exact versions.", "we pin exact versions",
     "don't forget", "en"),
    ("Write this down for future sessions - we never use default exports.", "we never use default exports",
     "write this down", "en"),
    ("Remember my timezone: JST", "my timezone: JST", "remember", "en"),
    ("rember for later: we deploy with Helm", "we deploy with Helm", "remember", "en"),
    ("Remeber for future sessions that staging is on port 5433.", "staging is on port 5433", "remember", "en"),
    ("Fix the parser, and remember to always run lint before a commit.", "always run lint before a commit",
     "remember", "en"),
    ("Fix the parser, and remember to use uv in future sessions.", "use uv", "remember", "en"),
    ("Can you remember to run lint before you commit?", "run lint before you commit", "remember", "en"),
    ("Fix the parser, and remember forever that we use pnpm.", "we use pnpm", "remember", "en"),
    ("We use pnpm. Remember that across sessions.", "We use pnpm", "remember", "en"),
    ("覚えておいてもらえる？デプロイは金曜日。", "デプロイは金曜日", "覚えておいて", "ja"),
    ("テストはpytestで書くことにしている。覚えておいてくれる？", "テストはpytestで書くことにしている", "覚えておいて", "ja"),
    ("金曜日は本番デプロイ禁止。これ忘れないでください", "金曜日は本番デプロイ禁止", "忘れないで", "ja"),
    ("記憶しといて、私の担当はバックエンドです", "私の担当はバックエンドです", "記憶しといて", "ja"),
    ("ちょっと覚えておいてほしいんだけど、monorepoはTurborepoで管理してる", "monorepoはTurborepoで管理してる",
     "覚えておいて", "ja"),
    ("ついでに覚えておいてほしいんだけど、APIキーは環境変数から読む。では、このバグを修正して",
     "APIキーは環境変数から読む", "覚えておいて", "ja"),
    ("次回以降、マイグレーションはAlembicで作ってください", "マイグレーションはAlembicで作ってください", "次回以降", "ja"),
    ("これから先は、ライブラリを追加する前に必ず確認してください", "ライブラリを追加する前に必ず確認してください",
     "これから先", "ja"),
    ("READMEを更新してください。それから、今後はドキュメントを英語で書いてください", "ドキュメントを英語で書いてください",
     "今後", "ja"),
    ("Would you remember that the main branch in this repo is called trunk?",
     "the main branch in this repo is called trunk", "remember", "en"),
    ("Run the full test suite before suggesting a commit, from now on.",
     "Run the full test suite before suggesting a commit", "from now on", "en"),
    ("remember we use pnpm",
     "we use pnpm", "remember", "en"),
    ("remember the API is rate limited",
     "the API is rate limited", "remember", "en"),
    ("remember to run lint before every commit",
     "run lint before every commit", "remember", "en"),
    # the occasion of a "next time …," lead-in stays with the note
    ("Next time we work on this, remember that the long-lived branch is feat-checkout.",
     "Next time we work on this: the long-lived branch is feat-checkout", "remember", "en"),
    ("Next time, remember to run the linter before pushing.", "run the linter before pushing", "remember", "en"),
    ("i keep having to tell you this so please remember it: we don't use semicolons in TypeScript.",
     "we don't use semicolons in TypeScript", "remember", "en"),
    ("For the record, and please remember it this time: the API returns dates in UTC.",
     "the API returns dates in UTC", "remember", "en"),
    ("Going forward, treat warnings as errors. Make sure you still remember this next session.",
     "treat warnings as errors", "remember", "en"),
    ("今後のためにメモ：デプロイは金曜禁止", "デプロイは金曜禁止", "メモ", "ja"),
    ("Next session we pair, remember that Bob reviews the API changes.",
     "Next session we pair: Bob reviews the API changes", "remember", "en"),
    ("The Sentry DSN env var is SENTRY_DSN_BACKEND, so please remember it for future sessions.",
     "The Sentry DSN env var is SENTRY_DSN_BACKEND", "remember", "en"),
    # "this repo …" with a verb is a fact about the project, not a pointer into the conversation
    ("remember: this repo uses pnpm.", "this repo uses pnpm", "remember", "en"),
    ("You used npm again, and please remember it this time: this repo uses pnpm.", "this repo uses pnpm",
     "remember", "en"),
    ("忘れないように、今後はコミット前にテストを実行して", "今後はコミット前にテストを実行して", "忘れないように", "ja"),
    # a note block is not refused for one item that holds only for now
    ("Remember:\n- we use pnpm\n- the staging DB is read-only for now",
     "- we use pnpm\n- the staging DB is read-only for now", "remember", "en"),
    ("Keep in mind that the bucket is read-only for now.", "the bucket is read-only for now", "keep in mind", "en"),
    # a request after a pasted error is the user's own words; only a line amid output is not
    ("error: linker `cc` not found\nRemember that on this box you must install build-essential first.",
     "on this box you must install build-essential first", "remember", "en"),
    ("Next time you touch auth.py, remember that tokens expire after 15 minutes.",
     "Next time you touch auth.py: tokens expire after 15 minutes", "remember", "en"),
    ("Next time we deploy, remember:\n- bump the version\n- tag the release",
     "Next time we deploy:\n- bump the version\n- tag the release", "remember", "en"),
    ("I've said this before, So please remember it: we use pnpm.", "we use pnpm", "remember", "en"),
    ("実装中はmainに直接pushしないことを覚えておいて", "実装中はmainに直接pushしないこと", "覚えておいて", "ja"),
    ("忘れないように、コミット前には毎回lintを実行して", "コミット前には毎回lintを実行して", "忘れないように", "ja"),
    ("忘れないように、本番DBはread-onlyだって覚えておいて", "本番DBはread-onlyだ", "覚えておいて", "ja"),
    ("忘れないように、これからはPRにCHANGELOGを書いて", "これからはPRにCHANGELOGを書いて", "忘れないように", "ja"),
    ("今後の参考にメモ：本番DBはread-only", "本番DBはread-only", "メモ", "ja"),
    ("Commit messages must follow Conventional Commits, so please remember that.",
     "Commit messages must follow Conventional Commits", "remember", "en"),
    ("Run lint before every commit. Make sure you remember this.", "Run lint before every commit", "remember", "en"),
    ("I've told you this three times in this chat, so please remember it: we use pnpm.", "we use pnpm",
     "remember", "en"),
    ("You forgot again, and please remember this time: we use pnpm.", "we use pnpm", "remember", "en"),
    ("Next time you reply to a code review, remember to be concise.",
     "Next time you reply to a code review: be concise", "remember", "en"),
    ("Next time we release it, remember to bump the version in pyproject.toml.",
     "Next time we release it: bump the version in pyproject.toml", "remember", "en"),
    ("remember: this repo is private", "this repo is private", "remember", "en"),
    ("Remember that OTP codes on staging expire in a minute.", "OTP codes on staging expire in a minute",
     "remember", "en"),
    ("error: could not find `Cargo.toml`\nRemember:\nWarning: this repo is a workspace, run cargo from the root.",
     "Warning: this repo is a workspace, run cargo from the root", "remember", "en"),
    # a label that asks to keep and says for how long, and "Going forward," / "Henceforth," rules
    ('Please retain this across our sessions: staging runs on port 5433.',
     'staging runs on port 5433', 'keep for later', 'en'),
    ('Heads-up to carry forward: Dana owns the billing service.',
     'Dana owns the billing service', 'keep for later', 'en'),
    ('Long-term preference: prefer composition over inheritance.',
     'prefer composition over inheritance', 'keep for later', 'en'),
    ('Can you hang on to this for future chats? Our staging URL is staging.example.dev',
     'Our staging URL is staging.example.dev', 'keep for later', 'en'),
    # a thing named in the label heads the note about it
    ('Can you remember the output format for next time? It is JSON with keys id and name.',
     'The output format is JSON with keys id and name', 'remember', 'en'),
    ('Can you remember the output format for next time? It is JSON lines.',
     'The output format is JSON lines', 'remember', 'en'),
    ('Can you remember my preferences for future sessions? I like short answers.',
     'My preferences: I like short answers', 'remember', 'en'),
    ('Could you hang on to our release cadence for future sessions? We ship every other Tuesday.',
     'Our release cadence: We ship every other Tuesday', 'keep for later', 'en'),
    ('Can you note our commit message style for later? They are Conventional Commits with a scope.',
     'Our commit message style: They are Conventional Commits with a scope', 'note for future', 'en'),
    ('Remember the release checklist for later:\n- bump the version\n- update CHANGELOG\n- tag',
     'The release checklist:\n- bump the version\n- update CHANGELOG\n- tag', 'remember', 'en'),
    ('Please remember the lint setup for future sessions: we use ruff. Line length is 100. Also fix the tests now.',
     'The lint setup: we use ruff. Line length is 100', 'remember', 'en'),
    ('Remember the review policy going forward: two approvals. Hmm, actually let me check with the team first.',
     'The review policy: two approvals', 'remember', 'en'),
    ('Remember the deploy rule going forward: do not deploy on Fridays.',
     'The deploy rule: do not deploy on Fridays', 'remember', 'en'),
    ('Can you remember our deploy rule for next time? When tests fail we never deploy.',
     'Our deploy rule: When tests fail we never deploy', 'remember', 'en'),
    ('Could you keep in mind the benchmark command for the future: go test -bench=. -benchmem',
     'The benchmark command: go test -bench=. -benchmem', 'keep in mind', 'en'),
    ('Can you remember the host and port for next time? They are db.internal and 5432.',
     'The host and port: They are db.internal and 5432', 'remember', 'en'),
    ('Would you remember the staging port across sessions? Staging runs on port 8443 behind the VPN.',
     'The staging port: Staging runs on port 8443 behind the VPN', 'remember', 'en'),
    ('Remember the command for running tests for future sessions: uv run pytest -q',
     'The command for running tests: uv run pytest -q', 'remember', 'en'),
    ('Remember the test cmd for later: pytest -q\nanyway the login page still crashes on submit',
     'The test cmd: pytest -q', 'remember', 'en'),
    ('Next time we deploy, remember the rollout order for later: api first, then workers.',
     'Next time we deploy, the rollout order: api first, then workers', 'remember', 'en'),
    ('Please remember our naming convention for future sessions: tables are plural snake_case.',
     'Our naming convention: tables are plural snake_case', 'remember', 'en'),
    ('Going forward, never run terraform apply yourself.',
     'never run terraform apply yourself', 'from now on', 'en'),
    ('Henceforth, please write test names in snake_case.',
     'write test names in snake_case', 'from now on', 'en'),
    ('Our module path is example.com/platform — memorize it.',
     'Our module path is example.com/platform', 'memorize', 'en'),
    ('The release freeze starts on the last Thursday. Remember it for future sessions so you stop suggesting merges then.',
     'The release freeze starts on the last Thursday', 'remember', 'en'),
    ('Rule for this project from here on out: every endpoint gets an OpenAPI annotation. '
     'Keep that in mind in future conversations too.',
     'every endpoint gets an OpenAPI annotation', 'keep for later', 'en'),
    ('Add a memory: we deploy on Tuesdays.',
     'we deploy on Tuesdays', 'save to memory', 'en'),
    ('Keep in mind for the rest of this project (and future chats): the schema is the source of truth.',
     'the schema is the source of truth', 'keep in mind', 'en'),
    # the label is refused (a task follows), "Remember permanently:" still asks to keep the note
    ('Remember permanently: YAML files use 2-space indentation. Now fix deploy.yaml.',
     'YAML files use 2-space indentation', 'remember', 'en'),
    ('頼むから覚えて。うちはLombokを使ってない。',
     'うちはLombokを使ってない', '覚えて', 'ja'),
    ('Could you remember this for future sessions? The API uses cursor pagination.',
     'The API uses cursor pagination', 'remember', 'en'),
    ('Retain this beyond today: the staging DB rotates every Monday.',
     'the staging DB rotates every Monday', 'keep for later', 'en'),
    ("Standing rule: don't deploy on Fridays, wait until Monday.",
     "don't deploy on Fridays, wait until Monday", 'keep for later', 'en'),
    ('Long-term preference: write commit messages in English.',
     'write commit messages in English', 'keep for later', 'en'),
    ('Going forward, use pnpm. Now install the deps.', 'use pnpm', 'from now on', 'en'),
    # closings that kept a note before these forms still do
    ('No semicolons. Remember this.', 'No semicolons', 'remember', 'en'),
    ('We use SQLite for now, not Postgres. Remember that.', 'We use SQLite for now, not Postgres', 'remember', 'en'),
    ('マジで頼むから覚えて。うちはLombokを使ってない。', 'うちはLombokを使ってない', '覚えて', 'ja'),
    # before the request only how long, politeness or how often it was said: the note is next to it
    ('これは長期的に覚えておいてほしいんだけど、フロントエンドは Vue 3 に移行中。',
     'フロントエンドは Vue 3 に移行中', '覚えておいて', 'ja'),
    ('永続的にメモしておいて。Terraformのplanは必ず-out付きで実行する。',
     'Terraformのplanは必ず-out付きで実行する', 'メモしておいて', 'ja'),
    ('お手数ですが覚えておいていただけますか。弊社ではJavaは17を使っています。',
     '弊社ではJavaは17を使っています', '覚えておいて', 'ja'),
    ('覚えておいていただけますか？本番はGCPです。', '本番はGCPです', '覚えておいて', 'ja'),
    ('何度も言ってるけど、legacy ディレクトリは触らないで。次からも絶対に覚えておいて。',
     'legacy ディレクトリは触らないで', '覚えておいて', 'ja'),
    # the request said again as a complaint keeps the note after it (or before it), never the lead
    ('前にも覚えておいてって言ったよね。本番DBは触らないで。', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('覚えておいてって前にも言ったよね？本番DBは触らないで', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('本番DBは触らないでって、前にも覚えておいてって言ったよね？', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('本番DBは触らないで。前にも覚えておいてって言ったよね？', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('ねえ、だから前にも覚えておいてって言ったよね。本番DBは触らないで。', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('あなたに覚えておいてって頼んだよね。デプロイは火曜日。', 'デプロイは火曜日', '覚えておいて', 'ja'),
    ('mainに直接pushしないように覚えておいてって言ったよね？', 'mainに直接pushしないように', '覚えておいて', 'ja'),
    ('ありがとう、助かった。永続的に覚えておいて。デプロイは金曜にしない。', 'デプロイは金曜にしない', '覚えておいて', 'ja'),
    ('テストを直して。これは必ず覚えておいて。本番DBは触らないで。', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('何度も言ってるけど、覚えておいて。インデントはスペース2つ。', 'インデントはスペース2つ', '覚えておいて', 'ja'),
    ('前にも覚えておいてって言ったよね。デプロイはmainから。', 'デプロイはmainから', '覚えておいて', 'ja'),
    ('前にも覚えておいてって言ったよね。パッケージ管理はpnpmで。', 'パッケージ管理はpnpmで', '覚えておいて', 'ja'),
    ('前にも覚えておいてって言ったよね。本番DBは触らないでって。', '本番DBは触らないで', '覚えておいて', 'ja'),
    ('変数名はスネークケースで書いて。覚えておいて。', '変数名はスネークケースで書いて', '覚えておいて', 'ja'),
    ('コミットメッセージは英語で。覚えておいて。', 'コミットメッセージは英語で', '覚えておいて', 'ja'),
    ('ありがとう、このAPIはレート制限が1分60回。覚えておいて。', 'このAPIはレート制限が1分60回', '覚えておいて', 'ja'),
    ('覚えておいて：やっぱりいい設計はテストしやすい。', 'やっぱりいい設計はテストしやすい', '覚えておいて', 'ja'),
    ('Remember for future sessions that standup is at 9:30 every day.',
     'standup is at 9:30 every day', 'remember', 'en'),
    ('Standing rule: TODO comments must reference a Jira ticket.',
     'TODO comments must reference a Jira ticket', 'keep for later', 'en'),
    ('Heads-up to carry forward: test fixtures are regenerated nightly.',
     'test fixtures are regenerated nightly', 'keep for later', 'en'),
    ('Henceforth, please write all test names in snake_case.', 'write all test names in snake_case', 'from now on',
     'en'),
]
POSITIVES = [p for p in POSITIVES if p[1] is not None]

NEGATIVES: list[str] = [
    # a thing of the work at hand, or what the speaker wants to do with it, is no note
    "Can you remember the last three errors for next time? Here they are again.",
    "Can you remember the results for next time? I want to compare them.",
    "Can you remember the output format from last time? It was JSON, I think.",
    "Can you remember the output format for next time? It is this.",
    "Can you remember the seed script for next time? It keeps timing out and I don't know why.",
    "Can you remember the port for next time? Is it 5432 or 5433?",
    "Can you remember the results for later? We'll compare them after the refactor.",
    "Can you remember the output format for next time? Then run the tests again.",
    "Can you remember the schema for next time? Generate the migration from it.",
    "Can you remember the selected tab across sessions? Store it in localStorage.",
    "Can you remember the token and store it for later? It's in the .env file.",
    "Can you lock the schema for next time? No more changes after today.",
    "Can you remember the output format for next time? It's what I showed you earlier.",
    "Can you remember the output format for next time? Same as the last one.",
    "Can you remember the commands for next time? I always forget them.",
    "Can you remember the output format for next time? I like it a lot.",
    "Can you remember my choice for next time? I picked option B.",
    "Can you remember the issue for later? It might be related to caching.",
    "Can you remember the branch for next time? It's not merged yet.",
    "Can you remember the token for next time? Would be super helpful.",
    "Can you remember my question for later? Why does the build take so long?",
    "Can you remember the results for later? I like them a lot.",
    "Remember the output format for later: see above.",
    "Can you remember the next time we deploy? It is Tuesday.",
    "do you remember what we did?",
    "Remember when we fixed the login bug?",
    "I can't remember the command",
    "I don't remember how to run the migrations",
    "remember how we set up the proxy",
    "Keep in mind that `parse()` mutates its input while you refactor this module.",
    # the weaker forms, when the note belongs to the task in hand
    "Could you remember to run the tests after each edit while we work on this bug?",
    "Could you remember that far back in the conversation, or should I paste the stack trace again?",
    "can you remember the exact wording of the error from the first run? I need it for the bug report",
    "Keep in mind memory usage here; this container only has 512MB.",
    "Bear in mind I haven't pushed my latest changes, so the remote branch is stale right now.",
    "Don't forget the trailing slash in the URL in this request or nginx will 301 it.",
    "Write the migration, and remember that this table has 40M rows so it must be batched.",
    "Draft the release notes, and remember that 2.3.0 was never published so skip it.",
    "rember to run black on the file when you're done with this edit",
    "Remember password: this checkbox isn't persisting across reloads. Why?",
    "Remember device: Yes/No - that's the option on the 2FA screen. Add it to TwoFactor.vue.",
    "Note for your memory profiler run: use --leak-check=full.",
    "For all future sessions of the conference, compute the end time from the duration.",
    "From here on out in the log, every request times out. What changed at 14:02?",
    "Change the handler so it returns 404 instead of 500 for missing users from now on.",
    "Configure ruff in pyproject.toml so CI fails on unused imports from now on.",
    "この関数が何を返すか覚えておいてくれる？次のステップでそのまま使うから。",
    "覚えておいてくれる？って聞かれたとき、このチャットボットはどう返答すべき？仕様書を書いて。",
    "覚えておいてほしいこと：という見出しのフォントが小さすぎるので、CSSを直して。",
    "覚えておいてくれる？あとテスト直して。",
    "さっきのこと覚えといて",
    "前に何を覚えておいてって頼んだっけ？",  # asks about an earlier request
    "前回保存してと言ったのはどれ？",
    "メモ：明日の会議は10時",  # a heading, with no "how long" before it
    "前に覚えておいてって頼んだこと、全部一覧にして見せて",
    "この会話の中だけでいいので、Windowsを使っていることを覚えておいて",
    "このループの変数iは外側でも使ってるから、リファクタリング中は覚えておいて",
    "忘れないように、この正規表現の意味をコードにコメントで書いて",  # a task, so as not to forget
    "stderr:\nnote: next time, remember to pass --locked\nerror: could not compile `foo`\nWhat is cargo saying?",
    "[12:00:01] INFO start\nremember that the cache is warm\n[12:00:02] INFO done",
    "remember that these tests are flaky",
    "remember: this is important",
    "Remember this for the next command only: use --dry-run.",
    "Next time you reply, remember to include the full diff.",  # this conversation
    "Next time you run the build in this session, remember to pass --release.",
    "I'll need it in the next step, so please remember it: the port is 8080.",
    "Rerun the tests, and remember this time: use the -x flag.",  # this attempt
    "Remember that for the rest of this chat, the db is sqlite.",
    "[INFO] Building app 1.0\nNext time, remember to run mvn clean first\n[INFO] BUILD SUCCESS",
    "次回メモ：来週の定例で進捗を共有する",
    "このチャットの中だけ覚えておいて：ポートは3000",
    "忘れないように、今のうちにコミットしておいて",
    "忘れないように、READMEを更新して",  # a task, so as not to forget it
    "リファクタリング中は、覚えておいて：ポートは3000",
    "デバッグしている間は覚えておいて：ログレベルはDEBUG",
    "Make sure to remember that edge case when you write the unit tests in the next step.",
    "会議のメモ：参加者は5人",
    "Next time I ask, remember what we did here?",
    "The loader is slow so please remember that when you profile it.",
    "この作業中だけ覚えておいて：一時ファイルは /tmp/work に置く",
    "今回だけ覚えておいて：一時ファイルは /tmp/work に置く",
    "同僚に「覚えておいて」と言われた",
    "先輩に「メモしておいて」と言われたけど何をメモすればいいかわからない",
    "次回から使える便利なショートカットを教えて",
    "Run the migrations, and remember to restart the server afterwards.",
    "Could you remember to run the tests after this change?",  # the work at hand
    "Use the settings in pyproject.toml from now on? Or setup.cfg?",
    "Remember the plan: first the parser, then the evaluator. Start with the parser.",
    "Remember this list for the next prompt: a, b, c.",
    "Fix the parser, and remember how we did the lexer?",
    "Can you remember that bug we had with the cache?",
    "Can you remember that the bug was in the parser?",
    "Could you remember to fix the login test?",
    "Could you remember that for me?",
    "Keep in mind the API rate limit when writing the loader.",
    "Keep in mind this function is called from two places.",
    "keep in mind the API is rate limited when you write the client",
    "Don't forget the tests!",
    "Let's work on the frontend from now on.",
    "Will you handle this from now on?",
    "Ignore that from now on.",
    "Sure, from now on.",
    "save this file",
    "save the file and run tests",
    "Save it as utils.py",
    "ファイルを保存して",
    "変更を保存してください",
    "don't forget to run the tests",
    "Don't forget to commit.",
    "テストを実行するのを忘れないで",
    "note that the function returns None",
    "覚えてる？",
    "前回何をしたか覚えていますか？",
    "昨日の作業を覚えておいて？",
    "```\n# remember: this is a comment in code\n```",
    "grep for `remember that` in the codebase",
    'the button label says "remember me"',
    "> remember that the quoted text is not mine\nwhat does this mean",
    "the remember-me checkbox is broken",
    "add a 'remember me' option to the login form",
    "forget it, let's just ship",
    "store the result in a variable",
    "how do I save to memory in this framework?",
    "fix the memory leak in the cache",
    "remember",
    "覚えておいて",
    "write a function that remembers the last value",
    "why does the app not remember my session?",
    "記憶力を鍛える方法を教えて",
    "メモリ使用量を調べて",
    "テストを実行してね。忘れないで",
    "傘を忘れないで",
    "from now on?",
    "I'll remember that",
    "Remember that time we deployed on friday?",
    "メモリに保存して",
    "remember me",
    "Could you save this as a draft?",
    "keep in mind",
    "remember when we fixed the login bug",
    "Remember how to run the migrations",
    "write this down in the README",
    "Remember this function's signature",
    "remember that approach",
    "remember what you just did",
    "今日のミーティングの内容をメモして",
    "この関数の仕様をメモしておいて",
    "ユーザー設定を保存して",
    "bunを使うことを覚えておいてくれる？",
    "今後の予定を教えて",
    "今後はどうしますか？",
    "今後は気をつけます",
    "次からは気をつけてね",
    "以降の処理を修正して",
    "これからはじめる",
    "次回からの打ち合わせは延期",
    "今後、バグが出たらどうする",
    "以後、保存ボタンの処理を直して",
    "今後はこのファイルを修正してから保存して",
    "今後は、このPRをマージしてメモリリークを直して",
    "今後は十分注意してください。メモリ不足になるので",
    "今後はこの関数を使って実装して",
    "次から次へとエラーが出る",
    "今後は雨が降る",
    "今後は雨が降ります",
    "今後はよろしくお願いします",
    "今後はこのファイルを修正します",
    "次からはもっと早めに連絡をします",
    "これからはテストを書きます",
    "これからは忙しくなる",
    "今後は売上が伸びる",
    "以降、ログが出力される",
    "今後は値上がりするだろう",
    # "in memory" as a technical term, notes about other places, one word, fenced code,
    # a thing to recall after a bare "remember", a plan, a login box
    "Put it in memory instead of writing to disk.",
    "Add this to memory.ts and export it.",
    "Save that as memory.json in the fixtures folder.",
    "store this in memory cache and evict after 5 minutes",
    "Make a note in the README that the API is deprecated.",
    "Make a note of any flaky tests you find",
    "Make a note-taking app in React",
    "remember: tests",
    "これを直して\n```python\n# TODO: 覚えておいて: ここは後で直す\nx = 1\n```",
    "fix this\n```\n# remember that the cache is warm\nx = 1\n```",
    "Remember the diff above, now apply the same to users.py",
    "remember the thing about the cache",
    "Can you remember the name of that library we used for retries",
    "Remember the user's last search query in the session and prefill the input.",
    "Remember me checkbox should be checked by default.",
    "From now on, let's work on the frontend.",
    "Write this to memory-mapped file and benchmark it.",
    # labels and openers that do not ask to keep a note for later
    "Please don't remember this for future sessions: I'm on the throwaway branch.",
    "This is a one-off, don't carry it forward: use --force on this push.",
    "Long-term note: write unit tests for the DateParser class.",
    "Save this for later: git stash — actually just run it now.",
    "Can you store this for later? I'm not sure yet.",
    "In the future, we might want to add caching.",
    "In the future, when the user clicks save, the app should use optimistic updates.",
    "Run the tests again. Please remember.",
    "Okay thanks — memorize it.",
    "Remember that for now, not for future sessions: we're skipping the e2e tests.",
    "チケットに自分でメモしておきます、ありがとう",
    "頼むから覚えて。…いや、やっぱりいいや。",
    "Notes on future work: refactor the parser.",
    "This comment is wrong, fix it:\n    // Note for future: this runs in O(n^2)",
    "Standing rule in our codebase: handlers return Result. Find the ones that don't.",
    "The app should remember the user's choice across sessions: use localStorage.",
    "Memory leak between sessions: the websocket handler keeps references to closed sockets.",
    "Our notes app should sync across sessions: right now it loses drafts.",
    "Store this in Redis for future lookups: the session token and the user id.",
    "Keep this branch for later: we may need the spike code.",
    "Note for your memory profiler run: use --leak-check=full.",
    "Can you save it for later? I need to go to a meeting now.",
    "Could you persist it across sessions? Users lose their cart on reload.",
    "In the future, all requests will go through the API gateway.",
    "In the future, when we migrate to Postgres, the JSON columns will need rewriting.",
    "Moving forward, use the new client in this file and delete the old one.",
    "Here is the new schema. Please remember.",
    "Deploy it now, remember that so we can ship today.",
    "The output above — memorize it.",
    "議事録は私がメモしておくね",
    "いい加減に覚えて。…いや、やっぱなし。",
    "Preferences across sessions are lost: after logging out the theme resets.",
    "Remember me across sessions: the checkbox is ignored on Safari.",
    "Store these forever: audit log entries of every admin action.",
    "Save it for later: I'll come back to this bug after lunch.",
    "Can you remember everything we decided across all sessions? It's getting hard to keep track.",
    "Will you remember this in future sessions? I'm curious how the memory feature works.",
    "Keep in mind for later in this conversation: the API is flaky.",
    "In the future, write access to prod will require a second approver.",
    "Heads-up for future readers of this thread: the fix is in #4512.",
    "Moving forward, write the tests for the parser.",
    "You never listen. Please remember.",
    "頼むから覚えて。前にも言ったでしょ。",
    "前にも覚えておいてって言ったよね。",
    "前にも覚えておいてって言ったよね。あとテストも直して。",
    "上司に覚えておいてって言った。本番DBは触らないで。",
    "田中に覚えておいてって言ったんだけど、忘れてたみたい。",
    "妻に覚えておいてって言った。牛乳を買う。",
    "ありがとう。前にも覚えておいてって言ったよね？",
    "またpush忘れてる。前にも覚えておいてって言ったよね？",
    "前にも覚えておいてって言ったよね。ほんと困る。",
    "前にも覚えておいてって言ったよね。ちゃんとドキュメント読んで。",
    "前にも覚えておいてって言ったよね。今回だけポート9000を使う。",
    "前にも覚えておいてって言ったよね。READMEに書いてあるでしょ。",
    "このエラー直して。覚えておいて",
    "Can you remember this next time? It's annoying when you forget.",
]


@pytest.mark.parametrize("prompt,content,trigger,lang", POSITIVES)
def test_positive_is_detected(prompt: str, content: str, trigger: str, lang: str) -> None:
    assert REMEMBER_HINT.search(prompt), "prefilter must match every positive"
    req = detect_remember(prompt)
    assert req == RememberRequest(content=content, trigger=trigger, language=lang)


@pytest.mark.parametrize("prompt", NEGATIVES)
def test_near_miss_is_not_a_save(prompt: str) -> None:
    assert detect_remember(prompt) is None


def test_case_counts() -> None:
    assert len(POSITIVES) >= 30 and len(NEGATIVES) >= 30


def test_prefilter_is_cheap_and_skips_ordinary_prompts() -> None:
    ordinary = "Refactor the parser so it handles nested lists, then run the tests. " * 30
    assert REMEMBER_HINT.search(ordinary) is None
    assert detect_remember(ordinary) is None
    # against a plain Python pass over the same 2 KB: about 10 times it; a pattern gone
    # super-linear costs hundreds
    ratio = cost_ratio(detect_remember, ordinary)
    assert ratio < 150, ratio


def test_detection_is_fast_on_a_hit() -> None:
    prompt = "Fix the flaky test in the parser module please. " * 20 + "Also, remember that CI runs on Node 20."
    assert detect_remember(prompt) is not None
    ratio = cost_ratio(detect_remember, prompt)  # about 30 times a plain pass over the prompt
    assert ratio < 300, ratio


def test_content_comes_from_original_text_not_mask() -> None:
    req = detect_remember('remember that the flag is spelled "--no-verify" exactly')
    assert req is not None and req.content == 'the flag is spelled "--no-verify" exactly'


QUESTIONS = [
    ("do you remember what we did?", True),
    ("What is the port", True),
    ("覚えてる？", True),
    ("これで合っていますか", True),
    ("remember that we use bun", False),
    ("テストにはRedisが必要です。", False),
    ("", False),
]


@pytest.mark.parametrize("text,expected", QUESTIONS)
def test_is_question(text: str, expected: bool) -> None:
    assert is_question(text) is expected


@pytest.mark.parametrize("lead,tail", [("please      ", "say what you remember."),
                                       ("please also btw can you i want you to ", "remember that we use pnpm"),
                                       ("can you please ", "remember that x")])
def test_lead_ins_do_not_backtrack(lead: str, tail: str) -> None:
    """Runs of lead-in words ("please", "can you") split only one way: four times the lead-ins
    cost about four times as much (an exponential search would explode)."""
    ratio = growth(detect_remember, lambda n: lead * n + tail, 5)
    assert ratio < 10, ratio


@pytest.mark.parametrize("unit", ["remember ", "Remember. ", "please remember? ", "覚えておいて", "忘れないで",
                                  "保存して：", "ファイルを保存して。", "覚えてる？", "save this: x. ", "```"])
def test_adversarial_repetition_stays_linear(unit: str) -> None:
    """Hostile 50 KB prompts: bounded look-back and a cap on trigger candidates keep it fast."""
    ratio = growth(detect_remember, lambda size: unit * (size // len(unit)), 12_500)
    assert ratio < 10, ratio  # 50 KB against 12.5 KB: about 4 when linear, 16 when quadratic


def test_import_stays_light_for_the_hook_fast_path() -> None:
    """UserPromptSubmit imports this module on every prompt: it must not pull in typing,
    dataclasses or the other heavy modules, nor compile its regexes before they are used."""
    code = ("import sys, json, re, kioku.infra; before = set(sys.modules); "
            "import kioku.memory.triggers as d, kioku.text.secrets as s; "
            "added = set(sys.modules) - before; "
            "heavy = {'typing', 'dataclasses', 'inspect', 'chromadb', 'numpy', 'yaml', 'jinja2'}; "
            "print(sorted(added & heavy)); "
            "print(sum(1 for name, m in list(sys.modules.items()) if name.startswith(('kioku.memory.triggers', 'kioku.text'))"
            " for v in vars(m).values() if type(v).__name__ == 'LazyPattern' and v._p is not None))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "0"]


@pytest.mark.parametrize("prompt,content,trigger,lang", POSITIVES)
def test_every_save_request_passes_the_hooks_prefilters(prompt, content, trigger, lang):
    import json

    from kioku.hooks.user_prompt_submit import no_remember_hint_raw, no_remember_request

    raw = json.dumps({"prompt": prompt, "session_id": "s"}, ensure_ascii=False).encode()
    assert not no_remember_hint_raw(raw)
    assert not no_remember_request({"prompt": prompt})


def test_japanese_notes_with_many_sentences_stay_linear() -> None:
    ratio = growth(detect_remember, lambda n: "覚えておいて: x" + "!あとして" * n + "。", 500)
    assert ratio < 10, ratio


# --- the cheaper start patterns give the same requests as the full one -----------------------

_LEADS = ["", "please ", "Please, ", "ok ", "okay, ", "hey ", "btw ", "by the way ", "note to self: ",
          "can you please ", "you should ", "make sure to ", "always ", "I'd like you to ", "i want you to ",
          "also ", "and ", "one more thing ", "important: ", "note ", "next time we work on this, "]
_NOT_LEADS = ["pleased ", "hithere ", "oklahoma ", "nextdoor "]  # start like a lead-in word, are none
_TRIGGERS = ["remember that", "remember:", "Remember", "remember this:", "don't forget that",
             "save this to memory:", "save this:", "write this down:", "make a note:",
             "note for future sessions:", "keep in mind that", "from now on,", "for future reference,",
             "remember when", "memorize that", "remember to", "store in memory that"]
_CONTENTS = ["we deploy with fly.io", "the tests need docker running.", "how do we deploy?",
             "it", "the API key rotates monthly. Also run lint."]


def _start_full_only(masked: str):
    return phrases_en._EN_START, None


@pytest.mark.parametrize("lead", _LEADS + _NOT_LEADS)
def test_start_without_lead_in_matches_like_the_full_pattern(lead: str, monkeypatch) -> None:
    prompts = [f"{pre}{lead}{trig} {content}" for trig in _TRIGGERS for content in _CONTENTS
               for pre in ("", "Fix the build first. ", "thanks!\n")]
    found = [detect.detect_remember(p) for p in prompts]
    monkeypatch.setattr(english, "_en_start_for", _start_full_only)
    assert [detect.detect_remember(p) for p in prompts] == found
    assert any(found) != (lead in _NOT_LEADS)


def test_lead_word_check_reads_the_first_word() -> None:
    assert english_checks._starts_with_lead_word("please remember", 0)
    assert english_checks._starts_with_lead_word("x. I'd like", 3)
    assert not english_checks._starts_with_lead_word("remember that", 0)
    assert not english_checks._starts_with_lead_word("pleased to", 0)
    assert not english_checks._starts_with_lead_word("", 0)


@pytest.mark.parametrize("unit,end", [(".", "x fix"), ("a.", " fix")])
def test_a_long_remember_block_of_dots_is_read_in_linear_time(unit: str, end: str) -> None:
    ratio = growth(detect_remember, lambda n: "remember: " + unit * n + end, 5_000)
    assert ratio < 10, ratio


# --- the label form is compiled only where it can be needed ------------------------------------

@pytest.mark.parametrize("prompt", ["Note: this function is too long, refactor it later",
                                    "fix the memory leak: the cache keeps growing",
                                    "remember for later: we use pnpm"])
def test_label_pattern_is_not_compiled_where_older_forms_suffice(prompt: str) -> None:
    """The label pattern is the costliest to compile (a hook pays for it in a fresh process): a
    prompt that holds no label, or one an older form reads, does not compile it."""
    code = ("import sys; from kioku.memory import triggers; from kioku.memory.triggers import phrases_en as d; triggers.detect_remember(sys.argv[1]); "
            "print(d._EN_LABEL[0]._p is None and d._EN_LABEL[1]._p is None)")
    out = subprocess.run([sys.executable, "-c", code, prompt], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("prompt", ["Note: this function is too long, refactor it later",
                                    "remember for later: we use pnpm",
                                    "Please retain this across our sessions: we deploy on Fridays.",
                                    "Can you hang on to this for future chats? Our staging URL is staging.example.dev"])
def test_named_thing_pattern_is_compiled_only_where_a_thing_may_be_named(prompt: str) -> None:
    """The named-thing label is a pattern of its own: a prompt read without it does not compile it."""
    code = ("import sys; from kioku.memory import triggers; from kioku.memory.triggers import phrases_en as d; triggers.detect_remember(sys.argv[1]); "
            "print(d._EN_THING_LABEL[0]._p is None and d._EN_THING_LABEL[1]._p is None)")
    out = subprocess.run([sys.executable, "-c", code, prompt], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("prompt", ["ſave this to memory: we use pnpm", "Remember that we use pnpm。テスト",
                                    "İ want you to remember that the API is slow", "今後のためにメモ：ステージングは5433",
                                    "Please retain this across our ſessions: staging runs on 5433."])
def test_non_ascii_text_gets_the_same_requests_as_the_full_pattern(prompt: str, monkeypatch) -> None:
    found = detect.detect_remember(prompt)
    monkeypatch.setattr(english, "_en_start_for", _start_full_only)
    assert detect.detect_remember(prompt) == found
