"""Attribution about the thing asked, in the core's narrative channel.

The extractive selector scores sentences by the question's terms and the glossary's rewrites, so
an English question finds Chinese passages; a figure or a year alone is no overlap, and a bare
title line is never quoted. Passages and sentences that name the asked entity (or one of its
aliases, in any written variant) come first; another entity's are shown only when nothing about
the asked one exists, and then under a label naming that entity.
"""

from __future__ import annotations

import itertools
from datetime import date

import opencc
import pytest

from core.language.normalize import text_normalize
from core.model.period import Period
from core.model.result import Source
from core.parse.intent import parse_intent
from core.ports import RetrievedChunk
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.narrative.retrieve import queries_rewrite
from core.routes.render import ABOUT_ENTITY, QUOTES_IN_CHINESE
from tests.fakes import demo_glossary
from tests.scripted import ScriptedProvider, prose

REFERENCE = date(2026, 3, 15)
FY2025 = Period("FY", "2025")
GLOSSARY = demo_glossary()
_TO_TRADITIONAL = opencc.OpenCC("s2t")


class ListRetriever:
    """Returns its passages in the given order for every query (the fused order is theirs)."""

    def __init__(self, *chunks: RetrievedChunk):
        self.chunks = list(chunks)

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        return self.chunks[:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def passage(chunk_id: int, text: str, doc: str = "", locator: str = "", issuer: str = "") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id, doc or f"doc{chunk_id}.pdf", locator or "page=1,para=1", text, 1.0, chunk_id, issuer=issuer
    )


def answer(question: str, *chunks: RetrievedChunk, focus: Focus | None = None, language: str = "zh"):
    return narrative_answer(
        question, retriever=ListRetriever(*chunks), glossary=GLOSSARY, cleared=False, language=language, focus=focus
    )


def quoted_lines(text: str) -> list[str]:
    """The quoted lines of an answer, without the English lead before Chinese quotes."""
    return [line for line in text.splitlines() if line != QUOTES_IN_CHINESE["en"]]


def cited_ids(outcome) -> list[int | None]:
    return [s.document_id for s in outcome.sources]


def label(code: str, language: str) -> str:
    return ABOUT_ENTITY[language].format(name=GLOSSARY.display("entity", code, language))


# -- an English question over Chinese passages -----------------------------------------
def test_an_english_why_question_gets_a_cited_extractive_answer_from_chinese_passages() -> None:
    mdna = passage(
        1,
        "香港营业收入同比下降6.7%。主要原因：第一，访港旅客消费结构变化，电子产品客单价下降。",
        "ACME_FY2025_管理层讨论与分析.pdf",
    )
    outcome = answer("Why did Hong Kong revenue decline?", mdna, focus=Focus(("ACME_HK",), FY2025), language="en")
    assert outcome.kind == "answer", outcome.text
    assert "香港营业收入同比下降6.7%" in outcome.text
    lead, *quotes = outcome.text.splitlines()
    assert lead == QUOTES_IN_CHINESE["en"]  # one English line before the Chinese quotes
    assert quotes and all(line.endswith("）") for line in quotes)
    assert cited_ids(outcome) == [1] and outcome.numbers_unsupported == 0


def test_a_name_of_several_english_words_is_rewritten_into_its_chinese_aliases() -> None:
    queries = queries_rewrite("Why did Hong Kong gross margin fall?", GLOSSARY)
    assert "why did 香港 gross margin fall?" in queries
    assert "why did hong kong 毛利率 fall?" in queries


def test_a_metric_named_in_english_finds_its_chinese_alias_without_an_entity() -> None:
    outcome = answer("Why did gross margin fall?", passage(1, "集团毛利率由上年的31.9%下降至29.7%。"), language="en")
    assert outcome.kind == "answer" and "毛利率" in outcome.text


# -- figures alone and title lines ------------------------------------------------------
def test_a_year_or_a_figure_shared_with_the_question_is_no_overlap() -> None:
    chips = passage(1, "2025年存储芯片采购均价同比上涨约35%。")
    returns = passage(2, "线上渠道退货率上升至8.3%，主要集中在大屏电视品类。")
    outcome = answer("2025年线上退货率为什么上升了8.3%", chips, returns)
    assert "存储芯片" not in outcome.text
    assert cited_ids(outcome) == [2]


