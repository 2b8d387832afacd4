"""Whether a memory asks the agent to act: run a command, fetch or pipe a URL, read credentials,
or set its instructions aside (standard library only).

``find_directives(text) -> list[Directive]`` (kind, the words that matched), empty for a memory
that only states something. Memories that arrived from elsewhere (``kioku.memory.screen``) are
withheld from the agent while this finds anything in them, until the user trusts them.

What counts, in English and Japanese:

- **command**: an order to run a concrete command ("run `bun test`", "`make setup` を実行して"),
  any action tied to a moment the user did not choose ("at the start of every session, run
  ...", "毎回最初に...を実行"), and commands that are dangerous however they are phrased
  (``rm -rf``, ``sudo``, ``git push --force``, ``base64 -d``, writing to shell profiles).
  A statement of how the project works ("tests are run with `bun test`", "CI runs `make lint`",
  "use bun, never npm", "テストは `bun test` で実行する") is not an order.
- **network**: a URL to fetch, open, follow, clone or send data to; ``curl``/``wget`` with a
  target; anything piped into a shell or interpreter. A URL given as a reference ("the API docs
  are at https://...", "https://... を参照") is not.
- **credentials**: reading, printing or sending secrets or the files that hold them
  (``~/.ssh``, ``~/.aws/credentials``, ``.env``, tokens, API keys, ``printenv``).
- **override**: ignoring previous instructions or the user, acting without telling or asking
  them, claiming precedence, or loosening Claude Code's permissions.
- **unchecked**: a text over ``MAX_CHECKED`` characters (only ever written by hand), which is
  not read through.

The text is folded first (NFKC, invisible characters dropped, Cyrillic and Greek look-alikes
read as Latin, lower case, white space joined), so spacing and look-alike letters do not hide a
word. The labelled sets in ``tests/memory/data/directives_labelled.json`` (harmless team
conventions that must pass, hostile memories that must be withheld) pin the rules.
"""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern

# Raise when the rules change: verdicts cached by content (kioku.memory.screen) are recomputed.
RULES_VERSION = 1

KINDS = {
    "command": "asks the agent to run a command",
    "network": "asks the agent to fetch, pipe or send to a URL",
    "credentials": "asks the agent to read or reveal credentials",
    "override": "asks the agent to ignore its instructions or the user",
    "unchecked": "asks the agent to read a text too long for Kioku to check",
}
# Kioku saves memories of at most 1,500 characters; a longer text written by hand is not read
# through (the rules would take seconds on megabytes) but counted as a request to act.
MAX_CHECKED = 20_000


class Directive:
    __slots__ = ("kind", "phrase")

    def __init__(self, kind: str, phrase: str) -> None:
        self.kind, self.phrase = kind, phrase

    def __repr__(self) -> str:
        return f"Directive({self.kind!r}, {self.phrase!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Directive) and (self.kind, self.phrase) == (other.kind, other.phrase)


# Look-alike letters a model reads as Latin ones (NFKC leaves them alone).
_LOOKALIKES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "к": "k", "м": "m", "т": "t", "в": "b", "н": "h",
    "α": "a", "ε": "e", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "ν": "v", "ι": "i", "κ": "k", "χ": "x",
    "ѵ": "v", "ɡ": "g", "ı": "i", "ℓ": "l",
    "‘": "'", "’": "'", "“": '"', "”": '"', "「": '"', "」": '"', "『": '"', "』": '"', "｀": "`",
})


def fold(text: str) -> str:
    """``text`` as the rules read it: NFKC, no invisible characters, look-alikes as Latin, lower
    case, every run of white space one space."""
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
        text = "".join(ch for ch in text if ch.isascii() or (unicodedata.category(ch) != "Cf"
                                                              and not "\ufe00" <= ch <= "\ufe0f"))
        text = text.translate(_LOOKALIKES)
    return " ".join(text.lower().split())


# -- building blocks -------------------------------------------------------------------------

