"""Rules for keys and tokens: provider prefixes, private keys, URLs with credentials, key assignments."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.rule import _Rule
from kioku.text.secrets.words import _TYPE_NAME
from kioku.text.secrets.values import _PARTIAL_PREFIXES, _classes, _named_password, _partial_token
from kioku.text.secrets.checks import _check_sk, _check_token, _check_url_creds


# also with a suffix naming the form it is kept in (Rails' SECRET_KEY_BASE, KEY_DATA, TOKEN_VALUE)
_TOKEN_KEYS = r"(?i:(?:secret|token|credentials?|auth|key)s?(?:_(?:base|value|data|string|b64|hex|raw))?\b)"

_ASSIGN_VALUE = r"[\"']?\s*(?P<op>=>|:=|=|:|\bis\b|\bwas\b)\s*(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{1,512})(?P=q)"

# "API key for the weather service is …": what the key is for may stand between it and "is"
_TOKEN_ASSIGN_RE = _Lazy(_TOKEN_KEYS + r"(?:\s+(?:for|of|on|to)(?:\s+[\w.\-]+){1,4}?(?=\s+(?:is|was)\b))?"
                         + _ASSIGN_VALUE)


RULES: list[_Rule] = [
    # --- private keys (PEM, also with literal "\n" escapes as inside service-account JSON)
    _Rule("private_key", ("-----begin",), _Lazy(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|[A-Za-z0-9+/=\s\\:\-]{0,20000})"),  # unterminated: take the key material that follows
          in_chunks=False),
    _Rule("gcp_service_account", ("private_key_id",),
          _Lazy(r'private_key_id"\s*:\s*"(?P<val>[0-9a-f]{32,})"'), ("val",), in_chunks=False),
    # --- provider-prefixed tokens
    _Rule("anthropic_api_key", ("sk-ant-",), _Lazy(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{20,}")),
    _Rule("openai_api_key", ("sk-",), _Lazy(
        r"(?<![A-Za-z0-9])sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"), check=_check_sk),
    _Rule("aws_access_key", ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa",
                             "anpa", "anva", "apka"),
          _Lazy(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
          check=lambda m: len(set(m.group(0)[4:])) > 4),  # not a placeholder ("AKIAXXXX…")
    _Rule("aws_secret_key", ("aws",), _Lazy(
        r"(?i:aws)[A-Za-z_\- ]{0,20}(?i:secret)[A-Za-z_\- ]{0,20}[\"']?\s*(?:=|:|=>)\s*"
        r"[\"']?(?P<val>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), ("val",), in_chunks=False),
    _Rule("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), _Lazy(
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}(?![A-Za-z0-9])|github_pat_[A-Za-z0-9_]{22,})"),
          check=lambda m: len(set(m.group(0)[4:])) > 4),  # not a placeholder ("ghp_xxxx…")
    _Rule("gitlab_token", ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-"),
          _Lazy(r"(?<![A-Za-z0-9])gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_\-]{20,}")),
    _Rule("slack_webhook", ("https://hooks.slack.com",), _Lazy(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{10,}")),
    _Rule("slack_token", ("xox",), _Lazy(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9\-]{10,}")),
    _Rule("stripe_key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"), _Lazy(
        r"(?<![A-Za-z0-9])(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})")),
    _Rule("google_api_key", ("aiza",), _Lazy(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}")),
    _Rule("jwt", ("eyj",), _Lazy(
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    _Rule("npm_token", ("npm_",), _Lazy(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    _Rule("pypi_token", ("pypi-",), _Lazy(r"(?<![A-Za-z0-9])pypi-[A-Za-z0-9_\-]{40,}")),
    _Rule("sendgrid_key", ("sg.",), _Lazy(r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{30,}")),
    _Rule("twilio_key", (), _Lazy(r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])")),  # no anchor: scan
    _Rule("azure_key", ("accountkey=", "sharedaccesskey=", "sharedaccesssignature=", "sig="),
          _Lazy(r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature|sig)="
                     r"(?P<val>[A-Za-z0-9+/%]{20,}={0,2})"), ("val",)),
    _Rule("provider_token", ("hf_", "shpat_", "shpca_", "shppa_", "shpss_", "dop_v1_", "dapi",
                             "hvs.", "dp.st.", "age-secret-key-", "key-", "sq0", "glc_",
                             "lin_api_", "xapp-", "gocspx-", "ya29.", "pmak-", "sbp_", "sb_secret_", "nfp_",
                             "atatt3", "nrak-", "rubygems_", "pat", "gsk_", "r8_", "glsa_", "sntrys_", "sntryu_",
                             "pscale_", "figd_", "ntn_", "tskey-", "fo1_", "dckr_pat_", "hrku-", "ops_ey"), _Lazy(
        r"(?<![A-Za-z0-9])(?:hf_[A-Za-z0-9]{30,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}"
        r"|dapi[a-f0-9]{32}|hvs\.[A-Za-z0-9_\-]{24,}|dp\.st\.[A-Za-z0-9_\-]{20,}"
        r"|AGE-SECRET-KEY-1[0-9A-Z]{50,}|key-[0-9a-f]{32}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}"
        r"|glc_[A-Za-z0-9+/]{32,}={0,2}|lin_api_[A-Za-z0-9]{32,}|xapp-\d-[A-Za-z0-9\-]{20,}"
        r"|GOCSPX-[A-Za-z0-9_\-]{24,}|ya29\.[A-Za-z0-9_\-]{20,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"
        # Supabase access token and secret key, Netlify personal access token
        r"|sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}|nfp_[A-Za-z0-9]{36}"
        # Atlassian, New Relic, RubyGems, Airtable, Groq, Replicate, Grafana service account, Sentry,
        # PlanetScale, Figma, Notion, Tailscale, Fly.io, Docker Hub, Heroku, 1Password service account
        r"|ATATT3[A-Za-z0-9_\-=]{100,}|NRAK-[A-Z0-9]{27}|rubygems_[a-f0-9]{48}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"
        r"|gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}"
        r"|sntrys_[A-Za-z0-9+/=_\-]{40,}|sntryu_[a-f0-9]{64}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,}"
        r"|figd_[A-Za-z0-9_\-]{40,}|ntn_[A-Za-z0-9]{40,}|tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"
        r"|fo1_[A-Za-z0-9_\-]{40,}|dckr_pat_[A-Za-z0-9_\-]{27,}|HRKU-[A-Za-z0-9_\-]{40,}"
        r"|ops_eyJ[A-Za-z0-9+/=_\-]{100,})")),
    _Rule("provider_token", ("-us",), _Lazy(r"(?<![0-9a-f])[0-9a-f]{32}-us\d{1,2}\b"),
          back="0123456789abcdef"),  # Mailchimp API key
    _Rule("provider_token", (), _Lazy(  # Discord bot token: base64(user id).timestamp.hmac
        r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b")),
    _Rule("provider_token", (":aa",), _Lazy(r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_\-]{33}"),
          back="0123456789"),  # Telegram bot token
    # --- credentials in URLs (the match starts at the scheme, found by scanning back)
    _Rule("connection_string", ("://",), _Lazy(
        r"(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver"
        r"|oracle|couchdb|neo4j(?:\+s)?|clickhouse|cockroachdb|ldaps?|ftp|sftp|smtps?)"
        r"://(?P<val>[^\s:/@'\"<>]{0,256}:(?P<pw>[^\s@'\"<>]{1,256}))@"), ("val",), _check_url_creds,
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-", in_chunks=False),
    _Rule("url_credentials", ("://",), _Lazy(
        r"[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://(?P<val>[^\s:/@'\"<>]{1,256}:(?P<pw>[^\s@/'\"<>]{1,256}))@[^\s]"),
          ("val",), _check_url_creds,
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-", in_chunks=False),
    _Rule("bearer_token", ("authorization", "bearer"), _Lazy(
        r"(?i:authorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|apikey)\s+)"
        r"(?P<val>[A-Za-z0-9._~+/\-]{8,}=*)"
        r"|(?i:bearer\s+)(?P<val2>[A-Za-z0-9._~+/\-]{20,}=*)"), ("val", "val2"), in_chunks=False),
    _Rule("secret_assignment", ("secret=", "secret:", "secret_key=", "secret_key:"), _Lazy(
        # an environment variable named for a secret (JWT_SECRET=, SESSION_SECRET=): a made-up value
        r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*_(?i:secret(?:_key)?)[ \t]*[=:][ \t]*(?P<q>[\"']?)"
        r"(?P<val>[^\s\"'`,;()]{6,256})(?P=q)(?![(.\w])"), ("val",),
          lambda m: _named_password(m.group("val"), "password") and not m.group("val").startswith(("self.", "!"))
          and not any(c in "[]{}<>" for c in m.group("val")) and m.group("val")[-1] not in "?!"
          and not _TYPE_NAME.match(m.group("val")),
          back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_", reach=60, in_chunks=False),
    _Rule("secret_assignment", ("cookie:",), _Lazy(  # a session cookie in a Cookie / Set-Cookie header
        # the cookie's name ends like a session's or a token's (connect.sid, user_session, XSRF-TOKEN),
        # at most 20 cookies before it
        r"(?i:(?:set-)?cookie):[ \t]*(?:[^\s=;]{1,64}=[^\s;]{0,512};[ \t]*){0,20}?"
        r"[\w.\-]{0,40}?(?i:sess(?:ion)?(?:_?id)?|sid|auth(?:_?token)?|access_?token|refresh_?token|token|jwt"
        r"|remember_[\w\-]+)=(?P<q>\"?)(?P<val>[^\s\";,\\]{12,512})(?P=q)"), ("val",),
          lambda m: _classes(m.group("val")) >= 2 and any(c.isdigit() for c in m.group("val")), in_chunks=False),
    _Rule("secret_assignment", ("otpauth://",), _Lazy(  # a TOTP seed in an authenticator URL
        r"otpauth://[^\s\"'<>]{0,256}?[?&](?i:secret)=(?P<val>[A-Za-z2-7]{16,}=*)"), ("val",), in_chunks=False),
    _Rule("provider_token", ("/api/webhooks/",), _Lazy(  # Discord webhook: the URL is the credential
        r"(?i:https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/)\d{15,20}/[A-Za-z0-9_\-]{50,}"),
          back="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/.-", in_chunks=False),
    _Rule("secret_assignment", ("api key", "api_key", "apikey", "api-key"), _Lazy(  # "heroku api key <uuid>"
        r"(?i:api[ _\-]?key)\s*(?:=|:|\bis\b)?\s*[\"'`]?(?P<val>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
        r"-[0-9a-f]{12})\b"), ("val",), in_chunks=False),
    _Rule("secret_assignment", ("secret", "token", "key", "auth", "credential"),
          _TOKEN_ASSIGN_RE, ("val",), _check_token, in_chunks=False),
    # part of a token after its provider's prefix (cut short, or the rest of it split off)
    _Rule("provider_token", _PARTIAL_PREFIXES, _Lazy(
        r"(?<![A-Za-z0-9])(?i:" + "|".join(p.replace(".", "\\.") for p in _PARTIAL_PREFIXES) + r")"
        r"(?P<val>[A-Za-z0-9_\-]{8,200})(?![A-Za-z0-9_\-])"),
          check=lambda m: _partial_token(m.group("val"))),
    _Rule("aws_access_key", ("akia", "asia"), _Lazy(  # an AWS key id cut short
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA)(?P<val>[A-Z0-9]{8,15})(?![A-Za-z0-9])"),
          check=lambda m: sum(c.isdigit() for c in m.group("val")) >= 2 and len(set(m.group("val"))) >= 5),
]
