"""Conversations stored per user: follow-ups over the API and in the UI, on both databases."""

from __future__ import annotations

import json
from dataclasses import replace
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from agent.conversation import (
    MAX_TURNS,
    ConversationError,
    answered_intent,
    intent_as_json,
    intent_from_json,
)
from agent.models import Conversation, ConversationTurn
from agent.selectors import previous_intent, previous_intent_along
from agent.services import question_ask
from core.model.operation import OP_RANK, Operation
from core.model.period import Period
from tests.conftest import REFERENCE

pytestmark = pytest.mark.django_db

GROUP_REVENUE = "集团2025年营收是多少"
HIJACKERS = ["最近的监管政策怎么样", "那为什么呢？", "财年是怎么定义的"]


@pytest.fixture
def web(demo) -> Client:
    client = Client()
    client.force_login(demo["users"]["analyst"])
    return client


def _ask(client: APIClient, question: str, conversation_id: object = None, path: str = "/v1/ask") -> dict:
    body: dict[str, object] = {"question": question, "reference_date": "2026-03-15"}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    response = client.post(path, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


# -- the hijack: a question with a topic of its own is never the previous number again ---------
@pytest.mark.parametrize("question", HIJACKERS)
def test_the_ui_does_not_turn_a_question_with_its_own_topic_into_the_previous_number(
    web: Client, question: str
) -> None:
    web.post("/ask", {"question": GROUP_REVENUE})
    body = web.post("/ask", {"question": question}, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-route="structured"' not in body and '<table class="facts">' not in body
    if question != "那为什么呢？":  # a bare "why" asks about the previous figure, and says so
        assert "128,450.6" not in body and "【沿用上一问】" not in body


@pytest.mark.parametrize("question", HIJACKERS)
def test_the_api_does_not_turn_a_question_with_its_own_topic_into_the_previous_number(
    analyst: APIClient, question: str
) -> None:
    _ask(analyst, GROUP_REVENUE, "c-hijack")
    body = _ask(analyst, question, "c-hijack")
    assert body["route"] != "structured" and "128,450.6" not in body["answer"]
    assert not body["facts"]


# -- follow-ups over the API --------------------------------------------------------------------
def test_two_turns_with_one_conversation_id_carry_the_follow_up(analyst: APIClient) -> None:
    first = _ask(analyst, GROUP_REVENUE, "c-1")
    assert first["conversation_id"] == "c-1" and first["facts"][0]["entity"] == "ACME_GROUP"
    second = _ask(analyst, "那香港呢？", "c-1")
    assert second["conversation_id"] == "c-1" and second["route"] == "structured"
    assert [(f["metric"], f["entity"], f["period"], f["value"]) for f in second["facts"]] == [
        ("REVENUE", "ACME_HK", "FY2025", "24015.8")
    ]
    assert "【沿用上一问】指标 营业收入，期间 FY2025" in second["answer"]
    third = _ask(analyst, "2024年呢？", "c-1")
    assert [(f["entity"], f["period"], f["value"]) for f in third["facts"]] == [("ACME_HK", "FY2024", "25730.1")]


def _series(body: dict) -> list[tuple[str, str, str, str]]:
    return [(f["metric"], f["entity"], f["period"], f["value"]) for f in body["facts"]]


def test_follow_ups_after_a_series_keep_its_range_or_move_it_back(analyst: APIClient) -> None:
    """`那香港呢` answers the same range for Hong Kong, `毛利率呢` the same range for
    the new metric, and `那前三年呢` the three years before the range's first year."""
    first = _ask(analyst, "集团2022到2025年每年的营收", "c-series")
    assert [f[2] for f in _series(first)] == ["FY2022", "FY2023", "FY2024", "FY2025"]
    hong_kong = _ask(analyst, "那香港呢", "c-series")
    assert _series(hong_kong) == [
        ("REVENUE", "ACME_HK", "FY2022", "25575.2"),
        ("REVENUE", "ACME_HK", "FY2023", "24611.4"),
        ("REVENUE", "ACME_HK", "FY2024", "25730.1"),
        ("REVENUE", "ACME_HK", "FY2025", "24015.8"),
    ]
    margin = _ask(analyst, "毛利率呢", "c-series")
    assert [(f[0], f[1], f[2]) for f in _series(margin)] == [
        ("GROSS_MARGIN", "ACME_HK", "FY2024"),
        ("GROSS_MARGIN", "ACME_HK", "FY2025"),
    ]
    assert margin["answer"].count("查不到") == 2  # FY2022 and FY2023 are named missing, never skipped
    earlier = _ask(analyst, "那营收前三年呢", "c-series")
    assert earlier["intent"]["periods"] == ["FY2019", "FY2020", "FY2021"]
    assert earlier["intent"]["metric"] == "REVENUE" and earlier["intent"]["entity"] == "ACME_HK"
    assert "（FY2022 之前 3 年）" in earlier["answer"] and earlier["facts"] == []


def test_an_english_series_follow_up_moves_the_range_back(analyst: APIClient) -> None:
    _ask(analyst, "Group revenue for each of the last three years", "c-series-en")
    hong_kong = _ask(analyst, "and Hong Kong?", "c-series-en")
    assert [(f[1], f[2]) for f in _series(hong_kong)] == [("ACME_HK", f"FY{y}") for y in (2023, 2024, 2025)]
    before = _ask(analyst, "what about the three years before?", "c-series-en")
    assert before["intent"]["periods"] == ["FY2020", "FY2021", "FY2022"]
    assert _series(before) == [("REVENUE", "ACME_HK", "FY2022", "25575.2")]
    assert "(the 3 years before FY2023)" in before["answer"]


def test_a_follow_up_to_a_question_in_parts_asks_each_part_again(analyst: APIClient) -> None:
    _ask(analyst, "香港2025年毛利率是多少？营收同比增速呢？", "c-parts")
    again = _ask(analyst, "那东南亚呢？", "c-parts")
    assert "ACME东南亚 FY2025 毛利率：" in again["answer"] and "毛利率同比" not in again["answer"]
    assert "ACME东南亚 FY2025 营业收入同比增长 59.66%" in again["answer"]


@pytest.mark.parametrize("why", ["为什么？", "為什麼？"])
def test_why_after_a_hong_kong_figure_quotes_the_hong_kong_passages(analyst: APIClient, why: str) -> None:
    _ask(analyst, "香港2025年营收是多少", "c-why-hk")
    body = _ask(analyst, why, "c-why-hk")
    intent = body["intent"]
    assert body["route"] == "narrative" and body["answer_kind"] == "answer" and not body["facts"]
    assert (intent["metric"], intent["entity"], intent["period"]) == ("REVENUE", "ACME_HK", "FY2025")
    quoted = body["answer"].split("\n\n", 1)[1].splitlines()
    assert "香港" in quoted[0] and "东南亚" not in body["answer"]
    assert "香港营业收入同比下降6.7%" in body["answer"] and "24,015.8" not in body["answer"]
    assert all(s["kind"] == "chunk" for s in body["sources"])


def test_why_did_it_fall_after_a_hong_kong_figure_gives_its_parts_then_the_hong_kong_passages(
    analyst: APIClient,
) -> None:
    _ask(analyst, "香港2025年营收是多少", "c-why-hk-fell")
    body = _ask(analyst, "Why did it fall?", "c-why-hk-fell")
    assert body["route"] == "composite" and body["answer_kind"] == "answer"
    assert "-2,604.7 CNY m, 151.9% of the change" in body["answer"]
    assert "香港营业收入同比下降6.7%" in body["answer"] and "东南亚" not in body["answer"]
    parts = [c for c in body["computed"] if c.get("why", {}).get("role") == "part"]
    assert {p["why"]["part"]["channel"] for p in parts} == {"STORE", "ONLINE"}


@pytest.mark.parametrize(("why", "route"), [("Why did it fall?", "composite"), ("为什么？", "narrative")])
def test_why_after_the_gross_margin_explains_the_gross_margin(analyst: APIClient, why: str, route: str) -> None:
    _ask(analyst, "集团2025年毛利率是多少", "c-why-margin")
    body = _ask(analyst, why, "c-why-margin")
    intent = body["intent"]
    assert body["route"] == route and body["answer_kind"] == "answer"
    # a why of its fall leads with the change and its rate and mix effects; a bare why quotes only
    assert ("率效应" in body["answer"] or "rate effect" in body["answer"]) == (route == "composite")
    assert bool(body["facts"]) == (route == "composite")
    assert (intent["metric"], intent["entity"], intent["period"]) == ("GROSS_MARGIN", "ACME_GROUP", "FY2025")
    assert "集团毛利率由上年的31.9%下降至29.7%" in body["answer"]
    assert "ACME_FY2025_管理层讨论与分析.pdf" in {s["doc"] for s in body["sources"]}


@pytest.mark.parametrize("why", ["为什么会这样？", "Why is that?"])
def test_why_after_a_restricted_figure_quotes_restricted_passages_only_to_the_cleared(
    analyst: APIClient, cleared: APIClient, why: str
) -> None:
    restricted = "东南亚扩张计划_内部.docx"
    answers = {}
    for name, client in (("analyst", analyst), ("cleared", cleared)):
        _ask(client, "东南亚2025年净利润是多少", "c-why-sea")
        answers[name] = _ask(client, why, "c-why-sea")
        assert answers[name]["intent"]["entity"] == "ACME_SEA", answers[name]["answer"]
    assert restricted in {s["doc"] for s in answers["cleared"]["sources"]}
    uncleared = json.dumps(answers["analyst"], ensure_ascii=False)
    assert restricted not in uncleared and "14.03" not in uncleared and "蓝鲸" not in uncleared


def test_an_faq_turn_in_between_does_not_break_the_follow_up(analyst: APIClient) -> None:
    _ask(analyst, GROUP_REVENUE, "c-faq")
    faq = _ask(analyst, "财年是怎么定义的", "c-faq")
    assert faq["route"] == "faq"
    body = _ask(analyst, "那香港呢？", "c-faq")
    assert body["route"] == "structured"
    assert [(f["metric"], f["entity"], f["value"]) for f in body["facts"]] == [("REVENUE", "ACME_HK", "24015.8")]


def test_a_narrative_turn_in_between_is_the_context_of_the_next_question(analyst: APIClient) -> None:
    _ask(analyst, GROUP_REVENUE, "c-narrative")
    _ask(analyst, "香港最近的监管政策怎么样", "c-narrative")
    body = _ask(analyst, "那东南亚呢", "c-narrative")
    assert body["route"] != "structured" and not body["facts"]


def test_decimals_alone_re_answer_the_previous_growth_question(analyst: APIClient) -> None:
    _ask(analyst, "集团2025年营收同比增长多少", "c-decimals")
    body = _ask(analyst, "保留1位小数", "c-decimals")
    assert body["route"] == "structured" and [c["display"] for c in body["computed"]] == ["8.5%", "10,110.4"]


def test_a_follow_up_without_a_conversation_id_inherits_nothing(analyst: APIClient) -> None:
    _ask(analyst, GROUP_REVENUE, "c-2")
    body = _ask(analyst, "那香港呢？")
    assert body["conversation_id"] is None and body["route"] != "structured" and not body["facts"]


def test_another_user_cannot_continue_a_conversation(analyst: APIClient, cleared: APIClient) -> None:
    _ask(analyst, GROUP_REVENUE, "shared-name")
    body = _ask(cleared, "那香港呢？", "shared-name")
    assert body["conversation_id"] == "shared-name" and not body["facts"] and body["route"] != "structured"
    mine = _ask(analyst, "那香港呢？", "shared-name")
    assert mine["facts"][0]["entity"] == "ACME_HK"


@pytest.mark.parametrize("bad", ["x" * 65, 12, ["c-1"], {"id": "c-1"}, True])
def test_a_bad_conversation_id_is_a_400_in_the_error_envelope(analyst: APIClient, bad: object) -> None:
    response = analyst.post("/v1/ask", {"question": GROUP_REVENUE, "conversation_id": bad}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] and "conversation_id" in error["message"] and error["request_id"]


def test_the_stream_endpoint_carries_the_conversation(analyst: APIClient) -> None:
    _ask(analyst, GROUP_REVENUE, "c-stream", path="/v1/ask")
    response = analyst.post("/v1/ask/stream", {"question": "那香港呢？", "conversation_id": "c-stream"}, format="json")
    text = b"".join(response.streaming_content).decode()
    done = json.loads(text.rsplit("event: done\ndata: ", 1)[1])
    assert done["conversation_id"] == "c-stream" and done["facts"][0]["entity"] == "ACME_HK"


def test_the_ask_command_continues_a_conversation_of_its_user(demo) -> None:
    call_command("ask", GROUP_REVENUE, "--user", "analyst", "--conversation", "cli-1", stdout=StringIO())
    out = StringIO()
    call_command("ask", "那香港呢？", "--json", "--user", "analyst", "--conversation", "cli-1", stdout=out)
    body = json.loads(out.getvalue())
    assert body["conversation_id"] == "cli-1" and body["facts"][0]["entity"] == "ACME_HK"
    with pytest.raises(CommandError, match="--user"):
        call_command("ask", "那香港呢？", "--conversation", "cli-1", stdout=StringIO())
    with pytest.raises(CommandError, match="at most 64"):
        call_command("ask", "那香港呢？", "--user", "analyst", "--conversation", "x" * 65, stdout=StringIO())


# -- the store ----------------------------------------------------------------------------------
def test_a_conversation_keeps_its_last_turns_and_continues_from_the_last_answered_one(demo) -> None:
    user = demo["users"]["analyst"]
    for year in range(2000, 2000 + MAX_TURNS + 2):
        question_ask(f"集团{year}年营收是多少", user=user, reference_date=REFERENCE, conversation_id="long")
    conversation = Conversation.objects.get(user=user, external_id="long")
    positions = list(conversation.turns.values_list("position", flat=True))
    assert positions == list(range(2, MAX_TURNS + 2)) and conversation.turns_total == MAX_TURNS + 2
    question_ask(
        "竞安2025年营收是多少", user=user, reference_date=REFERENCE, conversation_id="long"
    )  # refused by the gate
    previous = previous_intent(conversation)
    assert previous is not None and previous.period == Period("FY", str(2000 + MAX_TURNS + 1))
    assert ConversationTurn.objects.filter(conversation=conversation).latest("position").intent is None


def test_the_stored_intent_reads_back_with_its_operation_and_assumptions(demo) -> None:
    result = question_ask("营收是多少", user=demo["users"]["analyst"], reference_date=REFERENCE).result
    answered = answered_intent(result)
    assert answered is not None and (answered.entity, answered.period) == ("ACME_GROUP", Period("FY", "2025"))
    ranked = replace(answered, operation=Operation(OP_RANK, cue="最高", top=3, over="entities"), channels=("ONLINE",))
    back = intent_from_json(json.loads(json.dumps(intent_as_json(ranked))))
    assert back is not None and back.operation == ranked.operation and back.channels == ("ONLINE",)
    assert (back.metric, back.entity, back.period) == ("REVENUE", "ACME_GROUP", Period("FY", "2025"))
    assert intent_from_json({"period": "not a period"}) is None
    parted = answered_intent(
        question_ask("香港2025年毛利率是多少？营收同比增速呢？", user=demo["users"]["analyst"]).result
    )
    assert parted is not None and len(parted.parts) == 2
    assert intent_from_json(json.loads(json.dumps(intent_as_json(parted)))).parts == parted.parts


def test_the_stored_context_of_a_ranking_does_not_name_the_assumed_home_entity(demo) -> None:
    result = question_ask("营收是多少", user=demo["users"]["analyst"], reference_date=REFERENCE).result
    ranking = replace(result, intent=replace(result.intent, operation=Operation(OP_RANK, over="entities")))
    answered = answered_intent(ranking)
    assert answered is not None and answered.entity is None and answered.period == Period("FY", "2025")


# -- the UI uses the same store -------------------------------------------------------------------
def test_the_page_keeps_only_the_conversation_id_in_the_session(web: Client) -> None:
    web.post("/ask", {"question": GROUP_REVENUE})
    external_id = web.session["ragspine_conversation"]
    assert {k for k, _ in web.session.items() if k.startswith("ragspine_")} == {"ragspine_conversation"}
    conversation = Conversation.objects.get(external_id=external_id)
    assert [t.question for t in conversation.turns.all()] == [GROUP_REVENUE]
    assert "128,450.6" in web.get("/").content.decode()


def test_a_new_conversation_on_the_page_inherits_nothing(web: Client) -> None:
    web.post("/ask", {"question": GROUP_REVENUE})
    web.post("/new")
    page = web.get("/").content.decode()
    assert 'id="turn-0"' not in page and GROUP_REVENUE in page.split("<aside", 1)[1]  # still a recent question
    body = web.post("/ask", {"question": "那香港呢？"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="turn-0"' in body and "24,015.8" not in body and "【沿用上一问】" not in body
    assert Conversation.objects.filter(user__username="analyst").count() == 2


def test_a_turn_answered_with_clearance_is_hidden_once_the_clearance_is_gone(demo) -> None:
    user = demo["users"]["analyst_cleared"]
    client = Client()
    client.force_login(user)
    client.post("/ask", {"question": "东南亚2025年净利润是多少"})
    assert "-1,402.6" in client.get("/").content.decode()
    user.user_permissions.clear()
    client.force_login(type(user).objects.get(pk=user.pk))
    page = client.get("/").content.decode()
    assert "-1,402.6" not in page and "东南亚2025年净利润是多少" not in page
    assert client.get("/turns/0/facts.csv").status_code == 404


def test_the_admin_lists_conversations_without_their_words(web: Client, demo) -> None:
    web.post("/ask", {"question": GROUP_REVENUE})
    curator = Client()
    curator.force_login(demo["users"]["curator"])
    conversation = Conversation.objects.get(user__username="analyst")
    listing = curator.get("/admin/agent/conversation/")
    assert listing.status_code == 200 and conversation.external_id in listing.content.decode()
    page = curator.get(f"/admin/agent/conversation/{conversation.pk}/change/").content.decode()
    assert "REVENUE" in page and GROUP_REVENUE not in page and "128450.6" not in page
    assert curator.get("/admin/agent/conversation/add/").status_code == 403


# -- a chain of conversations: a chat client's transcript prefixes ------------------------------
def test_the_context_along_a_chain_is_the_newest_answered_turn(demo) -> None:
    user = demo["users"]["analyst"]
    question_ask(GROUP_REVENUE, user=user, reference_date=REFERENCE, conversation_id="prefix-1")
    question_ask(
        "财年是怎么定义的", user=user, reference_date=REFERENCE, conversation_id="prefix-2"
    )  # FAQ: passed over
    along = previous_intent_along(user=user, external_ids=["prefix-3", "prefix-2", "prefix-1"])
    assert along is not None and (along.metric, along.entity) == ("REVENUE", "ACME_GROUP")
    assert previous_intent_along(user=user, external_ids=["prefix-2"]) is None
    assert previous_intent_along(user=demo["users"]["analyst_cleared"], external_ids=["prefix-1"]) is None
    result = question_ask(
        "那香港呢？", user=user, reference_date=REFERENCE, conversation_id="prefix-3", follows=["prefix-1"]
    ).result
    assert [(f.entity, f.period.label) for f in result.facts] == [("ACME_HK", "FY2025")]
    assert Conversation.objects.get(user=user, external_id="prefix-3").turns.count() == 1


def test_a_chain_needs_a_signed_in_user(demo) -> None:
    with pytest.raises(ConversationError):
        question_ask("那香港呢？", user=None, follows=["prefix-1"])


def test_an_unusable_conversation_id_is_refused_along_a_chain_too(demo) -> None:
    with pytest.raises(ConversationError):
        question_ask("那香港呢？", user=demo["users"]["analyst"], conversation_id="x" * 65, follows=["prefix-1"])
