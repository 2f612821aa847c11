"""The security gate against evasions of every external alias, and the 中国 collision."""

from __future__ import annotations

import pytest

from core.gates.security import external_mentions, security_screen
from core.glossary import AliasRecord, EntityInfo, GlossarySnapshot, glossary_build
from tests.fakes import demo_glossary

GLOSSARY = demo_glossary()
EXTERNAL_ALIASES = sorted(
    {
        text
        for (kind, code), texts in GLOSSARY._alias_texts.items()
        if kind == "entity" and GLOSSARY.is_external(code)
        for text in texts
    }
)
TO_TRADITIONAL = str.maketrans(
    {
        "竞": "競",
        "华": "華",
        "鼎": "鼎",
        "辰": "辰",
        "程": "程",
        "团": "團",
        "电": "電",
        "国": "國",
        "零": "零",
        "售": "售",
    }
)


def to_full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


EVASIONS = {
    "plain": lambda a: a,
    "spaced": lambda a: " ".join(a),
    "zero_width": lambda a: "\u200b".join(a),
    "full_width": to_full_width,
    "traditional": lambda a: a.translate(TO_TRADITIONAL),
    "upper": str.upper,
    "mixed_case": lambda a: "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(a)),
}


@pytest.mark.parametrize("alias", EXTERNAL_ALIASES)
@pytest.mark.parametrize("evasion", sorted(EVASIONS))
def test_every_external_alias_is_refused_however_it_is_written(alias: str, evasion: str) -> None:
    question = f"{EVASIONS[evasion](alias)} 2025年营收是多少"
    verdict = security_screen(raw_question=question, glossary=GLOSSARY, language="zh")
    assert verdict.refused, question
    assert verdict.entity is not None and GLOSSARY.is_external(verdict.entity)
    assert not any(ch.isdigit() for ch in verdict.message)


def test_the_china_collision_refuses_the_competitor_not_the_subsidiary(glossary: GlossarySnapshot) -> None:
    verdict = security_screen(raw_question="中国竞安的毛利率是多少", glossary=glossary, language="zh")
    assert verdict.refused and verdict.entity == "EXT_JINGAN"
    assert verdict.narrowing_options[0].question == "ACME集团的毛利率是多少"
    assert not security_screen(raw_question="中国内地的毛利率", glossary=glossary, language="zh").refused


@pytest.mark.parametrize("question", ["香港2025年营收", "HKEX 上市规则", "research on SEA revenue", "营收是多少"])
def test_home_questions_pass(glossary: GlossarySnapshot, question: str) -> None:
    assert not security_screen(raw_question=question, glossary=glossary, language="zh").refused


def test_a_scope_naming_a_competitor_is_refused(glossary: GlossarySnapshot) -> None:
    verdict = security_screen(raw_question="营收是多少", glossary=glossary, language="zh", scope_entity="EXT_HUADING")
    assert verdict.refused and verdict.entity == "EXT_HUADING"


def test_english_refusal_for_english_questions(glossary: GlossarySnapshot) -> None:
    verdict = security_screen(raw_question="Jingan revenue 2025", glossary=glossary, language="en")
    assert verdict.refused and verdict.message.startswith("Out of scope")


# One test per evasion class. Each question names a competitor in a way the plain normalised
# view does not see; the gate must still refuse it.
def refused_entity(question: str) -> str | None:
    verdict = security_screen(raw_question=question, glossary=GLOSSARY, language="zh")
    return verdict.entity if verdict.refused else None


@pytest.mark.parametrize("question", ["竞\ufe0f安的营收", "华\ufe00鼎营收", "Jin\U000e0101gan revenue"])
def test_variation_selectors_do_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) in {"EXT_JINGAN", "EXT_HUADING"}, question


@pytest.mark.parametrize("question", ["竞\u0301安的营收", "竞\u034f安的营收", "J\u0308ingan revenue", "景\u20dd程营收"])
def test_combining_marks_do_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) in {"EXT_JINGAN", "EXT_JINGCHENG"}, question


@pytest.mark.parametrize("filler", ["\u3164", "\u2800", "\u115f", "\u1160", "\uffa0"])
def test_blank_fillers_do_not_hide_a_competitor(filler: str) -> None:
    assert refused_entity(f"竞{filler}安的营收") == "EXT_JINGAN"
    assert refused_entity(f"Hua{filler}ding revenue") == "EXT_HUADING"


