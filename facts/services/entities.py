"""A company added to the glossary in one step, with its names and codes as aliases: what a
curator does when a report's issuer is not in the glossary yet (`documents` offers it)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from core.model.facts import ENTITY_HOME, ENTITY_KINDS

from ..models import Entity
from .glossary import AliasDraft, aliases_create


@dataclass(frozen=True)
class EntityDraft:
    """An entity to create: `aliases` are the other names and codes it is printed under."""

    code: str
    name: str
    kind: str
    aliases: tuple[str, ...] = ()
    parent: str = ""
    year_end_month: int | None = None
    currency: str = ""


@transaction.atomic
def entity_create(*, draft: EntityDraft) -> Entity:
    """Create the entity and its aliases (its name among them), all or nothing; a
    `ValidationError` says what is wrong (a code taken, an alias naming something else, a
    second home company)."""
    if draft.kind not in ENTITY_KINDS:
        raise ValidationError(
            {
                "kind": gettext("'%(kind)s' is not one of %(kinds)s")
                % {"kind": draft.kind, "kinds": ", ".join(ENTITY_KINDS)}
            }
        )
    if Entity.objects.filter(code=draft.code).exists():
        raise ValidationError({"code": gettext("The code %(code)s is taken by another entity.") % {"code": draft.code}})
    if draft.kind == ENTITY_HOME and Entity.objects.filter(kind=ENTITY_HOME).exists():
        raise ValidationError({"kind": gettext("The glossary has its home company already.")})
    parent = Entity.objects.filter(code=draft.parent).first() if draft.parent else None
    if draft.parent and parent is None:
        raise ValidationError({"parent": gettext("No entity has the code %(code)s.") % {"code": draft.parent}})
    entity = Entity(
        code=draft.code,
        name=draft.name,
        kind=draft.kind,
        parent=parent,
        year_end_month=draft.year_end_month,
        currency=draft.currency,
    )
    entity.full_clean()
    entity.save()
    texts = list(dict.fromkeys(text.strip() for text in (draft.name, *draft.aliases) if text and text.strip()))
    aliases_create(drafts=[AliasDraft("entity", text, draft.code) for text in texts])
    return entity