_URL = r"(?:(?:https?|ftp|wss?|file|s3|gs)://[^\s`'\"<>)]+|\bwww\.[a-z0-9-]+\.[^\s`'\"<>)]+)"
_EMAIL = r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
_CODE = r"`[^`]{2,}`"
# Programs whose name at the head of an order makes it a concrete command.
_PROGRAMS = (r"(?:sudo|bash|sh|zsh|fish|python[0-9.]*|node|deno|npm|npx|pnpm|yarn|bun|bunx|make|cargo|go|"
             r"pip[0-9.]*|pipx|uv|uvx|poetry|gem|bundle|rake|gradle|mvn|docker|podman|kubectl|helm|terraform|"
             r"ansible|git|gh|aws|gcloud|az|curl|wget|chmod|chown|rm|mv|cp|dd|mkfs|kill|pkill|killall|shutdown|"
             r"reboot|crontab|systemctl|launchctl|brew|apt|apt-get|yum|dnf|pacman|scp|ssh|nc|ncat|netcat|socat|"
             r"eval|source|exec|powershell|pwsh|cmd|osascript|claude|kioku|tar|unzip|openssl|base64)")
_COMMAND = rf"(?:{_CODE}|\"[^\"]{{2,}}\"|(?:\./|~/|/)[\w./-]+|\b{_PROGRAMS}\b(?:\s+[-\w./:=@~$]+)?)"
_RUN = r"(?:run|execute|exec|invoke|launch|type in|paste into the terminal|issue)"
# Words allowed between an order and its command ("run the following command: ...").
_FILLER = r"(?:(?:the|this|that|these|following|command|commands|script|scripts|cmd|line|snippet|below|next|:|-)\s*)"
# What may stand before "run" without making it an order: a subject or a passive ("we run",
# "tests are run"), a permission ("you can run") or a third-person object ("CI lets it run").
_NOT_ORDER = ("we ", "they ", "ci ", "it ", "is ", "are ", "was ", "were ", "be ", "been ", "get ", "gets ",
              "can ", "may ", "could ", "which ", "who ", "that ", "i ", "to be ")
_NEGATION = r"(?:never|not|don't|dont|do not|must not|mustn't|should not|shouldn't|no|avoid|cannot|can't)"

_SECRET_WORDS = (r"(?:api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|tokens?|secrets?|passwords?|passphrases?|"
                 r"credentials?|private[ _-]?keys?|ssh[ _-]?keys?|session[ _-]?cookies?|cookies|auth(?:entication)?"
                 r"[ _-]?(?:headers?|tokens?)|bearer|env(?:ironment)?[ _-]?var(?:iable)?s?|"
                 r"\$\{?[a-z_]*(?:token|key|secret|password|passwd|pwd)\b\}?)")
_SECRET_FILES = (r"(?:~/\.ssh\b|\.ssh/(?:id_|authorized_keys|config)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.pem\b|~/\.aws\b|"
                 r"\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config\.json|"
                 r"\.kube/config|/etc/(?:shadow|passwd|sudoers)|\bkeychain\b|\.gnupg\b|credentials\.json|"
                 r"\.config/gh/hosts|\.claude/\.credentials|(?<![\w.])\.env(?![\w.-]))")
_REVEAL = (r"(?:read|cat|print|show|display|dump|output|echo|copy|send|upload|post|paste|include|attach|share|leak|"
           r"reveal|expose|exfiltrate|collect|extract|list|grep|base64|tar|zip|scp|rsync|log|email|tell me|give me|"
           r"write out|write down|put)")

# Prohibitions of these ("never print tokens", "do not use `rm -rf`") state a rule: see _negated.
_REVEAL_FILE = LazyPattern(rf"\b{_REVEAL}\b(?:\s+\S+){{0,6}}?\s+\S*{_SECRET_FILES}")
_REVEAL_SECRET = LazyPattern(rf"\b{_REVEAL}\b(?:\s+\S+){{0,5}}?\s+(?:the\s+|your\s+|all\s+|my\s+|our\s+|any\s+)?"
                             rf"(?:\w+\s+)?{_SECRET_WORDS}")