def test_a_question_sharing_only_a_year_with_the_passages_finds_nothing() -> None:
    outcome = answer("2025年蓝鲸项目进展如何", passage(1, "2025年存储芯片采购均价同比上涨约35%。"))
    assert outcome.kind == "refusal" and not outcome.sources


@pytest.mark.parametrize(
    ("title", "doc", "locator"),
    [
        ("HK QBR 2025Q4", "deck.pptx", "slide=3"),  # a slide's nameplate: entity, acronym, period
        ("分部营业收入（人民币百万元）", "interim.pdf", "page=1,para=1-2"),  # a table's caption
        ("三、香港业务与门店网络调整", "mdna.docx", "section=三、香港业务与门店网络调整,para=1-2"),
        ("ACME香港门店网络调整与租约续签计划", "ACME香港门店网络调整与租约续签计划.docx", "para=1-2"),
    ],
    ids=["nameplate", "caption", "section-heading", "document-title"],
)
def test_a_bare_title_line_is_never_quoted(title: str, doc: str, locator: str) -> None:
    body = "香港营业收入同比下降6.7%，主要因为访港旅客减少、门店客流下滑。"
    for text in (f"{title}\n{body}", f"{body}\n{title}"):
        outcome = answer(
            "Why did HK revenue decline in 2025?", passage(1, text, doc, locator), focus=Focus(("ACME_HK",), FY2025)
        )
        quoted = [line.removesuffix(f"（{doc} · {locator}）") for line in outcome.text.splitlines()]
        assert quoted == [body], outcome.text


# -- the asked entity first -------------------------------------------------------------
MAINLAND = passage(1, "中国内地营业收入同比增长10.0%，主要得益于线上渠道收入增长。", "mdna.pdf")
HONG_KONG = passage(2, "香港营业收入同比下降6.7%。主要原因是访港旅客消费结构变化。", "mdna.pdf", "page=1,para=3")
MARKET = passage(3, "第三季度行业整体零售额同比增长6%，行业营业收入增速下降。", "weekly.pdf")


def test_the_asked_entitys_passage_comes_first_and_another_entitys_is_left_out() -> None:
    outcome = answer("香港营业收入为什么下降", MAINLAND, MARKET, HONG_KONG, focus=Focus(("ACME_HK",), FY2025))
    lines = outcome.text.splitlines()
    assert lines[0].startswith("香港营业收入同比下降6.7%")
    assert "中国内地" not in outcome.text and 1 not in cited_ids(outcome)
    assert cited_ids(outcome)[0] == 2


def test_general_market_text_follows_the_asked_entity_unlabelled() -> None:
    outcome = answer("香港营业收入为什么下降", MARKET, HONG_KONG, focus=Focus(("ACME_HK",), FY2025))
    assert cited_ids(outcome) == [2, 3]
    assert "（关于" not in outcome.text


def test_a_sentence_without_a_name_belongs_to_the_entity_its_paragraph_named() -> None:
    text = "香港营业收入同比下降6.7%。\n东南亚营业收入同比增长59.7%。营业收入增长主要来自新开门店。"
    outcome = answer("香港营业收入为什么下降", passage(1, text), focus=Focus(("ACME_HK",)))
    assert "新开门店" not in outcome.text and "东南亚" not in outcome.text
    assert "香港营业收入同比下降6.7%" in outcome.text


def test_the_asked_period_ranks_first_within_the_asked_entity() -> None:
    older = passage(1, "2024年香港营业收入同比下降3.1%，主要因为门店装修。")
    asked = passage(2, "2025年香港营业收入同比下降6.7%，主要因为旅客减少。")
    outcome = answer("2025年香港营业收入为什么下降", older, asked, focus=Focus(("ACME_HK",), FY2025))
    assert cited_ids(outcome)[0] == 2


@pytest.mark.parametrize("language", ["zh", "en"])
def test_only_another_entitys_passage_is_shown_under_its_label(language: str) -> None:
    question = "东南亚营业收入为什么下降" if language == "zh" else "Why did Southeast Asia revenue fall?"
    outcome = answer(question, MAINLAND, focus=Focus(("ACME_SEA",), FY2025), language=language)
    assert outcome.kind == "answer"
    lines = quoted_lines(outcome.text)
    assert lines and all(line.startswith(label("ACME_CN", language)) for line in lines)
    assert outcome.numbers_unsupported == 0  # the label states no figure


