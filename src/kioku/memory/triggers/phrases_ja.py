"""Japanese phrase tables of remember detection: triggers, politeness, rules, tasks and complaints."""

from __future__ import annotations

from kioku.infra.lazyre import LazyPattern as _Lazy


# --- Japanese --------------------------------------------------------------------------------
_JA_POLITE = (r"(?:ください|下さい|くれ(?:ますか|ない|る)?|もらえ(?:ますか|る)|いただけ(?:ますか|ますでしょうか|る|ない)?"
              r"|ね|よ|ほしい|欲しい|おいて|おいてね|おく|ておく|な)*")
_JA_TRIG = _Lazy(
    r"(?P<trig>覚えて(?:おいて|おいといて|置いて)|覚えといて|覚えてて|覚えておく(?:こと|ように)"
    r"|覚えて(?=ください|下さい|ほしい|欲しい|ね|[：:。！!、]|\s*$)"
    r"|記憶して(?:おいて)?|記憶しといて|記憶しておく(?:こと|ように)|記憶に(?:残して|とどめて|留めて)"
    r"|メモして(?:おいて)?|メモしといて|メモっといて|メモっておいて|メモしておく(?:こと|ように)|メモに(?:残して|書いて)"
    r"|メモ(?=\s*[：:])"  # "将来のセッションのためにメモ：…" (only after how long, see _detect_ja)
    r"|記録して(?:おいて)?|忘れないで|忘れないように(?:して)?|忘れずに(?:覚えて(?:おいて)?)?"
    r"|保存して(?:おいて)?|保存しといて)" + _JA_POLITE
)
# Words before a request that only say how long to keep it ("ずっと", "今後のために", "次回以降のセッションでも")
_JA_LASTING_ONLY = _Lazy(r"^(?:[、,\s]|あと|それと|それから|ついでに|ちょっと|あ|ずっと|今後|次回|以降|将来|これから"
                         r"|セッション|ため|参考|の|に|で|も|は|これ|全|長期|永続|永久|恒久|的|次|から|絶対|必ず|いつまでも)+$")
_JA_FOR_LATER = _Lazy(r"(?:将来|今後|次回以降|以降|これから|ずっと)[^。]*(?:ため|参考)|以降")  # "今後のために", "次回以降"
# Words that make an instruction a standing rule ("毎回", "PRを出すときは", "これからは", "次回から")
_JA_RULE_WORDS = _Lazy(r"今後|以降|毎回|必ず|いつも|常に|ときは|時は|際は|たびに|前には|これから|から(?:は|も)|(?:次回|次|今度)から")
_JA_ONLY_NOW = _Lazy(r"(?:今回|今日|本日|今|この作業中|この作業の間|このセッション|このタスク|(?:この会話|このチャット)(?:の中)?"
                     r"|次のステップ)(?:だけ|のみ)"
                     # "リファクタリング中は覚えておいて": the remembering itself lasts while the work does
                     # ("実装中はmainに直接pushしないことを覚えておいて" is a rule about the work: kept)
                     r"|(?:中|の間|ている間|のあいだ)(?:は|だけ|のみ)?\s*[、,]?\s*(?:以下を|これを|次のことを)?\s*$")
# A plea before the request, not a note: "頼むから覚えて。うちはLombok使ってない。"
# What follows a plea when it is a complaint, not the note ("前にも言ったでしょ", "もう3回目だよ")
_JA_COMPLAINT = _Lazy(r"言った|言ってる|言ってます|回目|何度|何回|疲れ")
_JA_PLEA = _Lazy(r"^.{0,6}?(?:頼むから|お願いだから|いい加減に?|いいかげんに?|今度こそ|お手数ですが|お手数ですけど"
                 r"|すみませんが|すいませんが|悪いけど|悪いんだけど|申し訳ない(?:です)?(?:が|けど)|申し訳ありませんが"
                 r"|恐れ入りますが|恐縮ですが)[、,]?$")
# What follows a bare verb when the speaker says what they will do or are doing ("メモしておきます",
# "記録しておく。", "メモしておくね", "記録してます"), not a request
_JA_OWN_ACTION = ("おきます", "おきました", "おく。", "おくね", "おくよ", "おくから", "おくので", "おく\n", "います", "いる",
                  "ます", "ました", "る。", "るね", "るよ", "るから", "た。")
# A note taken back at its end ("…いや、やっぱりいいや", "やっぱなし", "なんでもない")
_JA_RETRACT_WORDS = ("やっぱ", "なんでもない", "何でもない")
_JA_RETRACTED = _Lazy(r"(?:^|[。、…\s])(?:いや[、,]?)?(?:やっぱ(?:り)?(?:いい|なし)|なんでもない|何でもない)[やでわ]?[。！!…]*$")
_JA_ASKED_TO_KEEP = ("くれる", "くれますか", "くれない", "もらえる", "もらえますか", "いただける", "いただけますか",
                     "いただけますでしょうか")