_DANGEROUS = LazyPattern(r"\brm\s+-[a-z]*(?:rf|fr|r[a-z]*f|f[a-z]*r)\b|(?:^|[`$;&|(]\s*)sudo\s+\S|"
                        r"\bchmod\s+(?:-r\s+)?(?:777|[ug]?\+s)\b|\bchown\s+-r\b|\bmkfs\b|\bdd\s+if=|:\(\)\s*\{|"
                        r"\bcrontab\s+-|\bgit\s+push\s+(?:\S+\s+)*?(?:--force|-f)\b|\bgit\s+reset\s+--hard\b|"
                        r"\bgit\s+clean\s+-[a-z]*f|\bnc\s+-[a-z]*e\b|\bbash\s+-i\s*>&|/dev/tcp/|"
                        r"\bbase64\s+(?:-d|--decode|-di)\b|\bxxd\s+-r\b|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*"
                        r"-e(?:nc(?:odedcommand)?)?\s|\beval\s*[\"'$(`]|\bnpm\s+(?:i|install)\s+(?:-g|--global)\b|"
                        r"(?:>>?|\btee\s+(?:-a\s+)?)\s*\S*(?:\.bashrc|\.zshrc|\.profile|\.bash_profile|\.zprofile|"
                        r"authorized_keys)\b|\bexport\s+path=\S*(?:/tmp\b|\$home/\.)|"
                        r"\b(?:append|add|write|put)\b(?:\s+\S+){0,6}?\s+(?:to|into|in)\s+\S*(?:\.bashrc|\.zshrc|"
                        r"\.profile|\.bash_profile|\.zprofile|authorized_keys|crontab)\b")
_NEGATABLE = (_REVEAL_FILE, _REVEAL_SECRET, _DANGEROUS)

# -- the rules: (kind, pattern) ---------------------------------------------------------------