def test_a_subsidiarys_passage_is_about_its_parent() -> None:
    outcome = answer("集团营业收入为什么增长", MAINLAND, focus=Focus(("ACME_GROUP",), FY2025))
    assert outcome.text.startswith("中国内地营业收入同比增长10.0%")


def test_without_an_asked_entity_nothing_is_labelled_or_dropped() -> None:
    outcome = answer("营业收入为什么变化", MAINLAND, HONG_KONG)
    assert set(cited_ids(outcome)) == {1, 2} and "（关于" not in outcome.text


# -- point 5, with a model writing the answer ----------------------------------------------------
def test_a_model_is_shown_the_asked_entitys_passages_and_told_whom_another_ones_are_about() -> None:
    provider = ScriptedProvider(prose("见资料 [1]。"), prose("见资料 [1]。"))
    focus = Focus(("ACME_HK",), FY2025)
    for chunks in ((MAINLAND, HONG_KONG), (MAINLAND,)):
        narrative_answer(
            "香港营业收入为什么下降",
            retriever=ListRetriever(*chunks),
            glossary=GLOSSARY,
            cleared=False,
            language="zh",
            llm=provider,
            focus=focus,
        )
    with_own, only_other = (str(request) for request in provider.requests)
    assert "香港营业收入同比下降6.7%" in with_own and "中国内地营业收入" not in with_own
    assert f"[1] {label('ACME_CN', 'zh')}（mdna.pdf" in only_other


# -- point 5, over the demo glossary: every in-scope entity, alias and written variant ------------
def _written_variants(alias: str) -> list[str]:
    """The alias as stored, in Traditional characters, and with full-width Latin letters."""
    full_width = "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in alias)
    return sorted({alias, _TO_TRADITIONAL.convert(alias), full_width})


def _descendants(code: str) -> set[str]:
    found = {code}
    for child in GLOSSARY.children(code):
        found |= _descendants(child.code)
    return found


CASES = [
    (asked.code, alias, other.code)
    for asked, other in itertools.permutations(GLOSSARY.in_scope_entities(), 2)
    if other.code not in _descendants(asked.code)
    for alias in dict.fromkeys(GLOSSARY.aliases_of("entity", asked.code))
]


def test_the_table_covers_every_in_scope_entity_that_has_another() -> None:
    in_scope = {e.code for e in GLOSSARY.in_scope_entities()}
    assert {code for code, _, _ in CASES} == {code for code in in_scope if not in_scope <= _descendants(code)}
    assert len(CASES) >= 30


@pytest.mark.parametrize(("asked", "alias", "other"), CASES)
def test_every_alias_of_the_asked_entity_ranks_its_passage_over_another_entitys(
    asked: str, alias: str, other: str
) -> None:
    intent = parse_intent(f"{alias}营业收入为什么下降", GLOSSARY, REFERENCE)
    assert intent.entity == asked
    focus = Focus(tuple(intent.entities) or (asked,), intent.period)
    other_name = GLOSSARY.entities[other].name
    for variant in _written_variants(alias):
        others = passage(1, f"{other_name}营业收入同比增长，主要得益于线上渠道扩张。")
        own = passage(2, f"{variant}营业收入同比下降，主要因为门店客流减少。")
        outcome = answer(f"{alias}营业收入为什么下降", others, own, focus=focus)
        assert cited_ids(outcome) == [2], (variant, outcome.text)
        alone = answer(f"{alias}营业收入为什么下降", others, focus=focus)
        assert alone.text.startswith(label(other, "zh")), (variant, alone.text)
        assert text_normalize(other_name) in text_normalize(alone.text)


