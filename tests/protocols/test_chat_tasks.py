"""A chat UI's background tasks (issue Y): Open WebUI's and LibreChat's title, tags and follow-up
prompts get a short reply from the glossary through the real `openai` SDK, with no trace, no
conversation and no throttle slot; and no analyst's question is ever taken for one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from hypothesis import given
from hypothesis import settings as settings_
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from agent.models import Conversation, QueryLog
from protocols.chat_tasks import chat_task
from tests.protocols.support import FIGURE, openai_client
from tests.questions import QUESTIONS

pytestmark = pytest.mark.django_db
GOLDEN = Path(settings.BASE_DIR).parent / "shared" / "golden"
HISTORY = "USER: 集团2023年营收是多少\nASSISTANT: ACME集团 FY2023 营业收入\nUSER: 那香港呢\nASSISTANT: " + "…" * 3000
OPEN_WEBUI = {
    "title": (
        "### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
        '### Output:\nJSON format: { "title": "your concise title here" }\n'
        f"### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
    ),
    "follow_ups": (
        "### Task:\nSuggest 3-5 relevant follow-up questions or prompts that the user might naturally ask next.\n"
        '### Output:\nJSON format: { "follow_ups": ["Question 1?", "Question 2?"] }\n'
        f"### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
    ),
    "tags": (
        "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history.\n"
        '### Output:\nJSON format: { "tags": ["tag1", "tag2", "tag3"] }\n'
        f"### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
    ),
}
LIBRECHAT_TITLE = (
    "Please generate a concise, 5-word-or-less title for the conversation, using its same language, with no "
    'punctuation.\n\n||>User:\n"What was Hong Kong revenue in 2024?"\n||>Response:\n"ACME Hong Kong FY2024 …"\n\n'
    "||>Title:"
)


@pytest.fixture
def site(live_server: Any, demo: dict[str, Any]) -> str:
    return str(live_server.url)


def test_a_chat_uis_tasks_get_short_replies_and_cost_nothing(site: str, demo: dict[str, Any]) -> None:
    sdk = openai_client(site, demo["users"]["analyst"])
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ask": "1/min"}
    before = (QueryLog.objects.count(), Conversation.objects.count())
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        cache.clear()
        with mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", api_settings.DEFAULT_THROTTLE_RATES):
            replies = {}
            for kind, prompt in OPEN_WEBUI.items():
                reply = sdk.chat.completions.create(model="ragspine", messages=[{"role": "user", "content": prompt}])
                replies[kind] = json.loads(reply.choices[0].message.content)
                assert reply.ragspine["task"] == kind and reply.usage.total_tokens == 0
            titled = sdk.chat.completions.create(
                model="ragspine", messages=[{"role": "user", "content": LIBRECHAT_TITLE}]
            )
            assert (QueryLog.objects.count(), Conversation.objects.count()) == before
            # the one question the rate allows is still there
            answer = sdk.chat.completions.create(model="ragspine", messages=[{"role": "user", "content": FIGURE}])
        cache.clear()
    assert replies["title"] == {"title": "ACME集团 营业收入 FY2023"}
    assert replies["tags"] == {"tags": ["ACME集团", "营业收入", "FY2023"]}
    assert replies["follow_ups"] == {"follow_ups": []}
    assert titled.choices[0].message.content == "Hong Kong revenue FY2024"
    assert "96,120.3" in answer.choices[0].message.content


def _golden_questions() -> list[str]:
    found = []
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found += [row[key] for key in ("question",) if isinstance(row.get(key), str)]
                found += [turn for turn in row.get("turns", []) if isinstance(turn, str)]
    return found


@settings_(max_examples=300, deadline=None, derandomize=True, database=None)
@given(QUESTIONS)
def test_no_generated_question_is_taken_for_a_task(question: str) -> None:
    assert chat_task(question) is None


def test_no_analysts_question_is_taken_for_a_task() -> None:
    questions = _golden_questions()
    questions += [
        "Give me a title for the Hong Kong revenue table",
        "User: what was revenue in 2025?",
        "帮我写一封给投资者的邮件，标题是营收增长",
        "Summarize the chat about tags and follow-up questions",
        "Which documents mention the conversation with suppliers?",
    ]
    assert len(questions) > 60
    assert [q for q in questions if chat_task(q) is not None] == []