_EN_RULES: list[tuple[str, LazyPattern]] = [
    # anything piped into a shell or an interpreter, or run from a download
    ("network", LazyPattern(r"\|\s*(?:sudo\s+)?(?:-?\w+=\S+\s+)*(?:sh|bash|zsh|dash|ksh|fish|python[0-9.]*|perl|ruby|"
                            r"node|php|iex|invoke-expression|pwsh|powershell)\b")),
    ("network", LazyPattern(r"\b(?:bash|sh|zsh|source)\s+<\(|\.\s+<\(|\$\(\s*(?:curl|wget)\b|"
                            r"`\s*(?:curl|wget)\b[^`]*\|")),
    ("network", LazyPattern(r"\b(?:curl|wget|aria2c|invoke-webrequest|invoke-restmethod|iwr|irm)\s+(?:-{1,2}[\w-]+"
                            rf"(?:[ =]\S+)?\s+)*(?:['\"]?{_URL}|['\"]?\$\w+|[\w-]+(?:\.[\w-]+)+/)")),
    # a URL to fetch, open, follow or clone
    ("network", LazyPattern(r"\b(?:fetch|download|retrieve|visit|open|browse|navigate to|go to|load|read|check|"
                            r"follow|clone|install|pull|import|request|query|hit|ping|access|scrape|crawl|"
                            rf"get)\b(?:\s+\S+){{0,6}}?\s+[`'\"(]?{_URL}")),
    ("network", LazyPattern(rf"{_URL}[`'\")]?\s*(?:,\s*)?(?:and|then|&)\s+(?:follow|run|execute|do|obey|apply|"
                            r"install|pipe|source)\b")),
    # data sent to a URL, an address or a collecting service
    ("network", LazyPattern(r"\b(?:send|post|upload|email|mail|forward|transmit|exfiltrate|leak|submit|pipe|push|"
                            rf"copy|beacon)\b(?:\s+\S+){{0,8}}?\s+(?:to|into|at)\s+[`'\"(]?(?:{_URL}|{_EMAIL}|"
                            r"(?:an?\s+|the\s+|this\s+|our\s+|my\s+)?(?:webhook|endpoint|pastebin|gist|discord|"
                            r"telegram|ngrok|requestbin|collector)\b)")),
    ("network", LazyPattern(r"\bpip[0-9.]*\s+install\s+(?:\S+\s+)*?(?:https?://|git\+)|"
                            r"\bnpm\s+(?:i|install)\s+(?:\S+\s+)*?(?:https?://|git\+)")),
    # credentials read, printed or sent
    ("credentials", _REVEAL_FILE),
    ("credentials", _REVEAL_SECRET),
    ("credentials", LazyPattern(r"\bprintenv\b|(?:^|[`;&|]\s*)env\s*(?:[|>`]|$)|\bset\s*\|\s*grep|"
                                r"\bsecurity\s+find-(?:generic|internet)-password|\bgh\s+auth\s+token|"
                                r"\baws\s+configure\s+(?:get|export-credentials)|\bgcloud\s+auth\s+print-"
                                r"(?:access|identity)-token|\bgit\s+config\s+(?:--get\s+)?credential|"
                                r"\becho\s+[\"']?\$\{?[a-z_]*(?:token|key|secret|pass)")),
    # the agent's instructions or the user set aside
    ("override", LazyPattern(r"\b(?:ignore|disregard|forget|override|bypass|discard|drop)\s+(?:all\s+|any\s+|the\s+)?"
                             r"(?:of\s+)?(?:your|previous|prior|above|earlier|preceding|original|existing|other|"
                             r"system|safety|security|claude'?s|the user'?s|these|those)\s+(?:\w+\s+)?"
                             r"(?:instructions?|rules|prompts?|guidelines|guardrails|directives|policies|"
                             r"restrictions|constraints|safeguards|messages|context)\b")),
    ("override", LazyPattern(r"\b(?:ignore|disregard|forget)\s+(?:all|any|every)\s+(?:instructions|prompts|guidelines|"
                             r"guardrails|directives|safeguards)\b")),
    ("override", LazyPattern(r"\byou(?: are|'re| are now| will now be)\s+now\b|\bfrom now on,? you (?:are|will be)\b|"
                             r"\bact as (?:an? |the )?(?:unrestricted|jailbroken|dan|developer mode|admin|root)\b|"
                             r"\bdeveloper mode\b|\bjailbr[eo]ak|\bdo anything now\b|\bnew (?:system )?instructions?\s*:|"
                             r"\b(?:reveal|print|show|repeat|output|leak|dump)\s+(?:your|the)\s+(?:system prompt|"
                             r"hidden instructions|initial instructions)")),
    ("override", LazyPattern(rf"\b{_NEGATION}\s+(?:\w+\s+){{0,2}}?(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|"
                             r"alert(?:ing)?|mention(?:ing)?(?: this)?|show(?:ing)?(?: this)?|warn(?:ing)?|ask(?:ing)?|"
                             r"confirm(?:ing)? with|consult(?:ing)?|report(?:ing)? (?:this |it )?to)\s+"
                             r"(?:\w+\s+){0,2}?(?:the\s+)?(?:user|human|developer|operator|anyone|me)\b")),
    ("override", LazyPattern(r"\bwithout (?:asking|telling|informing|notifying|confirmation|confirming|permission|"
                             r"approval|(?:the\s+)?user'?s? (?:knowledge|consent|approval|permission)|"
                             r"(?:the\s+)?(?:user|human) (?:knowing|noticing|seeing))\b|"
                             r"\b(?:silently|secretly|quietly|covertly|stealthily)\s+(?:\w+\s+)?(?:run|execute|send|"
                             r"upload|install|delete|remove|push|commit|modify|change|add|fetch|download|read|copy|"
                             r"post|edit|write)\b|\bkeep (?:this|it) (?:secret|hidden|between us)|"
                             r"\bhide (?:this|it) from\b|\bdo not (?:reveal|disclose) this\b")),
    ("override", LazyPattern(r"--dangerously-skip-permissions|\bbypasspermissions\b|\bskip[- ]permissions\b|"
                             r"\bpermissions\.allow\b|\ballowedtools\b|\bauto[- ]?approve\b|"
                             r"\bapprove (?:all|every|any)\b|\byolo\b|"
                             r"\bdisable (?:the |all |claude'?s )?(?:sandbox|safety|security|permission|hooks?|guardrails|"
                             r"confirmations?|prompts)\b|"
                             r"\b(?:add|edit|modify|change|write|append|update|put|insert|set)\b(?:\s+\S+){0,6}?\s+"
                             r"\S*(?:\.claude/settings(?:\.local)?\.json|\.claude/hooks|settings\.local\.json)")),
    ("override", LazyPattern(r"\b(?:this|these)\s+(?:note|memory|memories|message|instructions?|rules?)\s+"
                             r"(?:overrides?|supersedes?|takes? precedence|comes? first|(?:has|have|is|are|takes?)\s+"
                             r"(?:the\s+)?(?:highest|top|absolute|first) priority)|\bmust (?:always )?be obeyed\b|"
                             r"\bobey (?:this|these|me)\b|\boverrides? (?:any|all|every) (?:other )?"
                             r"(?:instructions?|rules?)\b")),
    # dangerous commands, however they are phrased
    ("command", _DANGEROUS),
    # an order to run a concrete command
    ("command", LazyPattern(rf"(?<![\w-])(?P<verb>{_RUN})\s+{_FILLER}{{0,3}}{_COMMAND}")),
    # any action at a moment the user did not choose
    ("command", LazyPattern(r"(?:\bat the (?:start|beginning|top) of (?:every|each|the|a|any|your) (?:session|"
                            r"conversation|chat|task)|\bat (?:session|conversation) start|\bon (?:session )?start(?:up)?\b|"
                            r"\bwhen(?:ever)? (?:a |the |you |each |every |your )?(?:session|conversation|chat) "
                            r"(?:starts|begins|opens)|\bbefore (?:doing )?anything else|\bfirst thing\b|"
                            r"\bon (?:every|each) (?:prompt|message|turn|request|reply|response|session)|"
                            r"\b(?:every|each) time you (?:start|respond|reply|answer|read this|see this)|"
                            r"\bas soon as you (?:start|read|see|load)|\bimmediately (?:after|upon|on) (?:reading|"
                            r"loading|seeing)|\bupon (?:reading|loading) this\b)(?:\s+\S+){0,12}?\s+(?:run|execute|exec|"
                            r"invoke|launch|fetch|download|curl|wget|open|visit|send|post|upload|install|source|eval|"
                            r"call|load|print|delete|remove|push)\b")),
]

