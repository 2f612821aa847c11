"""A web process made ready for its first question while it starts, in the background: the
question segmenter's dictionaries (about 3 s to load), the evasion tables (about 1 s), the
glossary's automaton and the search index. Without it the first question a new worker answers
waits for all of them. Nothing is written; a failure is logged and serving goes on."""

from __future__ import annotations

import logging
import threading
from datetime import date

from django.db import close_old_connections, connection

logger = logging.getLogger(__name__)
QUESTION = "集团2025年营业收入为什么下降？"  # a question of every part: company, period, metric, why


def process_warm() -> None:
    """Read what the first question would read, and answer nothing."""
    from core.evasion.view import evasion_views
    from core.parse.intent import parse_intent
    from facts.selectors import glossary_snapshot
    from retrieval.index import lexical_index
    from retrieval.text import tokens

    try:
        glossary = glossary_snapshot()
        parse_intent(QUESTION, glossary, date.today())
        evasion_views(QUESTION)
        lexical_index().search(tokens(QUESTION), cleared=False, k=1)
    except Exception:  # a cold process still answers, only slower
        logger.exception("warming the process up failed")
    finally:
        close_old_connections()
        connection.close()


def process_warm_in_background() -> threading.Thread:
    thread = threading.Thread(target=process_warm, name="ragspine-warmup", daemon=True)
    thread.start()
    return thread
