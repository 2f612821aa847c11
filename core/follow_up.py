"""Follow-ups in a conversation (SPEC §10 `conversation_id`).

`follow_up_apply(intent, previous, glossary)` takes the question's own parsed intent and the
conversation's previous answered intent; it returns the intent to answer and a note in the
analyst's words saying what was inherited (None when nothing was). A follow-up inherits slots
and the operation only when it brings no metric or topic of its own.
"""

from __future__ import annotations

from .glossary import GlossarySnapshot
from .types import ParsedIntent


def follow_up_apply(
    intent: ParsedIntent, previous: ParsedIntent, glossary: GlossarySnapshot
) -> tuple[ParsedIntent, str | None]:
    return intent, None
