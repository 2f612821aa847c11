from __future__ import annotations

import getpass
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from facts.roles import CURATOR, ROLES, RoleError, password_generate, user_create


class Command(BaseCommand):
    help = "Create a user with a role: `analyst` asks and searches; `curator` also keeps the data in /admin/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, help=f"one of: {', '.join(ROLES)}")
        parser.add_argument("--cleared", action="store_true", help="may see RESTRICTED facts, documents and FAQ")
        parser.add_argument("--password", help="default: asked for at a terminal, otherwise generated and printed")
        parser.add_argument("--no-input", action="store_true", help="never ask; generate a password if none is given")

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        role: str = options["role"]
        if role not in ROLES:
            raise CommandError(f"unknown role '{role}' (one of: {', '.join(ROLES)})")
        password: str | None = options["password"]
        generated = False
        if password is None:
            if options["no_input"] or not sys.stdin.isatty():
                password, generated = password_generate(), True
            else:
                password = self._prompt()
        try:
            user = user_create(username=username, role=role, password=password, cleared=options["cleared"])
        except RoleError as error:
            raise CommandError(str(error)) from None
        what = (
            role + (" (staff)" if role == CURATOR else "") + (", cleared for RESTRICTED" if options["cleared"] else "")
        )
        self.stdout.write(f"user {user.username} created: {what}")
        if generated:
            self.stdout.write(f"password: {password}  (shown once)")

    def _prompt(self) -> str:
        try:
            first = getpass.getpass("Password: ")
            second = getpass.getpass("Password (again): ")
        except (EOFError, KeyboardInterrupt):
            raise CommandError("no password given") from None
        if first != second:
            raise CommandError("the passwords differ")
        if not first:
            raise CommandError("the password is blank")
        return first
