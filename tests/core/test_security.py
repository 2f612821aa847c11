"""The security gate against evasions of every external alias, and the 中国 collision."""

from __future__ import annotations

import pytest

from agent.core.glossary import GlossarySnapshot
from agent.core.security import security_screen
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