_JA_ACT = (r"(?:実行|走ら|叩|打|起動|インストール|流|ダウンロード|取得|送信|送|アップロード|投稿|開|アクセス|"
           r"読み込|読ん|読む|読み|表示|出力|貼り付|貼っ|コピー|共有|削除|プッシュ|クローン|フェッチ|従)")
_JA_ORDER = r"(?:して|しろ|せよ|すること|してください|しなさい|する|します|いて|って|け|く|れ|む|う|った)"
_JA_URL_AFTER = (r"(?:を|から|に|へ|の(?:内容|中身|手順|指示))?[^。\n]{0,12}?(?:開|アクセス|取得|ダウンロード|読み込|"
                 r"読ん|読む|送信|送っ|送る|アップロード|投稿|フェッチ|クローン|インストール|従っ|従う|従え|実行)")

_JA_RULES: list[tuple[str, LazyPattern]] = [
    ("network", LazyPattern(rf"{_URL}[`'\")]?\s*{_JA_URL_AFTER}")),
    ("network", LazyPattern(rf"(?:内容|中身|データ|ファイル|ログ|結果|出力|コード|リポジトリ)を?[^。\n]{{0,20}}?(?:{_URL}|"
                            rf"{_EMAIL})\s*(?:に|へ|宛て?に?)\s*(?:送|アップロード|投稿|post|転送)")),
    ("credentials", LazyPattern(r"(?:トークン|api ?キー|apiキー|秘密鍵|鍵ファイル|パスワード|認証情報|クレデンシャル|"
                                r"環境変数|シークレット|アクセスキー|クッキー|セッション情報)(?:\s*[a-z0-9_$]+)?(?:の値|の内容|の中身|"
                                r"の一覧)?\s*(?:を|も)\s*[^。\n]{0,15}?(?:読|表示|出力|送|貼り付|貼っ|コピー|教え|見せ|"
                                r"共有|アップロード|書き出|取得|含め|記載|ログに)")),
    ("credentials", LazyPattern(rf"{_SECRET_FILES}\S*\s*(?:の(?:中身|内容))?\s*(?:を|も)\s*[^。\n]{{0,40}}?(?:読|表示|"
                                r"出力|送|貼り付|貼っ|コピー|教え|見せ|共有|アップロード|含め|記載)")),
    ("override", LazyPattern(r"(?:これまで|以前|前|上記|上|他|ほか|すべて|全て|全部|既存|システム|元|最初)の(?:\S{0,6})?"
                             r"(?:指示|命令|ルール|指令|プロンプト|制約|制限)(?:は|を|も)?(?:すべて|全て|全部)?"
                             r"(?:無視|忘れ|破棄|上書き)")),
    ("override", LazyPattern(r"(?:ユーザー|ユーザ|利用者|人間|開発者|誰|使用者)(?:に|へ)(?:は|も)?[^。\n]{0,6}?(?:知らせ|伝え|"
                             r"言わ|報告せ|確認せ|聞か|相談せ|通知せ|見せ|断ら)(?:ず|ない|ないで|ずに)")),
    ("override", LazyPattern(r"(?:確認|許可|承認)(?:を取らず|を得ず|せず|なしで|なく|不要で)|黙って|こっそり|内緒で|密かに|"
                             r"ひそかに|(?:この|これらの)(?:メモ|指示|ルール|記憶)(?:は|を)[^。\n]{0,12}?(?:最優先|優先す|"
                             r"従わ)|(?:あなた|君|お前)は(?:今から|これから|今後)|システムプロンプト(?:を|の内容を)(?:表示|"
                             r"出力|教え|無視)|(?:権限|パーミッション)(?:確認)?を?(?:スキップ|無効|回避|迂回)|"
                             r"サンドボックスを無効")),
    ("command", LazyPattern(rf"(?:{_CODE}|\"[^\"]{{2,}}\"|\b{_PROGRAMS}\b(?:\s+[-\w./:=@~$]+)*)\s*(?:を|は)?\s*"
                            rf"(?:必ず|すぐ|すぐに|直ちに|まず|最初に)?\s*(?:実行|走ら|叩|打|起動|流)(?:して|しろ|せよ|"
                            r"すること|してください|しなさい|する|します|させ|いて|って|け|く)")),
    ("command", LazyPattern(rf"(?:(?:セッション|会話|チャット|作業)(?:の)?(?:開始|始め|最初|冒頭|起動)(?:時|の際|ごと)?(?:に|で|は)|"
                            r"起動時に|毎回(?:最初に|必ず)?|最初に必ず|何よりも先に|まず最初に|読んだら(?:すぐ|直ちに)|"
                            rf"(?:応答|返答|回答)(?:する)?前に(?:必ず|毎回)|自動的に)[^。\n]{{0,40}}?{_JA_ACT}{_JA_ORDER}")),
]