_JA_MEMORY_WORD = _Lazy(r"(?i:メモリ|記憶|メモ|覚え|kioku|長期記憶|ナレッジ)")
_JA_FILE_OBJ = _Lazy(r"(?:ファイル|変更|ドキュメント|画像|データ|設定|作業|コード|ページ|それ|これ)(?:を|は)?\s*$")
_JA_BEFORE_STRIP = _Lazy(
    r"(?:\s*(?:ということを|ってことを|ことを|ことは|のを|って|(?<!こ)と|を|は|なので|だから|から|ので|、|,|:|：)\s*)$")
_JA_TASK_BEFORE = _Lazy(r"(?:する|やる|実行する|走らせる|回す|入れる|送る|押す|閉じる|消す)のを\s*$")

# The request reported and asked about, not made: "…覚えておいてって頼んだっけ？",
# "…保存してと言ったのはどれ？", "覚えておいてって頼んだこと、一覧にして"; with "？" alone only
# after a question word ("前回、何をメモしておいてって言った？"), since "ポートは3000だって、覚えておいて
# って言ったよね？" says it again
_JA_REPORTED = r"\s*(?:って|と)\s*(?:頼|言|お願い|伝え|話し|指示)"
_JA_RECALLED = _Lazy(_JA_REPORTED + r"(?:[^。！!\n]{0,30}?っけ|(?:んだ|った|した|してた|していた)(?:こと|もの|やつ|内容|のは))")
_JA_RECALLED_ASKED = _Lazy(_JA_REPORTED + r"[^。！!\n]{0,30}?[?？]")
# The request said again as a complaint, with the note beside it ("前にも覚えておいてって言ったよね。
# 本番DBは触らないで"); what may stand before the request then: _JA_AGAIN_LEAD
_JA_HOW_OFTEN = r"(?:前にも|前に|何度も|何回も|もう)"  # how often a request was said before
_JA_SAID_AGAIN = _Lazy(r"\s*(?:って|と)\s*" + _JA_HOW_OFTEN + r"?\s*(?:言った|言いました|頼んだ|お願いした)"
                       r"[^。！!?？\n]{0,8}?[。！!?？]+\s*")
_JA_SAID_WORDS = ("言", "頼", "お願い")  # one of which _JA_SAID_AGAIN needs
_JA_AGAIN_TAIL = _Lazy(_JA_HOW_OFTEN + r"\s*$")
# Someone else asked: whom the request was said to, before に ("上司に覚えておいてって言った",
# "田中に…"); not a rule's clause ("pushしないように"). The assistant and adverbs ("あなたに", "絶対に")
# are read before this, as the lead of a request said again (_JA_AGAIN_LEAD)
_JA_TOLD_SOMEONE = _Lazy(r"(?<!よう)(?:に|へ)(?:は)?\s*$")
# Before a request said again: how often or how firmly it was said, a call for attention and the
# assistant as the one asked ("ねえ、だから前にも", "絶対に", "あなたに")
_JA_AGAIN_LEAD = _Lazy(r"(?:\s*(?:" + _JA_HOW_OFTEN + r"|だから|ねえ|ねぇ|絶対に|確実に|ちゃんと|しっかり"
                       r"|(?:あなた|君|きみ|(?i:claude)|クロード)(?:に|には))\s*[、,]?)*\s*")
_JA_IMPERATIVE_END = _Lazy(r"(?:て|で)(?:ね|よ|ください|下さい|おいて)?$")
_JA_QUOTE = _Lazy(r"^[「『](.+)[」』]$")


# The last sentence of a note that opens with "and also" and asks for work ("あと、ログインのバグを
#直して。") is a new request, not part of the note; "…してから出す", "…している" are facts.
_JA_TASK_OPENER = _Lazy(r"^\s*(?:あと|それと|それから|ついでに|次に)[、,]?")
_JA_TASK_CLOSER = _Lazy(r"(?:(?<!て)(?:して|直して|やって|確認して|追加して|修正して|対応して)(?:ください|下さい|ね|よ|ほしい|欲しい)?"
                        r"|お願い(?:します|いたします)?)\s*[。！!]?\s*$")
_JA_SENTENCE_SPLIT = _Lazy(r"(?<=[。！？!?\n])")


# A note never opens with how often it was said: "何度も言ってるけど、`legacy` は触らないで"
_JA_SAID_BEFORE_LEAD = _Lazy(r"^\s*" + _JA_HOW_OFTEN + r"?\s*(?:言って(?:る|ます|います)|言った|言いました)"
                             r"(?:けど|けれど|が|よね|でしょ)?\s*(?:[、,]\s*|$)")