@pytest.mark.parametrize("separator", ["·", "・", "-", "_", "/", "'", '"', "“", "」", "🙂", "🇨🇳", "|", "…", "→"])
def test_separators_between_the_characters_do_not_hide_a_competitor(separator: str) -> None:
    assert refused_entity(f"竞{separator}安的营收") == "EXT_JINGAN"
    assert refused_entity(f"北{separator}辰 revenue") == "EXT_BEICHEN"
    assert refused_entity(f"Jing{separator}cheng revenue") == "EXT_JINGCHENG"


@pytest.mark.parametrize(
    "question",
    ["\u0408ingan revenue", "J\u0399ngan revenue", "J\u0456ngan revenue", "Jing\u0430n revenue", "Ηuading revenue"],
)
def test_look_alike_letters_do_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) in {"EXT_JINGAN", "EXT_HUADING"}, question


@pytest.mark.parametrize("question", ["Jìngān revenue", "Jing'an revenue", "Jing’an revenue", "Jing-an revenue"])
def test_pinyin_tone_marks_and_apostrophes_do_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) == "EXT_JINGAN", question


@pytest.mark.parametrize(
    "question",
    [
        "&#31454;&#23433;的营收",
        "&#x7ade;安的营收",
        "J&iacute;ngan revenue",
        "&amp;#31454;安的营收",
        "Jing&#97;n revenue",
    ],
)
def test_html_entities_do_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) == "EXT_JINGAN", question


@pytest.mark.parametrize(
    "question",
    [
        "竞<b>安</b>的营收",
        "竞<span style='x'>安的营收",
        "Jin<i>gan</i> revenue",
        "竞&lt;b&gt;安的营收",
        "竞<!-- -->安的营收",
    ],
)
def test_markup_between_the_characters_does_not_hide_a_competitor(question: str) -> None:
    assert refused_entity(question) == "EXT_JINGAN", question


@pytest.mark.parametrize("question", ["收入<100亿 且 >50亿的地区", "a<b and c>d"])
def test_comparisons_are_not_markup(question: str) -> None:
    assert refused_entity(question) is None, question


@pytest.mark.parametrize("question", ["Jingan2025 revenue", "2025Jingan revenue", "FY2025Huading revenue"])
def test_an_alias_glued_to_digits_is_still_found(question: str) -> None:
    assert refused_entity(question) in {"EXT_JINGAN", "EXT_HUADING"}, question


@pytest.mark.parametrize("question", ["Revenue of Jingan", "Revenue of Jing an", "revenue (Jingan)"])
def test_an_alias_after_a_space_or_a_separator_is_found(question: str) -> None:
    assert refused_entity(question) == "EXT_JINGAN", question


@pytest.mark.parametrize(
    "question",
    ["xjingan revenue", "Jinganx revenue", "x\u0399ngan revenue", "HKEX 上市规则", "research on SEA revenue"],
)
def test_an_alias_inside_a_longer_word_is_not_found(question: str) -> None:
    assert refused_entity(question) is None, question


def test_the_china_collision_holds_in_the_evasion_proof_view() -> None:
    assert refused_entity("中国·竞安的毛利率") == "EXT_JINGAN"
    assert refused_entity("中\u0301国竞\ufe0f安的毛利率") == "EXT_JINGAN"
    assert refused_entity("中·国·内·地的毛利率") is None


def test_a_refusal_found_only_by_the_evasion_proof_view_offers_the_home_company() -> None:
    verdict = security_screen(raw_question="竞·安的毛利率是多少", glossary=GLOSSARY, language="zh")
    assert verdict.refused and verdict.narrowing_options[0].question == "ACME集团的毛利率是多少"


def test_a_legitimate_alias_holding_a_competitors_name_is_not_refused() -> None:
    glossary = glossary_build(
        entities=[
            EntityInfo("HOME", "本集团", "home"),
            EntityInfo("PARK_STORE", "北辰科技园店", "subsidiary"),
            EntityInfo("TEMPLE_MALL", "Jingan Temple Mall", "subsidiary"),
            EntityInfo("EXT_BEICHEN", "北辰", "external"),
            EntityInfo("EXT_JINGAN", "Jingan", "external"),
        ],
        metrics=[],
        channels=[],
        units=[],
        aliases=[AliasRecord("entity", "Jìngān", "EXT_JINGAN")],
    )
    assert external_mentions("北辰科技园店的营收", glossary) == ()
    assert external_mentions("北辰 科技园店的营收", glossary) == ()
    assert external_mentions("Jingan Temple Mall revenue", glossary) == ()
    assert external_mentions("Jіngan-Temple-Mall revenue", glossary) == ()
    assert external_mentions("北辰科技园店和北·辰的营收", glossary) == ("EXT_BEICHEN",)
    assert external_mentions("Jingan revenue", glossary) == ("EXT_JINGAN",)  # the alias is keyed in the view


