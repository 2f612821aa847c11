"""The review queue as a curator works it (`admin/facts/factmetric/review/`): pending
candidates grouped by company × metric × period × channel (a label the glossary does not know is
its own group), groups with a metric first, each candidate with its value, statement
(consolidated or parent), reason, locator and document; and the actions on a group or on every candidate a page
shows, each one service call, atomic and logged as an admin change. Above the candidates, the
figures analysts disputed (`#disputes`), each with its open disputes and the three ways to settle
them: correct the figure, confirm it or reject the fact."""

from __future__ import annotations

from itertools import groupby
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext, ngettext, pgettext
from django.views.decorators.http import require_POST

from common.access import user_cleared

from .concepts import metrics_of_concept
from .models import FactDispute, FactMetric, Metric
from .reasons import PARENT_STATEMENT, reason_kinds, reason_shown
from .review_forms import (
    STATEMENTS,
    DisputeSettleForm,
    FactsForm,
    KeySetForm,
    LabelAliasForm,
    LabelMetricForm,
    QueueFilterForm,
)
from .selectors import disputes_open, glossary_snapshot
from .services import fact_choose, facts_key_set, facts_reject, label_alias_add, label_metric_create
from .services.disputes import disputes_settle

GROUPS_PAGE = 300  # candidates per page; a group cut by the page goes on on the next one
CLOSEST_SHOWN = 3  # same-concept metrics offered as one-click choices for a label
DISPUTES_SHOWN = 500  # open disputes on the page, oldest first; the dispute list holds them all
# Groups with a metric first on every database (SQLite puts NULL first, PostgreSQL last).
_GROUP_ORDER = (
    F("metric_id").asc(nulls_last=True),
    "entity_id",
    "metric_id",
    "suggested_alias",
    "period_type",
    "period",
    "channel_id",
    "pk",
)


# A label given a metric: the queue then shows its candidates waiting with it, whatever reason
# the curator had filtered them by (the unknown label is no longer theirs).
LABEL_GIVEN = ("reason",)
NEWCOMERS_SHOWN = 5