# -- relevance: naming the asked entity is not being about the question ---------------------------
CAPTION = passage(4, "口径说明：ACME香港合并口径，金额单位为人民币百万元，比率为百分比。", "deck.pptx", "slide=4,notes")
MAINLAND_MARGIN = passage(5, "中国内地毛利率由31.9%下降至30.4%，主要因为存储芯片采购价格上涨。", "mdna.pdf")


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("香港毛利率为什么下降？", "zh"),
        ("存储芯片涨价对香港毛利率有什么影响？", "zh"),
        ("Why did Hong Kong gross margin fall?", "en"),
    ],
)
def test_a_sentence_sharing_only_the_entitys_name_is_no_answer_and_does_not_block_the_labelled_one(
    question: str, language: str
) -> None:
    outcome = answer(question, CAPTION, MAINLAND_MARGIN, focus=Focus(("ACME_HK",), FY2025), language=language)
    assert "口径说明" not in outcome.text
    lines = quoted_lines(outcome.text)
    assert lines and all(line.startswith(label("ACME_CN", language)) for line in lines), outcome.text
    assert cited_ids(outcome) == [5] and outcome.numbers_unsupported == 0


def test_a_caption_alone_is_no_answer() -> None:
    outcome = answer("Why did Hong Kong gross margin fall?", CAPTION, focus=Focus(("ACME_HK",)), language="en")
    assert outcome.kind == "refusal" and not outcome.sources


def test_a_passage_naming_the_asked_entity_without_the_topic_does_not_push_out_a_relevant_one() -> None:
    fillers = [passage(10 + i, f"香港业务第{i}项门店装修工程已完工，客户满意度有所提高。") for i in range(1, 5)]
    outcome = answer("香港毛利率为什么下降？", *fillers, MAINLAND_MARGIN, focus=Focus(("ACME_HK",)))
    assert cited_ids(outcome) == [5] and outcome.text.startswith(label("ACME_CN", "zh"))


# -- the reasons that continue a quoted sentence ---------------------------------------------------
REASONS = passage(
    6,
    "集团营业收入同比增长8.5%。\n"
    "香港营业收入同比下降6.7%。主要原因：第一，访港旅客消费结构变化，电子产品客单价下降；"
    "第二，核心商圈门店客流减少；第三，港币汇率走强，削弱了本地零售价格的竞争力。"
    "东南亚营业收入同比增长59.7%。亏损主要来自新开门店的前期成本。\n"
    "全年资本开支64.2亿元，主要投向门店扩张。",
    "mdna.pdf",
    "page=1,para=1-4",
)


@pytest.mark.parametrize("question", ["香港营业收入为什么下降？", "香港营业利润为什么下降？"])
def test_a_quoted_sentence_brings_the_reasons_that_continue_it_in_its_paragraph(question: str) -> None:
    outcome = answer(question, REASONS, focus=Focus(("ACME_HK",), FY2025))
    quoted = [line.removesuffix("（mdna.pdf · page=1,para=1-4）") for line in outcome.text.splitlines()]
    assert quoted[0] == "香港营业收入同比下降6.7%。", outcome.text
    assert [q[:2] for q in quoted[1:4]] == ["主要", "第二", "第三"], outcome.text
    assert "东南亚" not in outcome.text and "新开门店" not in outcome.text and "资本开支" not in outcome.text


# -- a question that names only a period -----------------------------------------------------------
Q4 = Period("QUARTER", "2025Q4")


def test_a_question_naming_only_a_period_finds_the_passages_about_that_period() -> None:
    review = passage(
        7,
        "季度概览\n第四季度集团营业收入351.3亿元，环比增长9.4%，主要受大促带动。",
        "ACME_2025Q4_渠道复盘.pptx",
        "slide=2",
    )
    earlier = passage(8, "第三季度访港旅客人均消费同比下降约12%。", "ACME香港业务季度回顾_2025Q3.pdf")
    outcome = answer("2025年第四季度发生了什么？", earlier, review, focus=Focus((), Q4))
    assert outcome.kind == "answer", outcome.text
    assert outcome.text.startswith("第四季度集团营业收入351.3亿元") and cited_ids(outcome) == [7]


def test_a_question_naming_an_entity_and_a_period_only_quotes_that_entitys_text() -> None:
    outcome = answer("香港2025年发生了什么？", MAINLAND, HONG_KONG, focus=Focus(("ACME_HK",), FY2025))
    assert outcome.text.startswith("香港营业收入同比下降6.7%") and cited_ids(outcome) == [2]


