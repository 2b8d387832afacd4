"""The Japanese detector: 覚えておいて and its kin, standing rules (今後は…), and what they ask to keep."""

from __future__ import annotations

import re

from kioku.memory.triggers.request import RememberRequest
from kioku.memory.triggers.phrases_en_work import _MAX_CANDIDATES, _WINDOW
from kioku.memory.triggers.sentences import (
    _JA_QUESTION_END, _JA_THAT_TAIL, _is_reference, _sentence_end, _strip_trail,
)
from kioku.memory.triggers.phrases_ja import (
    _JA_AGAIN_LEAD, _JA_AGAIN_TAIL, _JA_ASKED_TO_KEEP, _JA_ASKING, _JA_AT_HAND, _JA_BEFORE_STRIP,
    _JA_COMPLAINT, _JA_FILE_OBJ, _JA_FOR_LATER, _JA_GENERIC, _JA_GRIEVANCE, _JA_IMPERATIVE_END,
    _JA_IMPORTANCE, _JA_LASTING_ONLY, _JA_MEMORY_WORD, _JA_NOT_A_RULE, _JA_ONE_OFF, _JA_ONLY_NOW,
    _JA_OWN_ACTION, _JA_PLAIN_RULE, _JA_PLEA, _JA_POLITE_RULE, _JA_PROHIBITION, _JA_QUOTE, _JA_QUOTED_TAIL,
    _JA_RECALLED, _JA_RECALLED_ASKED, _JA_REPORTED, _JA_RETRACTED, _JA_RETRACT_WORDS, _JA_RULE_END,
    _JA_RULE_WORDS, _JA_SAID_AGAIN, _JA_SAID_BEFORE_LEAD, _JA_SAID_WORDS, _JA_SENTENCE_SPLIT, _JA_STANDING,
    _JA_STATEMENT_END, _JA_TASK_BEFORE, _JA_TASK_CLOSER, _JA_TASK_OPENER, _JA_TE_END, _JA_THANKS,
    _JA_THANKS_LEAD, _JA_THANKS_WORDS, _JA_TOLD_SOMEONE, _JA_TRIG,
)


def _clean_ja(content: str) -> str:
    content = content.strip()
    m = _JA_QUOTE.match(content)
    if m:
        content = m.group(1)
    sentences = [x for x in _JA_SENTENCE_SPLIT.split(content) if x.strip()]
    if len(sentences) > 1 and _JA_TASK_OPENER.match(sentences[-1]) and _JA_TASK_CLOSER.search(sentences[-1]):
        content = "".join(sentences[:-1])
    content = _strip_trail(content)
    if "言" in content[:14]:  # (the pattern is compiled only where it can match)
        content = _JA_SAID_BEFORE_LEAD.sub("", content)
    return content.strip()


def _previous_ja_sentence(text: str, s_start: int) -> str:
    """The sentence before the one at ``s_start`` (at most _WINDOW characters back), cleaned."""
    return _clean_ja(re.split(r"(?<=[。！？!?\n])", text[max(0, s_start - _WINDOW):s_start].rstrip("。！!\n "))[-1])


def _ja_task(sentence: str) -> bool:
    """Asks for something now ("このエラー直して", "テストを書いて"), not a rule: no word of a rule
    (必ず, 毎回, 次から), no prohibition (触らないで), and the work at hand named or no topic (は)
    that the request is a rule about ("コミットメッセージは英語で書いて" is a rule)."""
    if _JA_RULE_WORDS.search(sentence) or _JA_PROHIBITION.search(sentence):
        return False
    asks = _JA_TASK_CLOSER.search(sentence) or _JA_TE_END.search(sentence)
    return bool(asks) and (_JA_AT_HAND.search(sentence) is not None or "は" not in sentence)


def _ja_standing_note(content: str) -> bool:
    """Whether a sentence beside a request said again can be the note: not a complaint, a task, a
    question, a note for now only or one taken back."""
    return bool(content) and not (_JA_COMPLAINT.search(content) or _JA_GRIEVANCE.search(content)
                                  or _JA_THANKS.fullmatch(content)
                                  or _ja_task(content) or _JA_QUESTION_END.search(content)
                                  or _JA_ONLY_NOW.search(content) or _JA_RETRACTED.search(content))