class ReviewQueueAdmin:
    """Mixed into the `FactMetric` admin: the `review/` page and its POST actions."""

    admin_site: admin.AdminSite
    model: type[FactMetric]

    def review_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path("review/", view(self.review_view), name="facts_factmetric_review"),
            path("review/choose/", view(require_POST(self.review_choose)), name="facts_factmetric_review_choose"),
            path("review/key/", view(require_POST(self.review_key_set)), name="facts_factmetric_review_key"),
            path("review/alias/", view(require_POST(self.review_alias)), name="facts_factmetric_review_alias"),
            path("review/reject/", view(require_POST(self.review_reject)), name="facts_factmetric_review_reject"),
            path("review/metric/", view(require_POST(self.review_metric)), name="facts_factmetric_review_metric"),
            path("review/dispute/", view(require_POST(self.review_dispute)), name="facts_factmetric_review_dispute"),
        ]

    def index_entries(self, request: HttpRequest) -> list[dict[str, Any]]:
        """The queue in the facts app on the admin index and sidebar, with how many candidates
        this curator may see wait (`ragspine_site.admin_site`)."""
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            return []
        waiting = self._candidates(request).count()
        entries = [
            {
                "name": gettext("Review queue (%(count)s)") % {"count": waiting},
                "object_name": "ReviewQueue",
                "admin_url": reverse("admin:facts_factmetric_review"),
                "add_url": None,
                "view_only": not self.has_change_permission(request),  # type: ignore[attr-defined]
                "perms": {"view": True},
            }
        ]
        if request.user.has_perm("facts.view_factdispute"):
            disputed = self._disputes(request).count()
            entries.append(
                {
                    "name": gettext("Disputed figures (%(count)s open)") % {"count": disputed},
                    "object_name": "OpenDisputes",
                    "admin_url": reverse("admin:facts_factmetric_review") + "#disputes",
                    "add_url": None,
                    "view_only": not self._settle_allowed(request),
                    "perms": {"view": True},
                }
            )
        return entries

    def _newcomers(self, request: HttpRequest) -> list[dict[str, Any]]:
        """Documents whose candidates wait without a company because the glossary lacks their
        issuer, with what each report says of it: the documents app offers to create it."""
        if not request.user.has_perm("facts.add_entity"):
            return []
        rows = (
            self._candidates(request)
            .filter(entity__isnull=True, document__isnull=False, document__issuer="")
            .values_list("document_id", "source_doc", "document__issuer_proposed")
            .order_by("document_id")
            .distinct()[:NEWCOMERS_SHOWN]
        )
        return [
            {"document": pk, "name": name, "company": said.get("full_name") or said.get("short_name")}
            for pk, name, said in rows
            if said
        ]

    def _disputes(self, request: HttpRequest) -> QuerySet[FactDispute]:
        """The open disputes this curator may see: none on a figure hidden from them."""
        return disputes_open(cleared=user_cleared(request.user))

    def _settle_allowed(self, request: HttpRequest) -> bool:
        return bool(
            self.has_change_permission(request)  # type: ignore[attr-defined]
            and request.user.has_perm("facts.change_factdispute")
        )

    def _dispute_groups(self, request: HttpRequest) -> list[dict[str, Any]]:
        """The open disputes, one group per fact, the fact first disputed first."""
        if not request.user.has_perm("facts.view_factdispute"):
            return []
        shown = self._disputes(request).select_related("fact__entity", "fact__metric")[:DISPUTES_SHOWN]
        groups: dict[int, dict[str, Any]] = {}
        for dispute in shown:
            groups.setdefault(dispute.fact_id, {"fact": dispute.fact, "disputes": []})["disputes"].append(dispute)
        return list(groups.values())

    def _candidates(self, request: HttpRequest) -> QuerySet[FactMetric]:
        visible: QuerySet[FactMetric] = self.get_queryset(request)  # type: ignore[attr-defined]
        return visible.filter(review_status=FactMetric.Review.PENDING)

    def review_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        visible: QuerySet[FactMetric] = self.get_queryset(request)  # type: ignore[attr-defined]
        candidates = visible.filter(review_status=FactMetric.Review.PENDING)
        filters = QueueFilterForm(request.GET or None, visible=visible)
        shown = (
            filters.filtered(candidates, visible).select_related("metric", "entity", "document").order_by(*_GROUP_ORDER)
        )
        page = Paginator(shown, GROUPS_PAGE).get_page(request.GET.get("page"))
        glossary = glossary_snapshot()
        groups = []
        labels_offered: set[str] = set()
        for _key, rows in groupby(page.object_list, key=_group_key):
            facts = list(rows)
            first = facts[0]
            label = first.suggested_alias if first.metric_id is None or _label_waits(facts) else ""
            known = glossary.resolve("metric", label) if label else None
            shared, own = _reasons_split([f.review_note for f in facts])
            holder = _holder(visible, first)
            groups.append(
                {
                    "facts": [_candidate_shown(f, note) for f, note in zip(facts, own, strict=True)],
                    "first": first,
                    # The reasons every candidate of the group gives, said once for the group.
                    "reason": reason_shown(shared),
                    "reason_en": shared,
                    "label": label,
                    # A label's alias and new-metric forms act on every period of it: once a page.
                    "label_above": label in labels_offered,
                    # The glossary learnt the label after the document was read (the metric's
                    # page, an import): one click gives the waiting candidates that metric.
                    "known": (known, glossary.metrics[known].name) if known in glossary.metrics else None,
                    # A few quick choices; any other metric is typed against the page's one list.
                    "closest": metrics_of_concept(label, glossary)[:CLOSEST_SHOWN] if label else [],
                    "holder": holder,
                    "approvable": first.metric_id is not None and holder is None,
                    "unit": first.unit_id or "",
                }
            )
            labels_offered.add(label)
        # One source on the page (the usual case: a report's queue) is named once, not per row.
        sources = {(fact.document_id, fact.source_doc) for fact in page.object_list}
        single = page.object_list[0] if len(sources) == 1 else None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Review queue"),
            "filters": filters,
            "groups": groups,
            "page": page,
            "back": request.GET.urlencode(),
            "query_without_page": urlencode([(k, v) for k, v in request.GET.items() if k != "page"]),
            "metric_names": sorted((code, info.name) for code, info in glossary.metrics.items()),
            "units": sorted(glossary.units),
            "single_document": single.document if single is not None else None,
            "source_single": single.source_doc if single is not None else "",
            "aggregations": Metric._meta.get_field("aggregation").choices,
            "shown_ids": [fact.pk for fact in page.object_list],
            "entity_names": [(e.code, e.name) for e in glossary.in_scope_entities()[:500]],
        }
        context["newcomers"] = self._newcomers(request)
        disputes_seen = request.user.has_perm("facts.view_factdispute")
        context |= {
            "disputes_seen": disputes_seen,
            "dispute_groups": self._dispute_groups(request),
            "disputes_open": self._disputes(request).count() if disputes_seen else 0,
            "disputes_shown": DISPUTES_SHOWN,
            "disputes_settle": self._settle_allowed(request),
        }
        return TemplateResponse(request, "admin/facts/factmetric/review_with_disputes.html", context)

    def review_choose(self, request: HttpRequest) -> HttpResponse:
        self._change_allowed(request)
        try:
            fact_id = int(request.POST.get("choose", ""))
        except ValueError:
            messages.error(request, gettext("Choose one candidate."))
            return self._back(request)

        def act() -> str:
            chosen, rejected = fact_choose(candidates=self._candidates(request), fact_id=fact_id)
            self.log_change(request, chosen, gettext("Review queue: approved, the others of its key rejected"))  # type: ignore[attr-defined]
            for other in rejected:
                said = gettext("Review queue: rejected for #%(chosen)s") % {"chosen": chosen.pk}
                self.log_change(request, other, said)  # type: ignore[attr-defined]
            return gettext("Approved 1, rejected %(count)s of its key.") % {"count": len(rejected)}

        return self._act(request, act)

    def review_key_set(self, request: HttpRequest) -> HttpResponse:
        self._change_allowed(request)
        form = KeySetForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)
        data = form.cleaned_data

        def act() -> str:
            changed = facts_key_set(
                candidates=self._candidates(request),
                fact_ids=data["facts"],
                metric=data["metric"],
                entity=data["entity"],
                period=data["period"],
            )
            said = ", ".join(
                f"{k}={v}"
                for k, v in (
                    ("metric", data["metric"]),
                    ("entity", data["entity"]),
                    ("period", data["period"] and data["period"].label),
                )
                if v
            )
            for fact in changed:
                self.log_change(request, fact, gettext("Review queue: set %(key)s") % {"key": said})  # type: ignore[attr-defined]
            return ngettext(
                "Corrected %(count)s candidate; it waits for approval.",
                "Corrected %(count)s candidates; they wait for approval.",
                len(changed),
            ) % {"count": len(changed)}

        return self._act(request, act)

    def review_alias(self, request: HttpRequest) -> HttpResponse:
        self._change_allowed(request)
        form = LabelAliasForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)
        data = form.cleaned_data

        def act() -> str:
            alias, reread = label_alias_add(
                candidates=self._candidates(request), text=data["text"], metric_code=data["metric"]
            )
            named = {"alias": alias.text, "code": alias.target_code, "count": len(reread)}
            for fact in reread:
                self.log_change(request, fact, gettext("Review queue: alias '%(alias)s' → %(code)s") % named)  # type: ignore[attr-defined]
            return (
                gettext(
                    "Alias '%(alias)s' → %(code)s added; %(count)s waiting candidates now have the metric "
                    "and wait for approval."
                )
                % named
            )

        return self._act(request, act, unfiltered=LABEL_GIVEN)

    def review_reject(self, request: HttpRequest) -> HttpResponse:
        """Reject the selected candidates of a group, or every candidate the page showed."""
        self._change_allowed(request)
        form = FactsForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)

        def act() -> str:
            rejected = facts_reject(candidates=self._candidates(request), fact_ids=form.cleaned_data["facts"])
            for fact in rejected:
                self.log_change(request, fact, gettext("Review queue: rejected"))  # type: ignore[attr-defined]
            return ngettext("Rejected %(count)s candidate.", "Rejected %(count)s candidates.", len(rejected)) % {
                "count": len(rejected)
            }

        return self._act(request, act)

    def review_metric(self, request: HttpRequest) -> HttpResponse:
        """Make a new metric of a row label and give it to the candidates waiting with that label."""
        self._change_allowed(request)
        if not request.user.has_perm("facts.add_metric"):
            raise PermissionDenied
        form = LabelMetricForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)
        data = form.cleaned_data

        def act() -> str:
            metric, reread = label_metric_create(
                candidates=self._candidates(request),
                text=data["text"],
                code=data["code"],
                name=data["name"] or data["text"],
                unit=data["unit"],
                aggregation=data["aggregation"],
            )
            named = {
                "name": metric.name,
                "code": metric.code,
                "unit": metric.unit_id,
                "label": data["text"],
                "count": len(reread),
            }
            for fact in reread:
                said = gettext("Review queue: new metric %(code)s, alias '%(label)s'") % named
                self.log_change(request, fact, said)  # type: ignore[attr-defined]
            return (
                gettext(
                    "Metric '%(name)s' (%(code)s, %(unit)s) created with '%(label)s' as its alias; %(count)s "
                    "waiting candidates now have it and wait for approval."
                )
                % named
            )

        return self._act(request, act, unfiltered=LABEL_GIVEN)

    def review_dispute(self, request: HttpRequest) -> HttpResponse:
        """Settle the open disputes on one figure: correct it, confirm it or reject the fact."""
        if not self._settle_allowed(request):
            raise PermissionDenied
        form = DisputeSettleForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)
        data = form.cleaned_data

        def act() -> str:
            fact, settled = disputes_settle(
                disputes=self._disputes(request),
                fact_id=data["fact"],
                outcome=data["outcome"],
                user=request.user,
                resolution=data["resolution"],
                value=data["value"],
            )
            said = _settled_said(data["outcome"], before=settled[0].value_disputed, after=fact.value)
            self.log_change(request, fact, said)  # type: ignore[attr-defined]
            return said

        return self._act(request, act)

    def _change_allowed(self, request: HttpRequest) -> None:
        if not self.has_change_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied

    def _act(self, request: HttpRequest, act: Any, *, unfiltered: tuple[str, ...] = ()) -> HttpResponse:
        """Run one action and its log entries in one transaction: a refused action writes nothing.
        Done, the queue drops the filters in `unfiltered`."""
        try:
            with transaction.atomic():
                said = act()
        except ValidationError as error:
            messages.error(request, pgettext("list separator", "; ").join(error.messages))
        except IntegrityError:
            # Another curator changed the key between the check and the write.
            messages.error(request, gettext("The key changed meanwhile; reload and try again."))
        else:
            messages.success(request, said)
            if unfiltered:
                return self._back(request, drop=unfiltered)
        return self._back(request)

    def _form_refused(self, request: HttpRequest, form: forms.Form) -> HttpResponse:
        for name, problems in form.errors.items():
            label = form.fields[name].label if name in form.fields else ""
            for problem in problems:
                messages.error(request, f"{label}: {problem}" if label else problem)
        return self._back(request)

    def _back(self, request: HttpRequest, drop: tuple[str, ...] = ()) -> HttpResponse:
        """The queue as the curator left it, less the filters in `drop`."""
        back = QueryDict(request.POST.get("back", "").replace("\n", "").replace("\r", ""), mutable=True)
        for name in drop:
            back.pop(name, None)
        url = reverse("admin:facts_factmetric_review")
        return HttpResponseRedirect(f"{url}?{back.urlencode()}" if back else url)