# Cheap first look: a text holding none of these cannot match any rule (most memories).
_HINTS = ("run", "exec", "invoke", "launch", "type in", "paste", "issue", "curl", "wget", "iwr", "irm", "http", "www.",
          "://", "|", "<(", "ignore", "disregard", "forget", "override", "bypass", "discard", "drop", "you are",
          "you're", "act as", "developer mode", "jailbr", "instruction", "system prompt", "without", "silently",
          "secretly", "quietly", "covertly", "stealthily", "keep this", "keep it", "hide", "reveal", "tell", "inform",
          "notify", "alert", "mention", "show", "warn", "ask", "confirm", "consult", "report", "permission",
          "allowedtools", "approve", "yolo", "disable", ".claude", "priority", "precedence", "obey", "supersede",
          "token", "key", "secret", "password", "passphrase", "credential", "cookie", "bearer", "env", "$",
          ".ssh", "id_", ".pem", ".aws", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker", ".kube",
          "/etc/", "keychain", ".gnupg", "rm ", "sudo", "chmod", "chown", "mkfs", "dd ", ":()", "crontab", "push",
          "reset", "clean", "nc ", "bash", "/dev/tcp", "base64", "xxd", "powershell", "eval", "npm", "pip", "rc",
          "profile", "authorized_keys", "export", "start", "beginning", "first thing", "anything else", "every",
          "each", "as soon", "immediately", "upon", "@", "send", "post", "upload", "email", "mail", "webhook",
          "実行", "走ら", "叩", "打", "起動", "流", "無視", "忘れ", "破棄", "上書き", "指示", "命令", "ルール",
          "知らせ", "伝え", "言わ", "報告", "確認", "聞か", "相談", "通知", "見せ", "断ら", "許可", "承認", "黙って",
          "こっそり", "内緒", "密か", "ひそか", "優先", "あなた", "君", "お前", "システム", "権限", "パーミッション",
          "サンドボックス", "トークン", "キー", "鍵", "パスワード", "認証", "クレデンシャル", "環境変数", "シークレット",
          "クッキー", "セッション", "毎回", "最初", "何よりも", "自動的", "読んだら", "前に", "送", "アップロード",
          "投稿", "転送")


