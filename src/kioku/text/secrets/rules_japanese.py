"""Rules for passwords named in Japanese, and the word for password in other languages."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy
from kioku.text.secrets.rule import _AnyCharBut, _Rule
from kioku.text.secrets.words import _OTHER_LANGUAGE_LABELS, _VALUE_CHARS
from kioku.text.secrets.values import _ja_short_password, _ja_value_ok, _japanese_passphrase, _named_password
from kioku.text.secrets.checks import (
    _check_ja_plain_password, _check_ja_unmarked, _check_password, _check_token, _ja_described,
    _ja_qualified_password, _ja_set_to,
)


# a value, が/は and a qualifier ("Wi-Fi", "本番DB", "管理画面") before "のパスワード", within a clause
# (not at ! or ?: the rules see NFKC text, where ！ and ？ are ASCII, and a value may hold them)
_BEFORE_QUALIFIER = _AnyCharBut("\n\r。、")


RULES: list[_Rule] = [
    _Rule("password", ("パスフレーズ",), _Lazy(  # plain words, quoted or not: "correct horse battery staple"
        r"パスフレーズ\s*(?:は|:|：|=|＝)\s*[「『\"“]?(?P<q>)(?P<val>[A-Za-z]{2,24}(?:[ \t]+[A-Za-z]{2,24}){2,7})"
        r"(?=[」』\"”]|[ \t]*(?:\n|です|でした|だ|で[、,\s]|ね|[。、,.（(]|$))"), ("val",),
          lambda m: _japanese_passphrase(m.group("val")), in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?P<jop>は|:|：|=|＝|を)\s*(?:[、,]\s*)?[「『\"']?"
        r"(?P<q>)(?P<val>[\x21-\x7e]{4,}?)(?=[」』\"'）)(（]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$"
        r"|に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる))"),
          ("val",), lambda m: _check_password(m) and not (m.group("jop") == "は" and _ja_described(m)
                                                           and not _ja_set_to(m)),
          in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ"), _Lazy(
        # 「パスワード「<value>」」, 「パスワード→<value>」, 「パスワード <value>」, 「パスワード（本番）: <value>」,
        # 「パスワードが <value> になった」
        r"(?:パスワード|暗証番号|パスフレーズ)(?:[「『](?P<qval>[^」』\s]{6,64})[」』]"
        r"|(?P<sep>\s*(?:→|⇒|->)|[ \t]*\([^()\n]{1,20}\)[ \t]*[:=：＝]|[ \t]*が|[ \t]*)\s*[「『\"']?"
        r"(?P<val>[\x21-\x7e]{6,64}?)(?=[」』\"'）)(（]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$"
        r"|に(?:設定|変更|更新|再設定|リセット|した|する|なった|なる)))"),
          ("qval", "val"), _check_ja_unmarked, in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(  # a quoted value, any script
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?:は|:|：|=|＝|を)\s*[「『\"]"
        r"(?P<val>[^」』\"\s]{2,64})[」』\"]"), ("val",), lambda m: _ja_value_ok(m.group("val")), in_chunks=False),
    _Rule("password", ("パスワード", "暗証番号", "パスフレーズ", "合言葉"), _Lazy(  # an unquoted kana value
        r"(?:パスワード|暗証番号|パスフレーズ|合言葉)\s*(?P<op>は|:|：|=|＝)\s*"
        r"(?P<val>[ぁ-んァ-ヶー一-龥々0-9A-Za-z]{2,32}?)(?P<end>です|でした|だ(?=[よね。、\s]|$)|(?=[。、\s]|$))"),
          ("val",), _check_ja_plain_password, in_chunks=False),
    _Rule("password", tuple(space + particle + word for space in ("", " ") for particle in "がは"
                            for word in ("パスワード", "暗証番号", "パスフレーズ", "私の", "僕の", "俺の", "うちの")), _Lazy(
        # the value first in Japanese: 「<value>がパスワードです」, "<value>は私のパスワード"
        r"(?P<q>[\"'`]?)(?P<val>[^\s\"'`]{4,64}?)(?P=q)[」』]?[ \t]?(?:が|は)(?:私の|僕の|俺の|うちの)?"
        r"(?P<word>パスワード|暗証番号|パスフレーズ)(?=です|でした|だ|[。！!\s]|$)"),
          ("val",), lambda m: _named_password(m.group("val"), m.group("word")), back=_VALUE_CHARS + "`」』",
          in_chunks=False),
    _Rule("password", tuple("の" + word for word in ("パスワード", "暗証番号", "パスフレーズ")), _Lazy(
        # the value first with words between: 「<value>がWi-Fiのパスワードです」, "<value>は本番DBの暗証番号"
        # (matched up to the anchor from as far back as the clause goes, at most ``reach``: the lazy
        # lead skips the words before the value; the clause must end after the anchor,
        # _ja_qualified_password)
        r"(?=[^\n]*?[がは])[^\n]*?(?<![\x21-\x7e])\(?(?P<q>[\"'`]?)(?P<val>[\x21\x23-\x26\x28-\x5f\x61-\x7e]{4,64}?)(?P=q)"
        r"[」』]?[ \t]?(?:が|は)[ \t]?[^\s。、,!?「」『』がは]{1,16}?[ \t]?の(?P<word>パスワード|暗証番号|パスフレーズ)"),
          ("val",), _ja_qualified_password, back=_BEFORE_QUALIFIER, reach=96, in_chunks=False),
    _Rule("password", ("パス",), _Lazy(  # パス, short for パスワード, before a made-up value
        r"(?<![ァ-ヶー])パス\s*(?P<op>は|:|：|=|＝)\s*[「『\"']?(?P<q>)(?P<val>[\x21-\x7e]{6,64}?)"
        r"(?=[」』\"'）)]|です|でした|だ|で[、,。\s]|で$|[。、,\s]|$)"), ("val",),
          lambda m: _ja_short_password(m.group("val")) and not _ja_described(m), in_chunks=False),
    _Rule("password", _OTHER_LANGUAGE_LABELS, _Lazy(  # the word for password in other languages
        r"(?i:" + "|".join(_OTHER_LANGUAGE_LABELS) + r")(?:\s*(?:[:：=＝]|是|为|為|는|은)|\s+(?:ist|est|es|é|—)(?=\s))\s*"
        r"(?:[\"'`「](?P<qval>[^\s\"'`」]{4,64})[\"'`」]|(?P<val>[\x21\x23-\x26\x28-\x2b\x2d-\x3a\x3c-\x5f\x61-\x7e]{4,64}))"),
          ("qval", "val"), lambda m: _named_password(m.group("qval") or m.group("val"), "パスワード"), in_chunks=False),
    _Rule("secret_assignment", ("トークン", "apiキー", "api キー", "シークレット", "秘密鍵",
                                "アクセスキー"), _Lazy(
        r"(?i:トークン|APIキー|API キー|シークレット|秘密鍵|アクセスキー)\s*(?:は|:|：|=|＝)\s*[「『\"']?"
        r"(?P<q>)(?P<val>[\x21-\x7e]{8,}?)(?=[」』\"']|です|だ|[。、\s]|$)"), ("val",), _check_token, in_chunks=False),
]