def _settled_said(outcome: str, *, before: Any, after: Any) -> str:
    """What settling a disputed figure did, for the curator's message and the fact's history."""
    if outcome == FactDispute.Status.CORRECTED:
        return gettext("Disputed figure corrected from %(before)s to %(after)s.") % {"before": before, "after": after}
    if outcome == FactDispute.Status.REJECTED:
        return gettext("Disputed fact rejected: %(before)s answers no more questions.") % {"before": before}
    return gettext("Disputed figure confirmed: %(before)s stands.") % {"before": before}


def _group_key(fact: FactMetric) -> tuple[Any, ...]:
    label = fact.suggested_alias if fact.metric_id is None else ""
    return (fact.entity_id, fact.metric_id, label, fact.period_type, fact.period, fact.channel_id)


def _label_waits(facts: list[FactMetric]) -> bool:
    """A group whose metric is the reader's guess for a label it did not know."""
    return any(f.suggested_alias and "label" in reason_kinds(f.review_note) for f in facts)


def _candidate_shown(fact: FactMetric, own_note: str) -> dict[str, Any]:
    return {
        "fact": fact,
        "statement": dict(STATEMENTS)["parent" if PARENT_STATEMENT in fact.review_note else "consolidated"],
        "reason": reason_shown(own_note),
        "reason_en": own_note,
    }


def _reasons_split(notes: list[str]) -> tuple[str, list[str]]:
    """The reasons every note gives (as a note), and each note's other reasons: a group says its
    shared reasons once, and each row only what is its own."""
    parts = [[part for part in note.split("; ") if part] for note in notes]
    shared = [part for part in parts[0] if all(part in other for other in parts[1:])] if parts else []
    return "; ".join(shared), ["; ".join(p for p in own if p not in shared) for own in parts]


def _holder(visible: QuerySet[FactMetric], fact: FactMetric) -> FactMetric | None:
    if fact.metric_id is None or fact.entity_id is None:
        return None
    key = {f: getattr(fact, f) for f in ("entity_id", "metric_id", "period_type", "period", "channel_id")}
    return visible.filter(review_status=FactMetric.Review.APPROVED, **key).first()
