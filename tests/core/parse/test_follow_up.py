"""`follow_up_apply`: a follow-up inherits only when it brings no metric or topic of its own."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from core.glossary import GlossarySnapshot
from core.model.intent import ParsedIntent
from core.model.operation import OP_GROWTH, OP_RANK, OP_RATIO, Operation
from core.model.period import Period
from core.parse.follow_up import follow_up_apply
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports, RetrievedChunk
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore

REF = date(2026, 3, 15)
FY2024, FY2025 = Period("FY", "2024"), Period("FY", "2025")
Q1, Q2, Q4 = (Period("QUARTER", f"2025Q{n}") for n in (1, 2, 4))
GROWTH = Operation(OP_GROWTH, cue="同比增长")
SOURCE = "source"


def parse(question: str, glossary: GlossarySnapshot) -> ParsedIntent:
    return parse_intent(question, glossary, REF)


def previous_of(name: str, glossary: GlossarySnapshot) -> ParsedIntent:
    """The previous turns of the table, as the conversation stores them (answered slots filled)."""
    group_revenue = parse("集团2025年营收是多少", glossary)
    return {
        "group revenue": group_revenue,
        "group revenue growth": replace(parse("集团2025年营收同比增长多少", glossary), operation=GROWTH),
        "hong kong 2023 revenue": parse("香港2023年营收是多少", glossary),
        "hong kong online revenue 2024": parse("香港2024年线上营收是多少", glossary),
        "operating margin as a ratio": replace(
            group_revenue,
            metric="OPERATING_PROFIT",
            metrics=("OPERATING_PROFIT", "REVENUE"),
            operation=Operation(OP_RATIO, cue="之比"),
        ),
        "two regions, two years": parse("香港和东南亚2024年和2025年的营收", glossary),
        "revenue ranking": replace(
            parse("2025年营收", glossary), operation=Operation(OP_RANK, cue="最高", over="entities")
        ),
        "a narrative question": parse("香港最近的监管政策怎么样", glossary),
        "hong kong revenue": parse("香港2025年营收是多少", glossary),
        "hong kong revenue growth": replace(parse("香港2025年营收同比增长多少", glossary), operation=GROWTH),
        "group gross margin": parse("集团2025年毛利率是多少", glossary),
        "group q1 revenue": parse("集团2025年第一季度营收是多少", glossary),
    }[name]


# previous turn × follow-up → (metric(s), entity(ies), period(s), channel, operation kind, route)
INHERITS = [
    ("group revenue growth", "那香港呢？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", OP_GROWTH, "structured")),
    ("group revenue", "那香港呢？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("hong kong 2023 revenue", "去年呢", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("group revenue", "线上呢", (("REVENUE",), ("ACME_GROUP",), (FY2025,), "ONLINE", None, "structured")),
    ("group revenue", "what about Hong Kong?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("hong kong 2023 revenue", "and last year?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    # English and Cantonese follow-ups read as the Mandarin ones: their own words (how about, 咁,
    # 又点) are never a topic
    ("group revenue", "How about Hong Kong?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("group revenue", "And Hong Kong?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("group revenue", "and for Hong Kong?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    (
        "group revenue growth",
        "How about Hong Kong?",
        (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", OP_GROWTH, "structured"),
    ),
    (
        "group revenue growth",
        "And Hong Kong?",
        (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", OP_GROWTH, "structured"),
    ),
    ("group q1 revenue", "How about Q2?", (("REVENUE",), ("ACME_GROUP",), (Q2,), "TOTAL", None, "structured")),
    ("group q1 revenue", "What about Q2?", (("REVENUE",), ("ACME_GROUP",), (Q2,), "TOTAL", None, "structured")),
    ("group q1 revenue", "咁第四季呢？", (("REVENUE",), ("ACME_GROUP",), (Q4,), "TOTAL", None, "structured")),
    ("group q1 revenue", "咁香港呢？", (("REVENUE",), ("ACME_HK",), (Q1,), "TOTAL", None, "structured")),
    ("group q1 revenue", "香港又點呀？", (("REVENUE",), ("ACME_HK",), (Q1,), "TOTAL", None, "structured")),
    (
        "group revenue growth",
        "那净利润呢",
        (("NET_PROFIT",), ("ACME_GROUP",), (FY2025,), "TOTAL", OP_GROWTH, "structured"),
    ),
    ("group revenue", "那净利润呢", (("NET_PROFIT",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "structured")),
    ("group revenue", "那么2024年呢", (("REVENUE",), ("ACME_GROUP",), (FY2024,), "TOTAL", None, "structured")),
    ("group revenue", "Hong Kong?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    (
        "hong kong online revenue 2024",
        "那东南亚呢",
        (("REVENUE",), ("ACME_SEA",), (FY2024,), "ONLINE", None, "structured"),
    ),
    (
        "operating margin as a ratio",
        "那香港呢",
        (("OPERATING_PROFIT", "REVENUE"), ("ACME_HK",), (FY2025,), "TOTAL", OP_RATIO, "structured"),
    ),
    (  # a ratio of two metrics does not carry over to a third metric: its level is asked
        "operating margin as a ratio",
        "那净利润呢",
        (("NET_PROFIT",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "structured"),
    ),
    (
        "two regions, two years",
        "毛利率呢",
        (("GROSS_MARGIN",), ("ACME_HK", "ACME_SEA"), (FY2024, FY2025), "TOTAL", None, "structured"),
    ),
    ("revenue ranking", "那2024年呢", (("REVENUE",), (None,), (FY2024,), "TOTAL", OP_RANK, "structured")),
    # a pronoun for the previous subject with a metric of its own (它 / 其 / its)
    ("hong kong revenue", "那它的毛利率呢", (("GROSS_MARGIN",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    ("hong kong revenue", "其毛利率呢", (("GROSS_MARGIN",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    (
        "hong kong revenue",
        "what about its gross margin?",
        (("GROSS_MARGIN",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured"),
    ),
    # another metric for the same operation (按 X), another subject to compare (和 X 比)
    ("revenue ranking", "按营业利润呢", (("OPERATING_PROFIT",), (None,), (FY2025,), "TOTAL", OP_RANK, "structured")),
    (
        "hong kong revenue growth",
        "和东南亚比呢",
        (("REVENUE",), ("ACME_SEA",), (FY2025,), "TOTAL", OP_GROWTH, "structured"),
    ),
    # decimals alone: the previous question again, shown to that many places
    ("revenue ranking", "保留1位小数", (("REVENUE",), (None,), (FY2025,), "TOTAL", OP_RANK, "structured")),
    (
        "group revenue growth",
        "用两位小数",
        (("REVENUE",), ("ACME_GROUP",), (FY2025,), "TOTAL", OP_GROWTH, "structured"),
    ),
    ("hong kong revenue", "保留2位小数", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "structured")),
    # a bare "why" carries the previous slots for retrieval and no operation; it stays narrative,
    # unless it asks why the figure moved (a word of movement, or after a growth): then composite,
    # answered with the change and its parts first
    ("group revenue growth", "那为什么呢？", (("REVENUE",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "composite")),
    ("group revenue", "why?", (("REVENUE",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "narrative")),
    ("group revenue", "那香港为什么呢", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "narrative")),
    # a why with only a pronoun, an auxiliary and a word of movement asks about the previous figure
    ("hong kong revenue", "为什么？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "narrative")),
    ("hong kong revenue", "為什麼？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "narrative")),
    ("hong kong revenue", "Why did it fall?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "composite")),
    ("hong kong revenue", "Why did it go down?", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "composite")),
    ("hong kong revenue", "它为什么跌了？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "composite")),
    ("hong kong revenue", "點解跌咗？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "composite")),
    ("hong kong revenue", "为什么会这样？", (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", None, "narrative")),
    (
        "group gross margin",
        "Why did it fall?",
        (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "composite"),
    ),
    (
        "group gross margin",
        "why did it drop?",
        (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "composite"),
    ),
    ("group gross margin", "Why is that?", (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "narrative")),
    (
        "group gross margin",
        "What drove it?",
        (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "narrative"),
    ),
    (
        "group gross margin",
        "为什么会下降？",
        (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "composite"),
    ),
    (
        "group gross margin",
        "其下降原因是什么？",
        (("GROSS_MARGIN",), ("ACME_GROUP",), (FY2025,), "TOTAL", None, "composite"),
    ),
]

# previous turn × follow-up that must come back exactly as parsed, with no note
KEEPS_ITS_OWN = [
    ("group revenue", "最近的监管政策怎么样"),  # a narrative topic of its own
    ("group revenue", "财年是怎么定义的"),  # an FAQ / definition question
    ("group revenue growth", "最近的监管政策怎么样"),
    ("group revenue growth", "财年是怎么定义的"),
    ("group revenue", "哪些文件提到了香港呢"),  # a document question
    ("group revenue", "那香港的监管呢"),  # a slot plus a topic of its own
    ("group revenue", "what about the regulation in Hong Kong?"),
    ("group revenue", "How about the regulation in Hong Kong?"),
    ("group revenue", "How is Hong Kong doing?"),
    ("group q1 revenue", "咁監管呢？"),
    ("group revenue", "那竞安呢"),  # a competitor: the gate's, never a continuation
    ("group revenue", "谢谢"),
    ("group revenue", "呢？"),  # says nothing that could be continued
    ("group revenue", "营收是多少"),  # its own metric and no follow-up marker: its own assumptions
    ("group revenue", "中国内地FY2025的营收是多少"),
    ("group revenue growth", "中国内地FY2025的营收是多少"),  # a new level question keeps no operation
    ("a narrative question", "那东南亚呢"),  # nothing structured to continue
    # a why that names its own topic keeps it
    ("hong kong revenue", "Why did gross margin fall?"),
    ("hong kong revenue", "Why did Southeast Asia revenue rise?"),
    ("group gross margin", "为什么东南亚亏损？"),
    ("group gross margin", "Why did the regulation change?"),
    ("group gross margin", "为什么会员数下降了？"),
]


def _slots(intent: ParsedIntent) -> tuple[object, ...]:
    return (
        intent.metrics or (intent.metric,),
        intent.entities or (intent.entity,),
        intent.periods or (intent.period,),
        intent.channel,
        intent.operation.kind if intent.operation else None,
        intent.route,
    )


@pytest.mark.parametrize(("previous", "question", "expected"), INHERITS)
def test_a_follow_up_inherits_what_it_leaves_out(glossary, previous: str, question: str, expected) -> None:
    applied, note = follow_up_apply(parse(question, glossary), previous_of(previous, glossary), glossary)
    assert _slots(applied) == expected
    assert note is not None and applied.raw_question == question


@pytest.mark.parametrize(("previous", "question"), KEEPS_ITS_OWN)
def test_a_question_with_a_topic_of_its_own_is_not_a_follow_up(glossary, previous: str, question: str) -> None:
    own = parse(question, glossary)
    applied, note = follow_up_apply(own, previous_of(previous, glossary), glossary)
    assert (applied, note) == (own, None)


@pytest.mark.parametrize("question", ["最近的监管政策怎么样", "那为什么呢？", "财年是怎么定义的"])
def test_the_three_hijack_questions_never_become_the_previous_number(glossary, question: str) -> None:
    applied, _ = follow_up_apply(parse(question, glossary), previous_of("group revenue", glossary), glossary)
    assert applied.route != "structured"


@pytest.mark.parametrize(
    ("previous", "question", "decimals"),
    [("revenue ranking", "保留1位小数", 1), ("group revenue growth", "用两位小数", 2)],
)
def test_decimals_alone_apply_to_the_inherited_operation(glossary, previous: str, question: str, decimals: int) -> None:
    applied, note = follow_up_apply(parse(question, glossary), previous_of(previous, glossary), glossary)
    assert applied.operation is not None and applied.operation.decimals == decimals
    assert note is not None


@pytest.mark.parametrize(
    "question", ["保留整数", "保留小数点后两位", "to 1 decimal place", "round to the nearest integer"]
)
def test_every_way_of_asking_for_decimals_continues(glossary, question: str) -> None:
    own = replace(parse(question, glossary), decimals=1, operation=None)  # as the parser should read it
    applied, note = follow_up_apply(own, previous_of("group revenue growth", glossary), glossary)
    assert note is not None and applied.operation is not None and applied.operation.decimals == 1


def test_a_list_of_channels_continues_the_previous_question_by_channel(glossary) -> None:
    channels = ("ONLINE", "STORE", "DISTRIBUTOR")
    own = replace(parse("分渠道看呢", glossary), channel="ONLINE", channels=channels, channel_given=True)
    applied, note = follow_up_apply(own, previous_of("hong kong revenue growth", glossary), glossary)
    assert _slots(applied)[:2] == (("REVENUE",), ("ACME_HK",)) and applied.channels == channels
    assert applied.operation is not None and applied.operation.kind == OP_GROWTH and note is not None
    unlisted = parse("分渠道看呢", glossary)  # no list read: the words are a topic of their own
    assert follow_up_apply(unlisted, previous_of("hong kong revenue growth", glossary), glossary) == (unlisted, None)


def test_decimals_with_a_topic_of_their_own_are_not_a_follow_up(glossary) -> None:
    own = parse("监管政策保留1位小数", glossary)
    applied, note = follow_up_apply(own, previous_of("group revenue growth", glossary), glossary)
    assert (applied, note) == (own, None)


def test_an_unknown_metric_term_is_a_topic_of_its_own(glossary) -> None:
    own = replace(parse("那净利率呢", glossary), metric=None, metrics=(), route="structured", unknown_metric="净利率")
    applied, note = follow_up_apply(own, previous_of("group revenue", glossary), glossary)
    assert (applied, note) == (own, None)


def test_unrecognized_terms_beyond_fillers_are_a_topic_of_their_own(glossary) -> None:
    own = replace(parse("那香港呢", glossary), unrecognized_terms=("平台gmv",))
    applied, note = follow_up_apply(own, previous_of("group revenue", glossary), glossary)
    assert (applied, note) == (own, None)


def test_an_operation_of_its_own_replaces_the_inherited_one(glossary) -> None:
    own = replace(parse("那香港同比增长呢", glossary), operation=Operation(OP_GROWTH, cue="同比增长"))
    applied, note = follow_up_apply(own, previous_of("group revenue", glossary), glossary)
    assert _slots(applied) == (("REVENUE",), ("ACME_HK",), (FY2025,), "TOTAL", OP_GROWTH, "structured")
    assert note == "【沿用上一问】指标 营业收入，期间 FY2025"


def test_the_note_says_what_was_inherited_in_the_analysts_words(glossary) -> None:
    _, note = follow_up_apply(parse("那香港呢？", glossary), previous_of("group revenue growth", glossary), glossary)
    assert note == "【沿用上一问】指标 营业收入，期间 FY2025，运算 同比增长"
    _, note = follow_up_apply(parse("那净利润呢", glossary), previous_of("group revenue", glossary), glossary)
    assert note == "【沿用上一问】实体 ACME集团，期间 FY2025"
    applied, note = follow_up_apply(
        parse("what about Hong Kong?", glossary), previous_of("group revenue", glossary), glossary
    )
    assert note is not None and note.startswith("[From the previous question] metric ")
    assert note.endswith("; period FY2025") and "营业收入" not in note
    assert applied.routing.reason.startswith("from the previous question: metric ")


def test_the_route_reason_of_an_inherited_metric_names_it(glossary) -> None:
    applied, _ = follow_up_apply(parse("那香港呢？", glossary), previous_of("group revenue", glossary), glossary)
    assert applied.routing.reason == "沿用上一问：指标 营业收入，期间 FY2025"
    assert applied.unrecognized_terms == ()


# -- through `answer_question` ------------------------------------------------------------------
class RecordingRetriever:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.queries.append(query)
        text = "香港市场客流下降，营业收入同比减少。" if "营业收入" in query else "与营收无关的段落。"
        return [RetrievedChunk(1, "md_and_a.docx", "page=2", text, 1.0)]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list:
        return []


def _answer(question: str, glossary, store, previous: ParsedIntent | None, **kwargs):
    return answer_question(
        question,
        Ports(glossary=glossary, store=store, provider=MockProvider(), retriever=kwargs.pop("retriever", None)),
        cleared=False,
        reference_date=REF,
        previous=previous,
        **kwargs,
    )


@pytest.mark.parametrize(
    "question",
    ["那香港呢？", "那为什么呢？", "2024年呢", "同比呢", "What about Hong Kong?", "那麼香港呢？", "咁香港呢？"],
)
def test_a_follow_up_with_nothing_before_it_is_asked_back(glossary, store, question: str) -> None:
    """A question that only continues an earlier one, asked with no earlier one (a fresh chat, a
    lost conversation id), says so and asks for the whole question: it is not searched for in the
    documents as if it meant something alone, and nothing is assumed."""
    result = _answer(question, glossary, store, None)
    assert result.answer_kind == "clarification" and result.facts == () and result.sources == ()
    assert not any(ch.isdigit() for ch in result.answer.replace("2024", ""))
    assert store.calls == 0


@pytest.mark.parametrize("question", ["香港2025年营收是多少", "营收是多少", "竞安呢？", "你好", "为什么香港营收下降"])
def test_a_question_of_its_own_is_not_asked_back_for_context(glossary, store, question: str) -> None:
    result = _answer(question, glossary, store, None)
    assert "上一问" not in result.answer and "earlier question" not in result.answer


def test_the_answer_leads_with_the_note(glossary, store: InMemoryFactStore) -> None:
    result = _answer("那香港呢？", glossary, store, previous_of("group revenue", glossary))
    assert result.follow_up_note == "【沿用上一问】指标 营业收入，期间 FY2025"
    assert result.answer.startswith("【沿用上一问】指标 营业收入，期间 FY2025\n")
    assert [(f.entity, str(f.value)) for f in result.facts] == [("ACME_HK", "24015.8")]


def test_decimals_alone_re_answer_the_previous_growth(glossary, store: InMemoryFactStore) -> None:
    result = _answer("保留1位小数", glossary, store, previous_of("group revenue growth", glossary))
    assert result.route == "structured" and result.answer_kind == "answer"
    assert [c.display for c in result.computed] == ["8.5%", "10,110.4"]
    assert "同比增长 8.5%" in result.answer


def test_a_pronoun_with_its_own_metric_answers_for_the_previous_entity(glossary, store: InMemoryFactStore) -> None:
    result = _answer("那它的毛利率呢", glossary, store, previous_of("hong kong revenue", glossary))
    assert [(f.metric, f.entity, str(f.value)) for f in result.facts] == [("GROSS_MARGIN", "ACME_HK", "33.1")]
    assert "未指定实体" not in result.answer


def test_a_scope_is_not_a_follow_up(glossary, store: InMemoryFactStore) -> None:
    result = _answer(
        "营收是多少", glossary, store, previous_of("hong kong 2023 revenue", glossary), scope={"entity": "ACME_SEA"}
    )
    assert result.follow_up_note is None and result.facts[0].entity == "ACME_SEA"


def test_why_after_a_number_searches_the_documents_for_that_number(glossary, store: InMemoryFactStore) -> None:
    retriever = RecordingRetriever()
    result = _answer("那为什么呢？", glossary, store, previous_of("group revenue", glossary), retriever=retriever)
    assert result.route == "narrative" and result.facts == ()
    assert "128,450.6" not in result.answer and "客流下降" in result.answer
    assert retriever.queries[0] == "ACME集团 FY2025 营业收入 那为什么呢？"
    assert result.question == "那为什么呢？"
    assert result.answer.startswith("【沿用上一问】指标 营业收入，实体 ACME集团，期间 FY2025\n\n香港")


def test_a_question_of_its_own_searches_for_itself(glossary, store: InMemoryFactStore) -> None:
    retriever = RecordingRetriever()
    result = _answer(
        "最近的监管政策怎么样", glossary, store, previous_of("group revenue", glossary), retriever=retriever
    )
    assert retriever.queries[0] == "最近的监管政策怎么样" and result.follow_up_note is None
    assert "沿用上一问" not in result.answer and result.route == "narrative"


class PassageRetriever:
    """Returns its passages, in this order, for every query (retrieval ranks nothing here)."""

    def __init__(self, *chunks: RetrievedChunk) -> None:
        self.chunks = list(chunks)
        self.queries: list[str] = []

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.queries.append(query)
        return self.chunks[:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list:
        return []


SEA_PASSAGE = RetrievedChunk(1, "mdna.pdf", "page=1,para=3", "东南亚营业收入同比增长59.7%，门店网络仍在扩张。", 1.0, 1)
HK_PASSAGE = RetrievedChunk(
    2, "mdna.pdf", "page=1,para=2", "香港营业收入同比下降6.7%。主要原因：访港旅客消费结构变化。", 1.0, 2
)
MARGIN_PASSAGE = RetrievedChunk(3, "mdna.pdf", "page=1,para=5", "集团毛利率由上年的31.9%下降至29.7%。", 1.0, 3)


@pytest.mark.parametrize("question", ["为什么？", "為什麼？"])
def test_why_after_a_figure_quotes_the_passages_about_that_figures_entity(
    glossary, store: InMemoryFactStore, question: str
) -> None:
    retriever = PassageRetriever(SEA_PASSAGE, HK_PASSAGE)  # another entity's passage ranks first
    result = _answer(question, glossary, store, previous_of("hong kong revenue", glossary), retriever=retriever)
    assert result.route == "narrative" and result.facts == ()
    assert (result.intent.metric, result.intent.entity, result.intent.period) == ("REVENUE", "ACME_HK", FY2025)
    assert "香港营业收入同比下降6.7%" in result.answer and "东南亚" not in result.answer
    assert [s.document_id for s in result.sources] == [2]
    assert "24,015.8" not in result.answer


def test_why_did_it_fall_after_a_figure_leads_with_its_change_and_parts_then_its_passages(
    glossary, store: InMemoryFactStore
) -> None:
    retriever = PassageRetriever(SEA_PASSAGE, HK_PASSAGE)
    result = _answer(
        "Why did it fall?", glossary, store, previous_of("hong kong revenue", glossary), retriever=retriever
    )
    assert result.route == "composite" and result.answer_kind == "answer"
    assert (result.intent.metric, result.intent.entity, result.intent.period) == ("REVENUE", "ACME_HK", FY2025)
    assert "fell 6.66% YoY, down 1,714.3 CNY m" in result.answer and "-2,604.7 CNY m" in result.answer
    assert "香港营业收入同比下降6.7%" in result.answer and "东南亚" not in result.answer


def test_why_did_it_fall_after_a_margin_explains_the_margin_in_english(glossary, store: InMemoryFactStore) -> None:
    retriever = PassageRetriever(SEA_PASSAGE, MARGIN_PASSAGE)
    result = _answer(
        "Why did it fall?", glossary, store, previous_of("group gross margin", glossary), retriever=retriever
    )
    assert result.route == "composite" and result.answer_kind == "answer"
    assert result.follow_up_note == "[From the previous question] metric gross margin; entity ACME Group; period FY2025"
    assert "rate and mix effects" in result.answer
    assert "集团毛利率由上年的31.9%下降至29.7%" in result.answer and "东南亚" not in result.answer
    # the documents' wording, then the part that moved most
    assert retriever.queries[0].startswith("ACME集团 FY2025 毛利率 Why did it fall?")


def test_a_follow_up_to_a_question_in_parts_asks_each_part_again(glossary, store: InMemoryFactStore) -> None:
    previous = parse("香港2025年毛利率是多少？营收同比增速呢？", glossary)
    result = _answer("那东南亚呢？", glossary, store, previous)
    parts = [(p.metrics, p.operation.kind if p.operation else None, p.entities) for p in result.intent.parts]
    assert parts == [(("GROSS_MARGIN",), None, ("ACME_SEA",)), (("REVENUE",), "growth", ("ACME_SEA",))]
    assert "ACME东南亚 FY2025 毛利率：" in result.answer and "毛利率同比" not in result.answer
    assert "ACME东南亚 FY2025 营业收入同比增长 59.66%" in result.answer


# -- a series keeps its range; `前三年` moves it back --------------------------------------------------
def _fy(*years: int) -> tuple[Period, ...]:
    return tuple(Period("FY", str(year)) for year in years)


def _quarters(*labels: str) -> tuple[Period, ...]:
    return tuple(Period("QUARTER", label) for label in labels)


SERIES = "集团2022到2025年每年的营收"
QUARTERLY = "集团2025年每个季度营收环比增长多少"


@pytest.mark.parametrize(
    ("previous", "question", "metrics", "entities", "periods"),
    [
        (SERIES, "那香港呢", ("REVENUE",), ("ACME_HK",), _fy(2022, 2023, 2024, 2025)),
        (SERIES, "and Hong Kong?", ("REVENUE",), ("ACME_HK",), _fy(2022, 2023, 2024, 2025)),
        (SERIES, "毛利率呢", ("GROSS_MARGIN",), ("ACME_GROUP",), _fy(2022, 2023, 2024, 2025)),
        # the three years just before the range's first year
        (SERIES, "那前三年呢", ("REVENUE",), ("ACME_GROUP",), _fy(2019, 2020, 2021)),
        (SERIES, "那之前三年呢", ("REVENUE",), ("ACME_GROUP",), _fy(2019, 2020, 2021)),
        (SERIES, "再往前两年呢", ("REVENUE",), ("ACME_GROUP",), _fy(2020, 2021)),
        (SERIES, "what about the three years before?", ("REVENUE",), ("ACME_GROUP",), _fy(2019, 2020, 2021)),
        (SERIES, "and the 3 years before that?", ("REVENUE",), ("ACME_GROUP",), _fy(2019, 2020, 2021)),
        (SERIES, "那前三年的毛利率呢", ("GROSS_MARGIN",), ("ACME_GROUP",), _fy(2019, 2020, 2021)),
        (SERIES, "那香港之前三年呢", ("REVENUE",), ("ACME_HK",), _fy(2019, 2020, 2021)),
        # a quarterly range keeps its quarters; quarters asked for are quarters
        (QUARTERLY, "那前一年呢", ("REVENUE",), ("ACME_GROUP",), _quarters("2024Q1", "2024Q2", "2024Q3", "2024Q4")),
        (QUARTERLY, "那之前两个季度呢", ("REVENUE",), ("ACME_GROUP",), _quarters("2024Q3", "2024Q4")),
        (SERIES, "那之前两个季度呢", ("REVENUE",), ("ACME_GROUP",), _quarters("2021Q3", "2021Q4")),
        (
            QUARTERLY,
            "the preceding four quarters?",
            ("REVENUE",),
            ("ACME_GROUP",),
            _quarters(*(f"2024Q{q}" for q in range(1, 5))),
        ),
    ],
)
def test_a_series_follow_up_keeps_or_moves_the_range(
    glossary,
    previous: str,
    question: str,
    metrics: tuple[str, ...],
    entities: tuple[str, ...],
    periods: tuple[Period, ...],
) -> None:
    applied, note = follow_up_apply(parse(question, glossary), parse(previous, glossary), glossary)
    assert note is not None
    assert (applied.metrics, applied.entities or (applied.entity,), applied.periods) == (metrics, entities, periods)
    assert applied.route == "structured"
    assert applied.operation == parse(previous, glossary).operation  # growth each step stays growth each step


def test_the_note_says_which_stretch_the_moved_range_is(glossary) -> None:
    _, note = follow_up_apply(parse("那前三年呢", glossary), parse(SERIES, glossary), glossary)
    assert note == "【沿用上一问】指标 营业收入，实体 ACME集团，期间 FY2019、FY2020、FY2021（FY2022 之前 3 年）"
    _, english = follow_up_apply(
        parse("what about the three years before?", glossary), parse(SERIES, glossary), glossary
    )
    assert english is not None and english.endswith("period FY2019, FY2020, FY2021 (the 3 years before FY2022)")


def test_the_first_three_quarters_are_still_the_first_three_quarters(glossary) -> None:
    """`前三季度` is Q1–Q3 of a year (a derived stretch), never three quarters before the range."""
    own = parse("那前三季度呢", glossary)
    applied, _ = follow_up_apply(own, parse(SERIES, glossary), glossary)
    assert not any(p.period.startswith("2021Q") for p in applied.periods)


def test_a_stretch_before_with_no_previous_question_is_asked_back(glossary, store: InMemoryFactStore) -> None:
    result = answer_question(
        "集团前三年营收",
        Ports(glossary=glossary, store=store, provider=MockProvider()),
        cleared=True,
        reference_date=REF,
    )
    assert result.answer_kind == "clarification" and result.facts == ()


def test_the_moved_range_is_answered_for_every_period_with_the_missing_named(
    glossary, store: InMemoryFactStore
) -> None:
    result = _answer("那前三年呢", glossary, store, parse("集团近三年营收", glossary))
    assert result.clarification.mode == "none"
    assert [p.label for p in result.intent.periods] == ["FY2020", "FY2021", "FY2022"]
    assert [(f.period.label, str(f.value)) for f in result.facts] == [("FY2022", "98215.4")]
    assert result.answer.count("查不到") == 2 and "FY2020" in result.answer and "FY2021" in result.answer
