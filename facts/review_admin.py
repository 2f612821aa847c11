"""The review queue as a curator works it (issue R, `admin/facts/factmetric/review/`): pending
candidates grouped by company × metric × period × channel (a label the glossary does not know is
its own group), groups with a metric first, each candidate with its value, statement (合并 /
母公司), reason, locator and document; and the actions on a group or on every candidate a page
shows, each one service call, atomic and logged as an admin change."""

from __future__ import annotations

from datetime import date
from itertools import groupby
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from core.language.periods import period_parse
from core.model.types import Period

from .concepts import metrics_of_concept
from .models import FactMetric, Metric
from .reasons import PARENT_STATEMENT, REASON_KINDS, reason_kind_q, reason_kinds, reason_shown
from .selectors import glossary_snapshot, key_held
from .services import fact_choose, facts_key_set, facts_reject, label_alias_add, label_metric_create

GROUPS_PAGE = 300  # candidates per page; a group cut by the page goes on on the next one
CLOSEST_SHOWN = 3  # same-concept metrics offered as one-click choices for a label
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
KEY_HELD, KEY_OPEN = "held", "open"


class QueueFilterForm(forms.Form):
    # The documents app imports facts, not the other way round: its model is reached through the FK.
    document = forms.ModelChoiceField(
        FactMetric._meta.get_field("document").related_model.objects.none(),  # type: ignore[union-attr]
        required=False,
        label="文档 · document",
    )
    statement = forms.ChoiceField(
        choices=[("", "全部 · all"), ("consolidated", "合并 · consolidated"), ("parent", "母公司 · parent")],
        required=False,
        label="报表 · statement",
    )
    reason = forms.ChoiceField(
        choices=[("", "全部 · all"), *REASON_KINDS.items()], required=False, label="原因 · reason"
    )
    q = forms.CharField(
        required=False, label="指标 · metric", help_text="名称、代码、别名或行标签 · name, code, alias or label"
    )
    period = forms.CharField(
        required=False, max_length=64, label="期间 · period", widget=forms.TextInput(attrs={"placeholder": "FY2019"})
    )
    key = forms.ChoiceField(
        choices=[
            ("", "全部 · all"),
            (KEY_HELD, "同键已有批准值 · beside an approved figure"),
            (KEY_OPEN, "尚无批准值 · no approved figure yet"),
        ],
        required=False,
        label="键 · key",
    )

    def __init__(self, *args: Any, visible: QuerySet[FactMetric], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["document"]
        assert isinstance(field, forms.ModelChoiceField)
        # Every document with a fact this curator may see: one whose queue was just cleared stays
        # a valid choice (its queue is empty, not every document's).
        documents = FactMetric._meta.get_field("document").related_model
        field.queryset = documents.objects.filter(pk__in=visible.values("document_id")).order_by("name")  # type: ignore[union-attr]

    def clean_period(self) -> Period | None:
        return _period_read(self.cleaned_data["period"])

    def filtered(self, candidates: QuerySet[FactMetric], visible: QuerySet[FactMetric]) -> QuerySet[FactMetric]:
        """The candidates the filters keep; `visible`, the facts the curator may see, tell which
        keys already hold an approved figure."""
        if not self.is_valid():
            return candidates.none() if self.is_bound else candidates
        data = self.cleaned_data
        if data["document"] is not None:
            candidates = candidates.filter(document=data["document"])
        if data["statement"] == "parent":
            candidates = candidates.filter(review_note__contains=PARENT_STATEMENT)
        elif data["statement"] == "consolidated":
            candidates = candidates.exclude(review_note__contains=PARENT_STATEMENT)
        if data["reason"]:
            candidates = candidates.filter(reason_kind_q(data["reason"]))
        if text := data["q"].strip():
            named = Metric.objects.filter(
                Q(name__icontains=text) | Q(code__icontains=text) | Q(aliases__text__icontains=text)
            ).values("code")
            candidates = candidates.filter(Q(metric_id__in=named) | Q(suggested_alias__icontains=text))
        if (period := data["period"]) is not None:
            candidates = candidates.filter(period_type=period.period_type, period=period.period)
        if data["key"]:
            held = key_held(visible)
            candidates = candidates.filter(held) if data["key"] == KEY_HELD else candidates.exclude(held)
        return candidates


class FactsForm(forms.Form):
    """Candidates chosen on the page: a group's ticked rows, or every row the page shows."""

    facts = forms.TypedMultipleChoiceField(coerce=int, choices=[], label="候选 · candidates")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["facts"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = [(v, v) for v in self.data.getlist("facts")] if hasattr(self.data, "getlist") else []


class KeySetForm(FactsForm):
    """The metric, company and period to give the selected candidates, each as a curator writes it."""

    metric = forms.CharField(required=False, max_length=255, label="指标 · metric")
    entity = forms.CharField(required=False, max_length=255, label="公司 · company")
    period = forms.CharField(required=False, max_length=64, label="期间 · period")

    def clean_metric(self) -> Any:
        return _glossary_row("metric", self.cleaned_data["metric"])

    def clean_entity(self) -> Any:
        return _glossary_row("entity", self.cleaned_data["entity"])

    def clean_period(self) -> Period | None:
        return _period_read(self.cleaned_data["period"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.errors and not any(cleaned.get(k) for k in ("metric", "entity", "period")):
            raise ValidationError("请填写指标、公司或期间 · Give a metric, a company or a period.")
        return cleaned


class LabelMetricForm(forms.Form):
    """A new metric made of a row label: its code, its name (the label unless given), its unit
    and how it adds up; the label becomes its first alias."""

    text = forms.CharField(max_length=255, label="行标签 · label")
    code = forms.CharField(max_length=64, label="代码 · code")
    name = forms.CharField(max_length=255, required=False, label="名称 · name")
    unit = forms.CharField(max_length=32, label="单位 · unit")
    aggregation = forms.ChoiceField(
        choices=[("", ""), *(Metric._meta.get_field("aggregation").choices or [])],
        required=False,
        label="累计方式 · adds up as",
    )

    def clean_code(self) -> str:
        return self.cleaned_data["code"].strip()

    def clean_name(self) -> str:
        return self.cleaned_data["name"].strip()

    def clean_unit(self) -> str:
        code = self.cleaned_data["unit"].strip()
        if code not in glossary_snapshot().units:
            raise ValidationError(f"术语表中没有单位 {code} · No unit {code} in the glossary.")
        return code


class LabelAliasForm(forms.Form):
    """The metric a row label names: one of the closest offered (`closest`, a code), else the
    metric typed (`metric`: a code, name or alias, against the page's one list of metrics)."""

    text = forms.CharField(max_length=255, label="行标签 · label")
    metric = forms.CharField(max_length=255, required=False, label="指标 · metric")
    closest = forms.CharField(max_length=64, required=False, label="相近指标 · closest metric")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        given = (cleaned.get("closest") or cleaned.get("metric") or "").strip()
        if not given:
            raise ValidationError({"metric": "请选择或填写一个指标 · Choose or type a metric."})
        code = glossary_snapshot().resolve("metric", given)
        if code is None:
            said = f"术语表中没有指标「{given}」· No metric in the glossary is called '{given}' (code, name or alias)."
            raise ValidationError({"metric": said})
        cleaned["metric"] = code
        return cleaned


def _period_read(text: str) -> Period | None:
    text = text.strip()
    if not text:
        return None
    period = period_parse(text, date.today())
    if period is None:
        raise ValidationError(f"「{text}」不是一个期间 · '{text}' is not one period; write FY2019, 2019H1 or 2019Q3.")
    return period


def _glossary_row(kind: str, text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    code = glossary_snapshot().resolve(kind, text)
    if code is None:
        raise ValidationError(
            f"术语表中没有「{text}」· No {kind} in the glossary is called '{text}' (code, name or alias)."
        )
    model = FactMetric._meta.get_field(kind).related_model
    return model.objects.get(code=code)  # type: ignore[union-attr]


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
        ]

    def index_entries(self, request: HttpRequest) -> list[dict[str, Any]]:
        """The queue in the facts app on the admin index and sidebar, with how many candidates
        this curator may see wait (`ragspine_site.admin_site`)."""
        if not self.has_view_permission(request):  # type: ignore[attr-defined]
            return []
        waiting = self._candidates(request).count()
        return [
            {
                "name": f"审核队列 · Review queue（{waiting}）",
                "object_name": "ReviewQueue",
                "admin_url": reverse("admin:facts_factmetric_review"),
                "add_url": None,
                "view_only": not self.has_change_permission(request),  # type: ignore[attr-defined]
                "perms": {"view": True},
            }
        ]

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
            "title": "审核队列 · Review queue",
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
        return TemplateResponse(request, "admin/facts/factmetric/review.html", context)

    def review_choose(self, request: HttpRequest) -> HttpResponse:
        self._change_allowed(request)
        try:
            fact_id = int(request.POST.get("choose", ""))
        except ValueError:
            messages.error(request, "请选择一条候选 · Choose one candidate.")
            return self._back(request)

        def act() -> str:
            chosen, rejected = fact_choose(candidates=self._candidates(request), fact_id=fact_id)
            self.log_change(request, chosen, "审核队列：批准此条 · review queue: approved, others of the key rejected")  # type: ignore[attr-defined]
            for other in rejected:
                self.log_change(
                    request, other, f"审核队列：驳回，已批准 #{chosen.pk} · review queue: rejected for #{chosen.pk}"
                )  # type: ignore[attr-defined]
            return f"已批准 1 条，驳回同键其余 {len(rejected)} 条 · Approved 1, rejected {len(rejected)} of its key."

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
                self.log_change(request, fact, f"审核队列：更正 · review queue: set {said}")  # type: ignore[attr-defined]
            return (
                f"已更正 {len(changed)} 条候选，仍待批准 · Corrected {len(changed)} candidates; they wait for approval."
            )

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
            for fact in reread:
                self.log_change(request, fact, f"审核队列：别名「{alias.text}」→ {alias.target_code}")  # type: ignore[attr-defined]
            return (
                f"已添加别名「{alias.text}」→ {alias.target_code}；{len(reread)} 条候选已取得该指标，待批准 · "
                f"Alias added; {len(reread)} waiting candidates now have the metric and wait for approval."
            )

        return self._act(request, act)

    def review_reject(self, request: HttpRequest) -> HttpResponse:
        """Reject the selected candidates of a group, or every candidate the page showed."""
        self._change_allowed(request)
        form = FactsForm(request.POST)
        if not form.is_valid():
            return self._form_refused(request, form)

        def act() -> str:
            rejected = facts_reject(candidates=self._candidates(request), fact_ids=form.cleaned_data["facts"])
            for fact in rejected:
                self.log_change(request, fact, "审核队列：驳回 · review queue: rejected")  # type: ignore[attr-defined]
            return f"已驳回 {len(rejected)} 条候选 · Rejected {len(rejected)} candidates."

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
            for fact in reread:
                self.log_change(request, fact, f"审核队列：新建指标 {metric.code}，别名「{data['text']}」")  # type: ignore[attr-defined]
            return (
                f"已新建指标「{metric.name}」（{metric.code}，{metric.unit_id}），以「{data['text']}」为别名；"
                f"{len(reread)} 条候选已取得该指标，待批准 · Metric {metric.code} created; "
                f"{len(reread)} waiting candidates now have it and wait for approval."
            )

        return self._act(request, act)

    def _change_allowed(self, request: HttpRequest) -> None:
        if not self.has_change_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied

    def _act(self, request: HttpRequest, act: Any) -> HttpResponse:
        """Run one action and its log entries in one transaction: a refused action writes nothing."""
        try:
            with transaction.atomic():
                said = act()
        except ValidationError as error:
            messages.error(request, "；".join(error.messages))
        except IntegrityError:
            # Another curator changed the key between the check and the write.
            messages.error(request, "该键刚被他人更改，请刷新后重试 · The key changed meanwhile; reload and try again.")
        else:
            messages.success(request, said)
        return self._back(request)

    def _form_refused(self, request: HttpRequest, form: forms.Form) -> HttpResponse:
        for name, problems in form.errors.items():
            label = form.fields[name].label if name in form.fields else ""
            for problem in problems:
                messages.error(request, f"{label}: {problem}" if label else problem)
        return self._back(request)

    def _back(self, request: HttpRequest) -> HttpResponse:
        back = request.POST.get("back", "").replace("\n", "").replace("\r", "")
        url = reverse("admin:facts_factmetric_review")
        return HttpResponseRedirect(f"{url}?{back}" if back else url)


def _group_key(fact: FactMetric) -> tuple[Any, ...]:
    label = fact.suggested_alias if fact.metric_id is None else ""
    return (fact.entity_id, fact.metric_id, label, fact.period_type, fact.period, fact.channel_id)


def _label_waits(facts: list[FactMetric]) -> bool:
    """A group whose metric is the reader's guess for a label it did not know."""
    return any(f.suggested_alias and "label" in reason_kinds(f.review_note) for f in facts)


def _candidate_shown(fact: FactMetric, own_note: str) -> dict[str, Any]:
    return {
        "fact": fact,
        "statement": "母公司 · parent" if PARENT_STATEMENT in fact.review_note else "合并 · consolidated",
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
