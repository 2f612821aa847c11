"""The agent app's adapters of the core's ports: the trace sink over the ORM.

The fact store, the FAQ lookup and the narrative retriever are adapted in their own apps'
selectors; `agent.bootstrap` wires them all into `answer_question`.
"""

from __future__ import annotations

from core.model.trace import TraceRecord

from .services import query_log_record


class QueryLogSink:
    """The `TraceSink` port over the ORM. It accepts only a validated `TraceRecord`.

    `asker_cleared` marks the questions of users with RESTRICTED clearance, so that their traces
    (and the terms they used) stay out of the reports uncleared curators see.
    """

    def __init__(self, *, asker_cleared: bool = False) -> None:
        self.asker_cleared = asker_cleared

    def record(self, trace: TraceRecord) -> None:
        query_log_record(trace=trace, asker_cleared=self.asker_cleared)
