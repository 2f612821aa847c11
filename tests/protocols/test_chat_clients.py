"""How real clients talk to `/v1/chat/completions` (issue Y): a pasted question's line break, an
SDK's `None`s, a screenshot earlier in the chat, a request for structured output or usage, and
the API's other doors (a trailing slash, `Bearer`, a program that says no language). Each is
shown through the client that sends it: the `openai` SDK, LangChain's `ChatOpenAI`, or httpx
where the shape is a browser's or another SDK's."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from tests.protocols.support import FIGURE, FIRST, FOLLOW_UP, openai_client, token_for

pytestmark = pytest.mark.django_db
ASK = {"reference_date": "2026-03-15"}
HONG_KONG_2025 = [("ACME_HK", "FY2025", "24015.8")]
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


@pytest.fixture
def site(live_server: Any, demo: dict[str, Any]) -> str:
    return str(live_server.url)


@pytest.fixture
def sdk(site: str, demo: dict[str, Any]) -> openai.OpenAI:
    return openai_client(site, demo["users"]["analyst"])


def _facts(completion: Any) -> list[tuple[str, str, str]]:
    return [(f["entity"], f["period"], f["value"]) for f in completion.ragspine["facts"]]


def _user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def test_a_follow_up_continues_whatever_spaces_a_pasted_question_carried(sdk: openai.OpenAI) -> None:
    sdk.chat.completions.create(model="ragspine", messages=[_user(f"{FIRST}\n")], extra_body=ASK)
    for earlier in (f"{FIRST}\n", f"  {FIRST}", FIRST, f"{FIRST}\r\n\r\n"):
        follow = sdk.chat.completions.create(
            model="ragspine",
            messages=[_user(earlier), {"role": "assistant", "content": "…"}, _user(f"{FOLLOW_UP}\n")],
            extra_body=ASK,
        )
        assert _facts(follow) == HONG_KONG_2025, earlier


def test_nulls_an_sdk_sends_for_unset_parameters_are_not_given(site: str, demo: dict[str, Any]) -> None:
    sdk = openai_client(site, demo["users"]["analyst"])
    answer = sdk.chat.completions.create(
        model="ragspine",
        messages=[_user(FIGURE)],
        extra_body={**ASK, "n": None, "stream": None, "response_format": None, "tool_choice": None},
    )
    assert "96,120.3" in answer.choices[0].message.content


def test_a_picture_earlier_in_the_chat_is_skipped_and_said(sdk: openai.OpenAI) -> None:
    messages = [
        _user([{"type": "text", "text": FIRST}, IMAGE]),
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I cannot see images."}]},
        _user(FOLLOW_UP),
    ]
    first = sdk.chat.completions.create(model="ragspine", messages=messages[:1], extra_body=ASK)
    assert first.ragspine["facts"] and first.ragspine["notes"] == ["Parts that are not text were skipped: image_url."]
    answer = sdk.chat.completions.create(model="ragspine", messages=messages, extra_body=ASK)
    assert _facts(answer) == HONG_KONG_2025  # the first question's text still counts
    assert answer.ragspine["notes"] == ["Parts that are not text were skipped: image_url, refusal."]
    plain = sdk.chat.completions.create(model="ragspine", messages=[_user(FIGURE)], extra_body=ASK)
    assert plain.ragspine["notes"] == []
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.chat.completions.create(model="ragspine", messages=[_user([IMAGE])], extra_body=ASK)
    assert "must be text" in refused.value.message and refused.value.body["param"] == "messages[0].content"


class Revenue(BaseModel):
    value: float


def test_structured_output_is_refused_by_name_not_ignored(site: str, demo: dict[str, Any]) -> None:
    chat = ChatOpenAI(
        model="ragspine", base_url=f"{site}/v1", api_key=token_for(demo["users"]["analyst"]), max_retries=0
    )
    assert "96,120.3" in chat.invoke(FIGURE).content  # plain LangChain use works
    with pytest.raises(openai.BadRequestError) as refused:
        chat.with_structured_output(Revenue).invoke(FIGURE)
    assert refused.value.body["param"] == "response_format"
    assert "does not fill a JSON schema" in refused.value.message and "ragspine" in refused.value.message
    with pytest.raises(openai.BadRequestError) as forced:
        chat.with_structured_output(Revenue, method="function_calling").invoke(FIGURE)
    assert forced.value.body["param"] == "tool_choice"
    sdk = openai_client(site, demo["users"]["analyst"])
    text = sdk.chat.completions.create(
        model="ragspine", messages=[_user(FIGURE)], response_format={"type": "text"}, tool_choice="none"
    )
    assert "96,120.3" in text.choices[0].message.content


def test_usage_is_reported_and_streamed_when_asked(sdk: openai.OpenAI) -> None:
    answer = sdk.chat.completions.create(model="ragspine", messages=[_user(FIGURE)], extra_body=ASK)
    assert answer.usage is not None and answer.usage.total_tokens == 0  # no model was asked
    chunks = list(
        sdk.chat.completions.create(
            model="ragspine",
            messages=[_user(FIGURE)],
            stream=True,
            stream_options={"include_usage": True},
            extra_body=ASK,
        )
    )
    *text, last = chunks
    assert last.choices == [] and last.usage is not None and last.usage.total_tokens == 0
    assert all(chunk.usage is None for chunk in text)
    assert "96,120.3" in "".join(c.choices[0].delta.content or "" for c in text)
    plain = list(sdk.chat.completions.create(model="ragspine", messages=[_user(FIGURE)], stream=True, extra_body=ASK))
    assert plain[-1].choices and all(getattr(chunk, "usage", None) is None for chunk in plain)


def test_the_apis_other_doors(site: str, demo: dict[str, Any]) -> None:
    bearer = {"Authorization": f"Bearer {token_for(demo['users']['analyst'])}"}
    body = {"model": "ragspine", "messages": [_user(FIGURE)], **ASK}
    with httpx.Client(base_url=site, headers=bearer, timeout=30) as http:
        # a base URL written `…/v1/` by a chat UI's settings
        slashed = http.post("/v1/chat/completions/", json=body)
        assert slashed.status_code == 200 and "96,120.3" in slashed.json()["choices"][0]["message"]["content"]
        assert http.get("/v1/models/").json()["data"][0]["id"] == "ragspine"
        # `Bearer` on every endpoint, not only the OpenAI-compatible ones
        ask = http.post("/v1/ask", json={"question": FIGURE, **ASK})
        assert ask.status_code == 200 and ask.json()["facts"][0]["value"] == "96120.3"
        assert http.get("/v1/search", params={"q": "香港 收入"}).status_code == 200
        assert http.get("/v1/ready").status_code in (200, 503)
        # a program that names no language reads errors in English; one that does, in its own
        bad = http.post("/v1/ask", json={"question": ""})
        assert bad.status_code == 400 and not _cjk(json.dumps(bad.json(), ensure_ascii=False))
        chinese = http.post("/v1/ask", json={"question": ""}, headers={"Accept-Language": "zh-Hans"})
        assert chinese.status_code == 400 and _cjk(json.dumps(chinese.json(), ensure_ascii=False))
        null = http.post("/v1/chat/completions", json={"model": "ragspine", "messages": None})
        assert null.status_code == 400 and not _cjk(null.text)
    with httpx.Client(base_url=site, timeout=30) as anonymous:
        refused = anonymous.post("/v1/ask", json={"question": FIGURE}, headers={"Authorization": "Bearer nope"})
        assert refused.status_code == 401 and "credentials were not provided" not in refused.text.lower()


def _cjk(text: str) -> bool:
    return any("\u4e00" <= character <= "\u9fff" for character in text)


def test_a_token_limit_is_said_to_be_unapplied_never_cuts_a_figure(sdk: openai.OpenAI) -> None:
    """OpenAI cuts a reply at `max_tokens` (`finish_reason: "length"`); RAGSpine never cuts an
    answer (a cut can halve a figure or part it from its source), so the whole answer comes back
    and `ragspine.notes` says the limit was not applied, rather than ignoring it silently."""
    for limit in ({"max_tokens": 3}, {"max_completion_tokens": 3}):
        answer = sdk.chat.completions.create(model="ragspine", messages=[_user(FIGURE)], extra_body=ASK, **limit)  # type: ignore[call-overload]
        assert "96,120.3" in answer.choices[0].message.content
        assert answer.choices[0].finish_reason == "stop"
        assert any(next(iter(limit)) in note and "not applied" in note for note in answer.ragspine["notes"])
    unlimited = sdk.chat.completions.create(
        model="ragspine", messages=[_user(FIGURE)], extra_body={**ASK, "max_tokens": None}
    )
    assert unlimited.ragspine["notes"] == []
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.chat.completions.create(
            model="ragspine", messages=[_user(FIGURE)], extra_body={**ASK, "max_tokens": "many"}
        )
    assert refused.value.body["param"] == "max_tokens"  # type: ignore[index]