def _is_order(folded: str, start: int) -> bool:
    """Whether the run verb at ``start`` is an order, not a subject's or a passive's verb."""
    before = folded[max(0, start - 8):start]
    return not any(before.endswith(word) for word in _NOT_ORDER)


def _negated(folded: str, start: int) -> bool:
    """Whether a dangerous command at ``start`` stands in a prohibition ("never `git push
    --force`", "do not use `rm -rf`"): a negation right before it, at most one verb apart."""
    import re

    before = folded[max(0, start - 30):start]
    return re.search(rf"\b{_NEGATION}\s+(?:ever\s+)?(?:(?:use|run|call|execute|do|type|try)\s+)?[`'\"]?\s*$",
                     before) is not None


WINDOW = 2000
OVERLAP = 300  # longer than any one rule's match, so none falls between two windows


def _windows(folded: str) -> list[str]:
    """The text in overlapping pieces: each rule's time stays linear in the length of a memory
    written by hand (a topic file may hold far longer ones than Kioku saves)."""
    if len(folded) <= WINDOW:
        return [folded]
    return [folded[i:i + WINDOW] for i in range(0, len(folded) - OVERLAP, WINDOW - OVERLAP)]


def find_directives(text: str) -> list[Directive]:
    """What in ``text`` asks the agent to act, one :class:`Directive` per kind (the first match)."""
    if len(text) > MAX_CHECKED:
        return [Directive("unchecked", f"{len(text):,} characters")]
    folded = fold(text)
    if not folded or not any(hint in folded for hint in _HINTS):
        return []
    found: dict[str, Directive] = {}
    for piece in _windows(folded):
        _scan(piece, found)
    return [found[kind] for kind in KINDS if kind in found]


def _scan(folded: str, found: dict[str, Directive]) -> None:
    for kind, pattern in (*_EN_RULES, *(_JA_RULES if not folded.isascii() else ())):
        if kind in found:
            continue
        for match in pattern.finditer(folded):
            if match.groupdict().get("verb") and (not _is_order(folded, match.start("verb"))
                                                  or _negated(folded, match.start("verb"))):
                continue
            if any(pattern is p for p in _NEGATABLE) and _negated(folded, match.start()):
                continue
            found[kind] = Directive(kind, match.group(0).strip()[:120])
            break


def asks_to_act(text: str) -> bool:
    return bool(find_directives(text))


def describe(kinds: list[str] | tuple[str, ...]) -> str:
    """The kinds in words: "asks the agent to run a command and to fetch, pipe or send to a URL"."""
    parts = [KINDS[k].removeprefix("asks the agent ") for k in kinds if k in KINDS]
    if not parts:
        return ""
    return "asks the agent " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])
