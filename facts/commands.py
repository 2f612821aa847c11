"""What the import commands share: an aborted import becomes its row-numbered errors on stderr
and one `CommandError` saying that nothing was imported."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from .services import ImportAborted


@contextmanager
def import_or_explain(command: BaseCommand, path: Path, *, what: str = "error(s)") -> Iterator[None]:
    try:
        yield
    except ImportAborted as aborted:
        for error in aborted.errors:
            command.stderr.write(error)
        raise CommandError(f"{path}: {aborted.total_errors} {what}; nothing was imported") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path}: not UTF-8 text; nothing was imported") from None