def test_external_mentions_names_each_competitor_once_in_reading_order() -> None:
    assert external_mentions("华鼎和竞安，还有华鼎电子", GLOSSARY) == ("EXT_HUADING", "EXT_JINGAN")
    assert external_mentions("香港2025年营收是多少", GLOSSARY) == ()
    assert external_mentions("", GLOSSARY) == ()
    assert external_mentions("Beichen, then 景·程", GLOSSARY) == ("EXT_BEICHEN", "EXT_JINGCHENG")


def test_external_mentions_screens_a_long_passage() -> None:
    filler = "公司在报告期内持续推进门店网络优化，线上渠道收入同比增长。The group expanded in Southeast Asia. "
    passage = filler * 4 + "同业中，J&#236;ng-&#257;n 的毛利率更高。" + filler * 4
    assert len(passage) > 400
    assert external_mentions(passage, GLOSSARY) == ("EXT_JINGAN",)
    assert external_mentions(filler * 8, GLOSSARY) == ()


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("ᴊɪɴɢᴀɴ revenue", "EXT_JINGAN"),  # LATIN LETTER SMALL CAPITAL …
        ("ʜᴜᴀᴅɪɴɢ revenue", "EXT_HUADING"),
        ("ʙᴇɪᴄʜᴇɴ revenue", "EXT_BEICHEN"),
        ("🅹🅸🅽🅶🅰🅽 revenue", "EXT_JINGAN"),  # NEGATIVE SQUARED LATIN CAPITAL LETTER …
        ("🅙🅘🅝🅖🅐🅝 revenue", "EXT_JINGAN"),  # NEGATIVE CIRCLED LATIN CAPITAL LETTER …
        ("🇯🇮🇳🇬🇦🇳 revenue", "EXT_JINGAN"),  # REGIONAL INDICATOR SYMBOL LETTER …
        ("🄹🄸🄽🄶🄰🄽 revenue", "EXT_JINGAN"),  # SQUARED LATIN CAPITAL LETTER …
        ("Jiɴɢ\U0001f130ɴ revenue", "EXT_JINGAN"),  # styles mixed within one word
        ("ʝingan revenue", "EXT_JINGAN"),  # LATIN SMALL LETTER J WITH CROSSED-TAIL
    ],
)
def test_letters_named_as_styled_latin_letters_do_not_hide_a_competitor(question: str, entity: str) -> None:
    assert refused_entity(question) == entity, question


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("%E7%AB%9E%E5%AE%89的营业收入是多少", "EXT_JINGAN"),
        ("%e7%ab%9e%e5%ae%89 revenue", "EXT_JINGAN"),
        ("%25E7%25AB%259E%25E5%25AE%2589的营收", "EXT_JINGAN"),  # percent-encoded twice
        ("Jing%20an revenue", "EXT_JINGAN"),
        ("%4A%69%6E%67%61%6E revenue", "EXT_JINGAN"),
        ("\\u7ade\\u5b89的营收", "EXT_JINGAN"),
        ("\\U00007ade\\U00005b89的营收", "EXT_JINGAN"),
        ("\\u{534e}\\u{9f0e} revenue", "EXT_HUADING"),
        ("\\xe5\\x8c\\x97\\xe8\\xbe\\xb0 revenue", "EXT_BEICHEN"),  # UTF-8 bytes
        ("J\\xedngan revenue", "EXT_JINGAN"),  # `\xed` is `í`
        ("&#92;u7ade安的营收", "EXT_JINGAN"),  # an entity that makes an escape
    ],
)
def test_escapes_a_reader_decodes_do_not_hide_a_competitor(question: str, entity: str) -> None:
    assert refused_entity(question) == entity, question


@pytest.mark.parametrize(
    "question",
    ["毛利率增长20%以上", "增长5%CA地区", "%E7%AB 不完整", "C:\\users\\report", "\\ud800 落单的代理项", "100%EE"],
)
def test_text_that_only_looks_escaped_passes(question: str) -> None:
    assert refused_entity(question) is None, question


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("\u202e安竞\u202c的营收", "EXT_JINGAN"),  # RLO … PDF: displays as 竞安
        ("revenue of \u202enagniJ\u202c", "EXT_JINGAN"),
        ("营收：\u202e鼎华", "EXT_HUADING"),  # the override runs to the end of the line
        ("\u202e辰北\n的营收", "EXT_BEICHEN"),
        ("&#x202e;安竞&#x202c;的营收", "EXT_JINGAN"),  # the override written as an entity
        ("\u2067安\u200f竞\u2069的营收", "EXT_JINGAN"),  # a right-to-left isolate, split by an RLM
        ("\u202b安\u200f竞\u202c的营收", "EXT_JINGAN"),  # a right-to-left embedding, split by an RLM
        ("\u202e售零\u202d景程\u202c\u202c", "EXT_JINGCHENG"),  # nested overrides: shows 景程零售
    ],
)
def test_a_bidi_override_does_not_hide_a_competitor(question: str, entity: str) -> None:
    assert refused_entity(question) == entity, question