# -- overlapping chunks --------------------------------------------------------------------------
def test_a_sentence_in_two_overlapping_chunks_is_quoted_once_under_the_first_citation() -> None:
    first = passage(
        1,
        "东南亚营业收入同比增长59.7%。东南亚亏损主要来自新开门店的前期租金与人员成本。",
        "mdna.pdf",
        "page=1,para=1-4",
    )
    second = passage(
        2, "东南亚亏损主要来自新开门店的前期租金与人员成本。集团毛利率下降至29.7%。", "mdna.pdf", "page=1,para=5-6"
    )
    outcome = answer("东南亚为什么亏损？", first, second, focus=Focus(("ACME_SEA",)))
    assert outcome.text.count("前期租金与人员成本") == 1, outcome.text
    assert "前期租金与人员成本。（mdna.pdf · page=1,para=1-4）" in outcome.text


# -- a passage naming no entity is about its document's issuer ------------------
HK_REPORT = passage(11, "营业收入增长主要来自会员复购。", "report_a.pdf", issuer="ACME_HK")
SEA_REPORT = passage(12, "营业收入增长主要来自新店开业。", "report_b.pdf", issuer="ACME_SEA")


def test_another_issuers_passage_is_left_out_when_the_asked_ones_exists() -> None:
    outcome = answer("香港营业收入为什么增长", SEA_REPORT, HK_REPORT, focus=Focus(("ACME_HK",), FY2025))
    assert cited_ids(outcome) == [11] and "新店开业" not in outcome.text


@pytest.mark.parametrize("language", ["zh", "en"])
def test_another_issuers_passage_alone_is_shown_under_its_issuers_label(language: str) -> None:
    question = "香港营业收入为什么增长" if language == "zh" else "Why did Hong Kong revenue grow?"
    outcome = answer(question, SEA_REPORT, focus=Focus(("ACME_HK",), FY2025), language=language)
    lines = quoted_lines(outcome.text)
    assert lines and all(line.startswith(label("ACME_SEA", language)) for line in lines), outcome.text


def test_a_model_is_told_whose_report_another_issuers_passage_is() -> None:
    provider = ScriptedProvider(prose("见资料 [1]。"))
    narrative_answer(
        "香港营业收入为什么增长",
        retriever=ListRetriever(SEA_REPORT),
        glossary=GLOSSARY,
        cleared=False,
        language="zh",
        llm=provider,
        focus=Focus(("ACME_HK",), FY2025),
    )
    assert f"[1] {label('ACME_SEA', 'zh')}（report_b.pdf" in str(provider.requests[0])


def test_a_passage_naming_another_entity_is_about_that_one_not_its_issuer() -> None:
    """The Hong Kong report's sentence about Southeast Asia answers a question about Southeast Asia
    unlabelled, and one about Hong Kong only under Southeast Asia's label."""
    named = passage(13, "东南亚营业收入增长主要来自新店开业。", "report_a.pdf", issuer="ACME_HK")
    about_sea = answer("东南亚营业收入为什么增长", named, focus=Focus(("ACME_SEA",), FY2025))
    assert cited_ids(about_sea) == [13] and "（关于" not in about_sea.text
    about_hk = answer("香港营业收入为什么增长", named, focus=Focus(("ACME_HK",), FY2025))
    assert about_hk.text.startswith(label("ACME_SEA", "zh")), about_hk.text


def test_a_passage_of_the_asked_issuers_report_ranks_with_those_that_name_it() -> None:
    outcome = answer("香港营业收入为什么增长", MARKET, HK_REPORT, focus=Focus(("ACME_HK",), FY2025))
    assert cited_ids(outcome)[0] == 11


def test_the_groups_report_is_no_other_company_to_its_subsidiary() -> None:
    """A group's report speaks of the group, which holds the asked subsidiary: its passages stay
    general text, as with the home company's name in a document's name."""
    group = passage(14, "营业收入增长主要来自会员复购。", "report_g.pdf", issuer="ACME_GROUP")
    outcome = answer("香港营业收入为什么增长", group, focus=Focus(("ACME_HK",), FY2025))
    assert cited_ids(outcome) == [14] and "（关于" not in outcome.text


def test_without_an_asked_entity_the_issuer_labels_nothing() -> None:
    outcome = answer("营业收入为什么增长", SEA_REPORT, HK_REPORT)
    assert set(cited_ids(outcome)) == {11, 12} and "（关于" not in outcome.text