def _detect_ja(text: str, masked: str) -> RememberRequest | None:
    for n, m in enumerate(_JA_TRIG.finditer(masked)):
        if n >= _MAX_CANDIDATES:
            return None
        trig = m.group("trig")
        # the Japanese sentence around the trigger (bounded look-back)
        lo = max(0, m.start() - _WINDOW)
        s_start = max(max(masked.rfind(c, lo, m.start()) for c in "。！？!?\n") + 1, lo)
        after = masked[m.end():m.end() + _WINDOW]
        # "これ覚えておいてくれる？本番はGCP。": a polite request with the fact after it
        # ("…。覚えておいてくれる？" asks the same of the sentence before it)
        polite = (m.group(0).endswith(_JA_ASKED_TO_KEEP) and re.match(r"\s*[?？]\s*(?!って|と(?:聞|言))", after) is not None
                  and re.fullmatch(r"\s*(?:(?:これ|それ)(?:を|は)?)?\s*", text[s_start:m.start()]) is not None)
        asked = polite and re.match(r"\s*[?？]\s*\S", after) is not None
        if (_JA_QUESTION_END.match(after.lstrip()) or re.match(r"\s*[?？]", after)) and not polite:
            continue
        if masked.startswith(_JA_OWN_ACTION, m.end("trig")):
            continue  # "チケットに自分でメモしておきます": the speaker will do it, nothing is asked
        if _JA_RECALLED.match(after) or (_JA_RECALLED_ASKED.match(after)
                                         and _JA_ASKING.search(masked, s_start, m.start())):
            continue  # "前に何を覚えておいてって頼んだっけ？": asks about an earlier request
        before = text[s_start:m.start()]
        said = _JA_SAID_AGAIN.match(after) if any(w in after[:16] for w in _JA_SAID_WORDS) else None
        if said and (_JA_AGAIN_LEAD.fullmatch(before) or _JA_LASTING_ONLY.match(before.strip())):
            # the note is the next sentence or, when that is none or a complaint, the one before the
            # request ("mainに直接pushしないで。前にも覚えておいてって言ったよね。ほんと困る。")
            nxt = re.match(r"\s*(.+?)(?:[。！!]|\n|$)", text[m.end() + said.end():m.end() + _WINDOW])
            for candidate in (_clean_ja(nxt.group(1)) if nxt else "", _previous_ja_sentence(text, s_start)):
                content = _JA_QUOTED_TAIL.sub("", candidate)
                if _ja_standing_note(content) and not _JA_TASK_OPENER.match(content) \
                        and not _is_reference(content, "ja"):
                    return RememberRequest(content, trig, "ja")
            continue  # "前にも覚えておいてって言ったよね。" alone, or a complaint or a task with it
        if re.match(_JA_REPORTED, after) and _JA_TOLD_SOMEONE.search(before):
            continue  # "上司に覚えておいてって言った": someone else was asked
        if said:  # "本番DBは触らないでって、前にも覚えておいてって言ったよね？": the note is before it
            before = _JA_BEFORE_STRIP.sub("", _JA_AGAIN_TAIL.sub("", before))
        if trig == "メモ" and not (_JA_LASTING_ONLY.match(before.strip()) and _JA_FOR_LATER.search(before)):
            continue  # "メモ：明日の会議" is a heading; "今後のためにメモ：…" asks to keep it
        if before.count("「") > before.count("」") or before.count("『") > before.count("』"):
            continue  # 「覚えておいて」と言われた: the words are quoted, not asked
        if _JA_ONLY_NOW.search(before):
            continue  # "今回だけ覚えておいて：…": for this work only
        # content after a colon wins ("覚えておいて：テストにはRedisが必要")
        content_after = ""
        am = re.match(r"\s*(?:こと|事)?\s*[:：]\s*", after)  # "覚えておいてほしいこと：…"
        if am is None and not before.strip():
            # "覚えておいて、テストには…", "覚えておいてほしいのは、本番DBは…"
            am = re.match(r"\s*(?:(?:ほしい|欲しい)?(?:のは|ことは)\s*[、,:：]?|(?:ん(?:だ|です)?けど|のですが|けど)?[、,])\s*",
                          after)
        if am is None and _JA_LASTING_ONLY.match(before.strip()):
            # "次回以降のセッションでも覚えておいてほしいんだけど、本番DBは…": before the request
            # only how long; the fact follows it
            am = re.match(r"\s*(?:ん(?:だ|です)?けど|のですが|けど|けれど)?\s*[、,]\s*(?=\S)", after)
        if am:
            # after a colon a block of notes; after "、" or "んだけど、" the sentence
            end = _sentence_end(masked, m.end() + am.end(), block=":" in am.group(0) or "：" in am.group(0))
            content_after = text[m.end() + am.end():end]
        if trig.startswith("保存"):
            if not (_JA_MEMORY_WORD.search(before) or (content_after.strip()
                                                        and not _JA_FILE_OBJ.search(before))):
                continue  # "ファイルを保存して" is a file save
            before = re.sub(r"(?:メモリ|記憶|メモ|長期記憶|kioku|ナレッジ)(?:に|へ)\s*$", "", before)
        if trig.startswith("忘れないように") and not before.strip():
            if _JA_TRIG.search(_JA_SENTENCE_SPLIT.split(after, 1)[0]):
                continue  # "忘れないように、本番DBはread-onlyだって覚えておいて": the next request keeps the note
            if re.match(r"\s*[、,]", after) and _JA_IMPERATIVE_END.search(_clean_ja(content_after)) \
                    and not _JA_RULE_WORDS.search(content_after):
                continue  # "忘れないように、この正規表現の意味をコメントで書いて": a task, so as not to forget
        before = re.sub(r"^\s*忘れないように\s*[、,]\s*", "", before)
        if trig.startswith("忘れ") and not content_after.strip() and before.strip() not in ("", "これ", "それ"):
            if _JA_TASK_BEFORE.search(before) or not re.search(
                    r"(?:こと|ということ|って|と)(?:を|は)?\s*$", before):
                continue  # "テストを実行するのを忘れないで" is a task, not a fact
        pleaded = bool(before.strip()) and (_JA_PLEA.match(before.strip()) is not None
                                            or ("言" in before and _JA_SAID_BEFORE_LEAD.fullmatch(before) is not None))
        if not content_after.strip() and before.strip() and (_JA_LASTING_ONLY.match(before.strip()) or pleaded):
            before = ""  # "今後のために覚えておいて": the note is the sentence around the request
        if content_after.strip():
            if re.match(r"\s*(?:という|って|と(?:いう|言う))", content_after):
                continue  # "覚えておいてほしいこと：という見出し…": the words are quoted, not asked
            content = _clean_ja(content_after)
        else:
            before = re.sub(r"^\s*(?:これ|それ|次のこと|以下|この(?:こと|事))(?:を|は)?\s*$", "", before)
            content = _clean_ja(_JA_BEFORE_STRIP.sub("", before))
            if re.search(r"ことを\s*$", before):
                content = _clean_ja(re.sub(r"を\s*$", "", before))
        if not content and not before.strip() and re.match(r"\s*(?:[。！!\n]|$)" if not polite else r"\s*[?？]", after):
            # "…。覚えておいて" / "覚えておいて。…": the fact is the neighbouring sentence
            prev = _previous_ja_sentence(text, s_start)
            if prev.startswith(_JA_THANKS_WORDS):
                prev = _JA_THANKS_LEAD.sub("", prev)
            # thanks alone or a task before the request is not the note: the sentence after it is
            # ("ありがとう、助かった。永続的に覚えておいて。<fact>", "テストを直して。これは必ず覚えておいて。<fact>")
            if prev and not _JA_QUESTION_END.search(prev) and not asked and not _ja_task(prev):
                content = prev
            else:
                nxt = re.match(r"\s*[。！!?？]?\s*(.+?)(?:[。！!]|\n|$)", text[m.end():m.end() + _WINDOW])
                content = _clean_ja(nxt.group(1)) if nxt else ""
            if pleaded and (_JA_COMPLAINT.search(content) or _JA_TASK_OPENER.match(content)
                            or _JA_TASK_CLOSER.search(content)):
                continue  # "頼むから覚えて。前にも言ったでしょ。", "…。あとテストも直して。": no note after the plea
            if (trig.startswith("忘れ") or asked) and _JA_IMPERATIVE_END.search(content):
                continue  # "テストを実行してね。忘れないで", "覚えておいてくれる？あとテスト直して": a task
        if content and any(word in content for word in _JA_RETRACT_WORDS) and _JA_RETRACTED.search(content):
            continue  # "頼むから覚えて。…いや、やっぱりいいや。": taken back
        if content and _JA_IMPORTANCE.match(content):
            # "これは大事なので覚えておいてください。本番へのデプロイは…": the sentence before the
            # request only says the next one matters; the note is the next sentence
            nxt = re.match(r"\s*(?:ください|下さい|ね|よ)?\s*[。！!]?\s*(.+?)(?:[。！!]|\n|$)",
                           text[m.end():m.end() + _WINDOW])
            content = _clean_ja(nxt.group(1)) if nxt else ""
        if _JA_QUESTION_END.search(content) and content.endswith(("?", "？")):
            continue
        content = _JA_THAT_TAIL.sub("", content) or content
        if len(content) < 2 or _is_reference(content, "ja"):
            continue
        if content.endswith(("のこと", "の事")):
            continue  # "さっきのこと覚えといて", "テストのこと覚えといて": a thing, not a fact
        return RememberRequest(content, trig, "ja")
    return None


def _detect_ja_standing(text: str, masked: str) -> RememberRequest | None:
    for n, m in enumerate(_JA_STANDING.finditer(masked)):
        if n >= _MAX_CANDIDATES:
            return None
        end = _sentence_end(masked, m.end(), block=False)
        sentence = masked[m.end():end]
        if _JA_QUESTION_END.search(sentence.rstrip()) or sentence.rstrip().endswith(("?", "？")):
            continue
        content = _clean_ja(text[m.end():end])
        polite = bool(_JA_POLITE_RULE.search(content))
        rule = polite or _JA_RULE_END.search(content) or (
            _JA_PLAIN_RULE.match(content) and not _JA_NOT_A_RULE.search(content))
        if len(content) < 3 or (_JA_STATEMENT_END.search(content) and not polite) or not rule \
                or _JA_GENERIC.search(content) or _JA_ONE_OFF.search(content) or _JA_ASKING.search(content):
            continue  # "次からは気をつけてね", "今後はこのファイルを修正して": no rule to keep
        return RememberRequest(content, m.group("trig").rstrip("は"), "ja")
    return None
