"""`RouteRequest`: one question on its way through the stages and routes.

What it was asked with (the question, the asker's clearance, the reference date), the ports a
route may use, and what it accumulates as it goes: stage timings, token usage, provider time,
the note a follow-up inherited, and the topic retrieval searches for.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from core.glossary import GlossarySnapshot
from core.ports import FactStore, FxRates, LLMProvider, ScreenedPassages


@dataclass
class RouteRequest:
    question: str
    glossary: GlossarySnapshot
    store: FactStore
    provider: LLMProvider
    cleared: bool
    reference: date
    request_id: str
    # Every passage is screened for competitors before reranking, synthesis or display.
    retriever: ScreenedPassages | None = None
    synthesizer: LLMProvider | None = None
    rerank: bool = False
    fx: FxRates | None = None  # the curated FX rates a currency asked is converted with
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    provider_seconds: float = 0.0
    follow_up_note: str | None = None  # what a follow-up inherited, in the analyst's words
    topic: str | None = None  # what retrieval searches for when it is not the question as asked
    _mark: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._mark = self.started

    def lap(self, stage: str) -> None:
        """Time the stage that just ended (from the end of the previous one)."""
        now = time.perf_counter()
        self.timings[stage] = round((now - self._mark) * 1000, 3)
        self._mark = now

    def add_usage(self, usage: Mapping[str, int]) -> None:
        for key, value in usage.items():
            self.usage[key] = self.usage.get(key, 0) + int(value)

    def add_provider_time(self, seconds: float) -> None:
        self.provider_seconds += seconds

    def noticed(self, text: str, language: str) -> str:
        """`text`, then what screening held back from it (competitors, instructions), if anything."""
        notice = self.retriever.notice(language) if self.retriever is not None else ""
        return f"{text}\n{notice}" if notice else text
