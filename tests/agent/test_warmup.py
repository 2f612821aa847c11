"""A web process warms itself up in the background as it starts (`ragspine_site.wsgi`): its
first question then finds the segmenter, the evasion tables and the search index loaded."""

from __future__ import annotations

from typing import Any

import pytest

from agent import warmup
from core.evasion import decode
from retrieval.index import InProcessLexicalIndex

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_warm_up_loads_what_the_first_question_reads_and_writes_nothing(demo: Any) -> None:
    from agent.models import QueryLog

    InProcessLexicalIndex._snapshot = None
    decode._ampersands.cache_clear()
    warmup.process_warm_in_background().join(timeout=120)
    assert InProcessLexicalIndex._snapshot is not None  # the index, built from the chunks
    assert decode._ampersands.cache_info().currsize == 1  # the evasion table
    assert not QueryLog.objects.exists()  # nothing answered, nothing logged


def test_a_failed_warm_up_is_logged_and_serving_goes_on(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the database is away")

    monkeypatch.setattr("facts.selectors.glossary_snapshot", broken)
    warmup.process_warm()  # does not raise
    assert "warming the process up failed" in caplog.text
