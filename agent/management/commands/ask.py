from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.conversation import ConversationError
from agent.services import question_ask
from core.pipeline import ScopeError


class Command(BaseCommand):
    help = "Ask RAGSpine a question. --json prints the same object as POST /v1/ask."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--json", action="store_true", help="print the `/v1/ask` JSON")
        parser.add_argument("--user", help="answer with this user's clearance (default: no clearance)")
        parser.add_argument("--reference-date", help="YYYY-MM-DD; relative periods are read from it")
        parser.add_argument("--scope", action="append", default=[], metavar="SLOT=VALUE", help="e.g. entity=ACME_HK")
        parser.add_argument(
            "--conversation", metavar="ID", help="a conversation of --user: follow-ups in it inherit slots"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        question: str = options["question"].strip()
        if not question or len(question) > 2000:
            raise CommandError("the question must be 1 to 2,000 characters")
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"no user '{options['user']}'")
        reference = None
        if options["reference_date"]:
            try:
                reference = date.fromisoformat(options["reference_date"])
            except ValueError:
                raise CommandError("--reference-date must be YYYY-MM-DD") from None
        scope = {}
        for item in options["scope"]:
            slot, _, value = item.partition("=")
            if slot not in ("entity", "metric", "period", "channel") or not value:
                raise CommandError(f"--scope '{item}' must be entity|metric|period|channel=VALUE")
            scope[slot] = value
        conversation_id = options["conversation"]
        if conversation_id is not None and user is None:
            raise CommandError("--conversation needs --user: a conversation belongs to a user")
        try:
            asked = question_ask(
                question, user=user, reference_date=reference, scope=scope, conversation_id=conversation_id
            )
        except (ScopeError, ConversationError) as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            shown = {**asked.data, "conversation_id": conversation_id}  # as POST /v1/ask returns it
            self.stdout.write(json.dumps(shown, ensure_ascii=False, indent=2))
        else:
            result = asked.result
            self.stdout.write(result.answer)
            self.stdout.write(
                f"[route={result.route} kind={result.answer_kind} clarification={result.clarification.mode}]"
            )