@pytest.mark.parametrize("question", ["\u202e收营\u202c是多少", "ACME הכנסות 2025", "香港\u2067营收\u2069是多少"])
def test_bidi_text_naming_no_competitor_passes(question: str) -> None:
    assert refused_entity(question) is None, question


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("Jing4an1 revenue 2025", "EXT_JINGAN"),
        ("Jing4 An1 revenue", "EXT_JINGAN"),
        ("jing1an1的营收", "EXT_JINGAN"),
        ("Hua2ding3 revenue", "EXT_HUADING"),
        ("Bei3chen2 revenue", "EXT_BEICHEN"),
        ("Jing3cheng2 revenue", "EXT_JINGCHENG"),
        ("Ｊｉｎｇ４ａｎ１ revenue", "EXT_JINGAN"),
        ("FY2025 Jing4an1", "EXT_JINGAN"),
    ],
)
def test_pinyin_tone_numbers_do_not_hide_a_competitor(question: str, entity: str) -> None:
    assert refused_entity(question) == entity, question


EDGE_ALIASES = ["QA", "HKB", "FYA", "HN", "AB", "WinPro", "Jingan"]


def test_tone_numbers_join_only_pinyin_syllables() -> None:
    # Externals a careless digit rule would find: `Q4A` is no `QA`, `H1N1` no `HN`, `A1B` no `AB`
    # (`a` is a syllable, `b` is not), `Win10Pro` no `WinPro`.
    glossary = glossary_build(
        entities=[EntityInfo("HOME", "本集团", "home"), *(EntityInfo(f"X_{a}", a, "external") for a in EDGE_ALIASES)],
        metrics=[],
        channels=[],
        units=[],
        aliases=[],
    )
    for question in ["Q4A report", "HK1B sales", "FY2025A plan", "H1N1 cases", "A1B grade", "Win10Pro", "5G B2B"]:
        assert external_mentions(question, glossary) == (), question
    assert external_mentions("Jing4an1 Q4 revenue", glossary) == ("X_Jingan",)


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("Jing安的营收", "EXT_JINGAN"),
        ("竞an的营收", "EXT_JINGAN"),
        ("Hua鼎的营收", "EXT_HUADING"),
        ("竞Ān营收", "EXT_JINGAN"),
        ("Bei辰 revenue", "EXT_BEICHEN"),
        ("景cheng零售", "EXT_JINGCHENG"),
        ("華ding revenue", "EXT_HUADING"),
        ("北chen科技", "EXT_BEICHEN"),
        ("Jing4安的营收", "EXT_JINGAN"),
        ("jing·安的营收", "EXT_JINGAN"),
    ],
)
def test_half_pinyin_half_hanzi_does_not_hide_a_competitor(question: str, entity: str) -> None:
    assert refused_entity(question) == entity, question


@pytest.mark.parametrize(
    "question",
    [
        "静安区门店的营收",  # Jing'an district: a homophone of 竞安, all in characters
        "京城门店的营收",  # 京城 sounds like 景程
        "北京城区门店",
        "华定 revenue",
        "revenue of 静安 stores",
        "2025年Q4静安店的毛利率",
        "Beijing安全生产",
        "ACME香港 H1 revenue",
    ],
)
def test_a_homophone_in_characters_alone_is_not_a_competitor(question: str) -> None:
    assert refused_entity(question) is None, question


def test_a_polyphone_is_read_every_way_in_a_mixed_span() -> None:
    glossary = glossary_build(
        entities=[EntityInfo("HOME", "本集团", "home"), EntityInfo("EXT_WALL", "长城", "external")],
        metrics=[],
        channels=[],
        units=[],
        aliases=[],
    )
    assert external_mentions("Chang城 revenue", glossary) == ("EXT_WALL",)
    assert external_mentions("长cheng revenue", glossary) == ("EXT_WALL",)  # 长 is zhang first
    assert external_mentions("长成 revenue", glossary) == ()  # a homophone in characters alone


def test_a_refusal_found_only_in_a_mixed_span_offers_the_home_company() -> None:
    verdict = security_screen(raw_question="Jing安的毛利率是多少", glossary=GLOSSARY, language="zh")
    assert verdict.refused and verdict.narrowing_options[0].question == "ACME集团的毛利率是多少"