# Thanks and nothing else: chatter, not the note ("ありがとう、助かった"); a note after thanks keeps
# its words once the thanks are cut off ("ありがとう、このAPIはレート制限が1分60回")
_JA_THANKS_WORDS = ("ありがとうございます", "ありがとう", "ありがと", "助かった", "助かりました", "助かります",
                    "了解です", "了解", "おけ", "完璧", "さすが", "いいね")
_THANKS_WORD = "(?:" + "|".join(_JA_THANKS_WORDS) + ")"
_JA_THANKS = _Lazy(r"\s*(?:" + _THANKS_WORD + r"[、,!！。\s]*)+")
_JA_THANKS_LEAD = _Lazy(r"^\s*(?:" + _THANKS_WORD + r"[、,!！\s]*)+(?:じゃあ|では)?[、,\s]*")
# "…って" closing a quoted note ("本番DBは触らないでって"), not a verb's て-form ("pnpmを使って")
_JA_QUOTED_TAIL = _Lazy(r"(?:(?<=ないで)|(?<=こと)|(?<=です)|(?<=ます)|(?<=[だるいた]))って\s*$")
# Words of the work at hand in a sentence that asks for something ("このエラー直して")
_JA_AT_HAND = _Lazy(r"この|その|これ|それ|さっき|今|いま|上の|下の")
# A request's て-form end ("書いて", "読んで"), not the particle で ("日本語で", "pnpmで")
_JA_TE_END = _Lazy(r"(?:て|[んい]で)(?:ね|よ|ください|下さい|ほしい|欲しい)?$")
# A prohibition, which makes a request a rule, not a task (触らないで, するな; see _ja_task)
_JA_PROHIBITION = _Lazy(r"(?:ないで|ないように|するな|禁止|厳禁)(?:ね|よ|ください|下さい)?$")
# What a note said again in anger is not: a complaint ("ほんと困る", "READMEに書いてあるでしょ")
_JA_GRIEVANCE = _Lazy(r"困る|困っ|がっかり|書いてある|でしょ|じゃん|なんで|どうして|いい加減|忘れ")


# "これは大事なので", "重要なことなので": what makes the next sentence worth keeping, not a note
_JA_IMPORTANCE = _Lazy(r"^\s*(?:これは|これ|ここは|以下は|次は)?\s*(?:とても|すごく|本当に)?(?:大事|重要|大切)"
                       r"(?:な(?:こと)?(?:なの)?|です|だ)?(?:ので|だから|から)?\s*$")


# Standing instructions: "今後は敬語で返答して", "以後、mainへの直接pushは禁止". The sentence must
# end as an instruction or a rule (imperative, prohibition, plain verb), not as a statement
# about oneself ("今後は気をつけます") or a question.
_JA_STANDING = _Lazy(r"(?:^|(?<=[。！？!?\n]))\s*(?:(?:それから|あと|また|それと)[、,]?\s*)?"
                     r"(?P<trig>(?:今後|以後|以降|次回以降)(?:は|(?=[、,]))|今後の(?:会話|セッション)では"
                     r"|(?:今度|次回|次)から(?:は)?(?![の次])|これから(?:先)?は(?![ぁ-ん]))\s*[、,]?\s*")
# Not a rule to keep: a caution with no content, a task on something in this conversation
# ("このファイル", "そのPR"), or a one-off fix.
_JA_GENERIC = _Lazy(r"気をつけ|気を付け|注意し|よろしく")
_JA_ONE_OFF = _Lazy(r"(?:この|その|あの|これ|それ|あれ|こちら|そちら)"
                    r"|(?:直して|修正して|マージして|なおして|教えて|説明して|調べて|見せて)(?:ください|下さい|ね)?$")
_JA_RULE_END = _Lazy(r"(?:(?:て|で)(?:ね|よ|ください|下さい|ほしい|欲しい)?|こと|ように|禁止|厳禁|ダメ|だめ|ないで|するな)$")
# A plain verb is a rule only when someone does something to something ("bunを使う",
# "テストはpytestにする"), not an event or a forecast ("雨が降る", "忙しくなる", "ログが出力される").
_JA_PLAIN_RULE = _Lazy(r"^[^。]*(?:を[^。]*[うくすつぬむぶぐる]|[にと]する)$")
_JA_NOT_A_RULE = _Lazy(r"(?:なる|れる|られる|だろう|でしょう)$")
_JA_STATEMENT_END = _Lazy(r"(?:ます|です|ました|でした|ません)$")
# Polite forms of a rule ("返答は日本語でお願いします", "直接 push は禁止です", "bunを使います"),
# which the statement endings above would otherwise turn away.
_JA_POLITE_RULE = _Lazy(r"(?:お願い(?:します|いたします|致します)|(?:禁止|厳禁|不要|必須)です"
                        r"|を[^。]*(?:使います|使いません|用います|しません|禁止します))$")
_JA_ASKING = _Lazy(r"どう|何|なに|いつ|どこ|だれ|誰|どれ|なぜ")
