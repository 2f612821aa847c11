"""The glossary (entities, metrics, channels, units, aliases), the company profile and the fact table."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from core.glossary import alias_key
from core.model.facts import SENSITIVITIES
from core.model.fx import RATE_AVERAGE, RATE_CLOSING
from core.model.period import Period
from core.model.sign import SIGN_AS_PRINTED, SIGN_POSITIVE

from .periods import period_absolute

code_validator = RegexValidator(r"^[A-Z0-9][A-Z0-9_]*$", "A code is upper-case letters, digits and _.")
currency_validator = RegexValidator(r"^[A-Z]{3}$", "A currency is an ISO 4217 code of three capitals: USD, EUR, CNY …")
PERIOD_TYPES = [("FY", "FY"), ("HY", "HY"), ("QUARTER", "QUARTER")]


class ExactDecimalField(models.Field):  # type: ignore[type-arg]
    """A decimal kept exactly as given, scale included (`96120.3` stays `96120.3`).

    Postgres stores it as unconstrained `numeric`; SQLite, which would store a DECIMAL column
    as a binary float, stores the canonical text.
    """

    description = "Exact decimal with its own scale"

    def db_type(self, connection: Any) -> str:
        return "numeric" if connection.vendor == "postgresql" else "text"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Decimal | None:
        return None if value is None else Decimal(str(value))

    def to_python(self, value: Any) -> Decimal | None:
        if value is None or isinstance(value, Decimal):
            return value
        try:
            result = Decimal(str(value).strip())
        except InvalidOperation:
            raise ValidationError(f"'{value}' is not a decimal number") from None
        if not result.is_finite():
            raise ValidationError("a value must be a finite number")
        return result

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        value = self.to_python(value)
        if value is None:
            return None
        return value if connection.vendor == "postgresql" else format(value, "f")

    def formfield(self, **kwargs: Any) -> Any:
        from django import forms

        return super().formfield(**{"form_class": forms.DecimalField, **kwargs})


class Unit(models.Model):
    code = models.CharField(
        verbose_name=pgettext_lazy("field", "code"), max_length=32, unique=True, validators=[code_validator]
    )
    name_zh = models.CharField(verbose_name=pgettext_lazy("field", "Chinese name"), max_length=32, blank=True)
    name_en = models.CharField(verbose_name=pgettext_lazy("field", "English name"), max_length=32, blank=True)

    class Meta:
        verbose_name = gettext_lazy("unit")
        verbose_name_plural = gettext_lazy("units")
        ordering = ["code"]

    def __str__(self) -> str:
        return self.code


# Every kind in `ENTITY_KINDS`, named in the admin's language.
ENTITY_KIND_CHOICES = [
    ("home", pgettext_lazy("entity kind", "home")),
    ("subsidiary", pgettext_lazy("entity kind", "subsidiary")),
    ("peer", pgettext_lazy("entity kind", "peer")),
    ("external", pgettext_lazy("entity kind", "external")),
]


class Entity(models.Model):
    code = models.CharField(
        verbose_name=pgettext_lazy("field", "code"), max_length=64, unique=True, validators=[code_validator]
    )
    name = models.CharField(verbose_name=pgettext_lazy("field", "name"), max_length=255)
    kind = models.CharField(
        verbose_name=pgettext_lazy("field", "kind"),
        max_length=12,
        choices=ENTITY_KIND_CHOICES,
        default="subsidiary",
    )
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        to_field="code",
        related_name="children",
        verbose_name=pgettext_lazy("field", "parent"),
    )
    geography = models.CharField(verbose_name=pgettext_lazy("field", "geography"), max_length=64, blank=True)
    year_end_month = models.PositiveSmallIntegerField(
        verbose_name=pgettext_lazy("field", "year-end month"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(12)],
        help_text=gettext_lazy(
            "The month the company's fiscal year ends in, 1–12 (12 for calendar years, 3 for years "
            "ending in March): its tables' dated headers are read as the fiscal year ending then, and "
            "a 52/53-week year as the fiscal year it ends in. Blank: not set; a dated column is the "
            "fiscal year that ends on that date."
        ),
    )
    currency = models.CharField(
        verbose_name=pgettext_lazy("field", "currency"),
        max_length=3,
        blank=True,
        validators=[currency_validator],
        help_text=gettext_lazy(
            "The company's reporting currency, an ISO 4217 code of three capitals (USD, EUR, CNY, "
            "TWD …): what a bare $ in its tables means. Blank: not set."
        ),
    )

    class Meta:
        verbose_name = gettext_lazy("entity")
        verbose_name_plural = gettext_lazy("entities")
        ordering = ["code"]
        constraints = [
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="home"), name="one_home_entity"),
            models.CheckConstraint(
                condition=Q(year_end_month__isnull=True) | Q(year_end_month__gte=1, year_end_month__lte=12),
                name="entity_year_end_month_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Metric(models.Model):
    code = models.CharField(
        verbose_name=pgettext_lazy("field", "code"), max_length=64, unique=True, validators=[code_validator]
    )
    name = models.CharField(verbose_name=pgettext_lazy("field", "name"), max_length=255)
    unit = models.ForeignKey(
        Unit,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="unit_code",
        verbose_name=pgettext_lazy("field", "unit"),
    )
    description = models.TextField(verbose_name=pgettext_lazy("field", "description"), blank=True)
    formula = models.TextField(
        verbose_name=pgettext_lazy("field", "formula"),
        blank=True,
        help_text=gettext_lazy(
            "Blank for a stored metric. Otherwise an expression over metric codes with + - * /, "
            "parentheses and decimal constants, e.g. OPERATING_PROFIT / REVENUE; it may use other "
            "formula metrics. A PCT metric's formula gives a fraction, shown × 100 with %. "
            "A stored fact for the same key wins over the formula."
        ),
    )
    aggregation = models.CharField(
        verbose_name=pgettext_lazy("field", "aggregation"),
        max_length=8,
        blank=True,
        choices=[
            ("sum", gettext_lazy("sum (a flow: revenue, profit)")),
            ("end", gettext_lazy("end (a value at a date)")),
            ("none", gettext_lazy("none (a ratio)")),
        ],
        help_text=gettext_lazy(
            "How the metric adds up over periods: sum for flows, end for balances and counts at a date, "
            "none for ratios and margins. Blank: from the unit (PCT → none, else sum)."
        ),
    )
    sign = models.CharField(
        verbose_name=pgettext_lazy("field", "sign convention"),
        max_length=10,
        choices=[
            (SIGN_AS_PRINTED, gettext_lazy("as printed (the value as the statement prints it)")),
            (SIGN_POSITIVE, gettext_lazy("positive (the amount: an outflow such as capex or dividends paid)")),
        ],
        default=SIGN_AS_PRINTED,
        help_text=gettext_lazy(
            "How a fact of this metric stores the figure a report prints. As printed: (1,577) is stored "
            "as -1577. Positive: the amount, 1577, whether the report prints (1,577) or 1,577; the "
            "printed figure stays in the fact's lineage. Changing it converts this metric's facts at "
            "once, from their printed figures."
        ),
    )

    class Meta:
        verbose_name = gettext_lazy("metric")
        verbose_name_plural = gettext_lazy("metrics")
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Channel(models.Model):
    code = models.CharField(
        verbose_name=pgettext_lazy("field", "code"), max_length=64, unique=True, validators=[code_validator]
    )
    name = models.CharField(verbose_name=pgettext_lazy("field", "name"), max_length=255)

    class Meta:
        verbose_name = gettext_lazy("channel")
        verbose_name_plural = gettext_lazy("channels")
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Alias(models.Model):
    """Another way of naming an entity, a metric or a channel. Exactly one target is set."""

    class Kind(models.TextChoices):
        ENTITY = "entity", pgettext_lazy("alias kind", "entity")
        METRIC = "metric", pgettext_lazy("alias kind", "metric")
        CHANNEL = "channel", pgettext_lazy("alias kind", "channel")

    kind = models.CharField(verbose_name=pgettext_lazy("field", "kind"), max_length=8, choices=Kind.choices)
    text = models.CharField(verbose_name=pgettext_lazy("field", "text"), max_length=255)
    key = models.CharField(max_length=255, unique=True, editable=False)
    entity = models.ForeignKey(
        Entity,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="aliases",
        verbose_name=pgettext_lazy("field", "entity"),
    )
    metric = models.ForeignKey(
        Metric,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="aliases",
        verbose_name=pgettext_lazy("field", "metric"),
    )
    channel = models.ForeignKey(
        Channel,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="aliases",
        verbose_name=pgettext_lazy("field", "channel"),
    )
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "created at"), auto_now_add=True)

    class Meta:
        verbose_name = gettext_lazy("alias")
        verbose_name_plural = gettext_lazy("aliases")
        ordering = ["kind", "text"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="entity", entity__isnull=False, metric__isnull=True, channel__isnull=True)
                    | Q(kind="metric", metric__isnull=False, entity__isnull=True, channel__isnull=True)
                    | Q(kind="channel", channel__isnull=False, entity__isnull=True, metric__isnull=True)
                ),
                name="alias_has_one_target",
            )
        ]

    @property
    def target_code(self) -> str:
        target = self.entity or self.metric or self.channel
        return target.code if target else ""

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.key = alias_key(self.text)
        if self.entity_id:
            self.kind = self.Kind.ENTITY
        elif self.metric_id:
            self.kind = self.Kind.METRIC
        elif self.channel_id:
            self.kind = self.Kind.CHANNEL
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # Whether the text already names something else is the glossary's question, asked by
        # `facts.services.alias_conflict` (in `alias_create` and the admin form).
        if len([t for t in (self.entity, self.metric, self.channel) if t is not None]) != 1:
            raise ValidationError("An alias names exactly one entity, metric or channel.")

    def __str__(self) -> str:
        return f"{self.text} → {self.target_code}"


class CompanyProfile(models.Model):
    """The one company this deployment serves."""

    home_company_name = models.CharField(verbose_name=pgettext_lazy("field", "home company name"), max_length=255)

    class Meta:
        verbose_name = gettext_lazy("company profile")
        verbose_name_plural = gettext_lazy("company profiles")

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return self.home_company_name


class GlossaryState(models.Model):
    """A version stamp: bumped on every glossary change so every process reloads its automaton.

    `token` changes with every bump, so a rolled-back change can never leave a cache that
    matches a later, different glossary with the same version number.
    """

    version = models.PositiveBigIntegerField(default=0)
    token = models.CharField(max_length=32, default="")


class FactsStamp(models.Model):
    """What the facts read at this moment are: a token the database itself changes on every
    write of a fact and on every change of a document's level (triggers, `0021_facts_stamp`),
    whatever wrote it: the ORM, raw SQL, an import or another process. A reader that reads the
    token in the statement that reads the facts can keep what it derived from them, and use it
    while the token stands (`facts.changes`). A rolled-back write leaves the token it replaced,
    with the facts it replaced; no write ever sets a token that was set before (random)."""

    token = models.CharField(max_length=32)

    class Meta:
        default_permissions = ()  # written by the database's triggers only: nobody edits it


class FactMetric(models.Model):
    class Review(models.TextChoices):
        APPROVED = "approved", pgettext_lazy("review status", "approved")
        PENDING = "pending", pgettext_lazy("review status", "pending")
        REJECTED = "rejected", pgettext_lazy("review status", "rejected")

    # A fact is as sensitive as the stricter of its own level and its document's (a fact imported
    # with no document: its own). Reads derive it (`facts.selectors.facts_visible`); it is never
    # copied onto the row, so raising a document's level takes its facts along at once.
    SENSITIVITY_LOOKUPS = ("sensitivity", "document__sensitivity")

    # Index diet: the approved natural-key index leads with entity_code, so entity and
    # entity+metric filters of approved rows use it; pending rows and document links get partial
    # indexes. Every index costs
    # time on a million-row import.
    # Pending rows (from an ingested table whose label the glossary does not know) may lack a
    # metric or an entity; an approved row never does (see the check constraint).
    metric = models.ForeignKey(
        Metric,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="metric_code",
        db_index=False,
        null=True,
        blank=True,
        verbose_name=pgettext_lazy("field", "metric"),
    )
    entity = models.ForeignKey(
        Entity,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="entity_code",
        db_index=False,
        null=True,
        blank=True,
        verbose_name=pgettext_lazy("field", "entity"),
    )
    period_type = models.CharField(
        verbose_name=pgettext_lazy("field", "period type"), max_length=8, choices=PERIOD_TYPES
    )
    period = models.CharField(verbose_name=pgettext_lazy("field", "period"), max_length=8)
    channel = models.ForeignKey(
        Channel,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="channel_code",
        default="TOTAL",
        db_index=False,
        verbose_name=pgettext_lazy("field", "channel"),
    )
    value = ExactDecimalField(verbose_name=pgettext_lazy("field", "value"))
    # Lineage of the sign: the figure as the report printed it, kept when the metric's sign
    # convention stores another value (a `positive` metric stores `(1,577)` as 1577); null when
    # `value` is the printed figure.
    printed_value = ExactDecimalField(
        verbose_name=pgettext_lazy("field", "printed value"),
        null=True,
        blank=True,
        help_text=gettext_lazy(
            "The figure as the report printed it, when the metric's sign convention stores the amount."
        ),
    )
    unit = models.ForeignKey(
        Unit,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="unit_code",
        db_index=False,
        null=True,
        blank=True,
        verbose_name=pgettext_lazy("field", "unit"),
    )
    source_doc = models.CharField(verbose_name=pgettext_lazy("field", "source document"), max_length=255)
    locator = models.CharField(verbose_name=pgettext_lazy("field", "locator"), max_length=255)
    document = models.ForeignKey(
        "documents.Document",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="facts",
        db_index=False,
        verbose_name=pgettext_lazy("field", "document"),
    )
    valid_as_of = models.DateField(verbose_name=pgettext_lazy("field", "valid as of"), null=True, blank=True)
    sensitivity = models.CharField(
        verbose_name=pgettext_lazy("field", "sensitivity"),
        max_length=12,
        choices=[(s, s) for s in SENSITIVITIES],
        default="INTERNAL",
    )
    review_status = models.CharField(
        verbose_name=pgettext_lazy("field", "review status"),
        max_length=10,
        choices=Review.choices,
        default=Review.APPROVED,
    )
    suggested_alias = models.CharField(
        verbose_name=pgettext_lazy("field", "suggested alias"), max_length=255, blank=True
    )
    review_note = models.CharField(
        verbose_name=pgettext_lazy("field", "review note"),
        max_length=255,
        blank=True,
        help_text=gettext_lazy("Why the row waits for review."),
    )
    # A curator approved or rejected the row (`facts_review`): re-ingesting its document keeps
    # the decision while the same cell gives the same value.
    reviewed = models.BooleanField(default=False, db_default=False)  # raw-SQL imports leave it out
    ingested_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "ingested at"), auto_now=True)

    class Meta:
        verbose_name = gettext_lazy("fact")
        verbose_name_plural = gettext_lazy("facts")
        ordering = ["entity_id", "metric_id", "period_type", "period", "channel_id"]
        constraints = [
            # One approved fact per key answers questions; pending and rejected rows may share
            # a key (two sources that disagree both wait in the review queue, neither dropped).
            # The partial index also serves every question's read, which filters approved rows.
            models.UniqueConstraint(
                fields=["entity", "metric", "period_type", "period", "channel"],
                condition=Q(review_status="approved"),
                name="fact_approved_key",
            ),
            models.CheckConstraint(
                condition=~Q(review_status="approved")
                | Q(metric__isnull=False, entity__isnull=False, unit__isnull=False),
                name="fact_approved_is_complete",
            ),
        ]
        indexes = [
            models.Index(fields=["review_status"], name="fact_review_idx", condition=~Q(review_status="approved")),
            models.Index(fields=["document"], name="fact_document_idx", condition=Q(document__isnull=False)),
            # One metric's figures across entities (a ranking, a sum): the natural key leads with
            # the entity, which such a read does not fix.
            # It covers every column such a read filters or returns (the unit and the document,
            # whose level a figure takes, included), so no table row is visited. The review
            # status comes before the entity, so that approved figures (or one key's pending
            # candidates) are one run of the index: after an unfixed entity, PostgreSQL would
            # cost it as a skip scan over every entity and pick another index.
            models.Index(
                fields=[
                    "metric",
                    "period_type",
                    "period",
                    "channel",
                    "review_status",
                    "entity",
                    "sensitivity",
                    "value",
                    "unit",
                    "document",
                ],
                name="fact_metric_key_idx",
            ),
        ]
        permissions = [("can_view_restricted", "Can view RESTRICTED facts, chunks, documents and FAQ items")]

    @property
    def period_label(self) -> str:
        return f"FY{self.period}" if self.period_type == "FY" else self.period

    def clean(self) -> None:
        """An approved fact is complete and the only approved one of its key: said here, before
        the database's constraints (`fact_approved_is_complete`, `fact_approved_key`) refuse it."""
        if self.review_status != self.Review.APPROVED:
            return
        missing = [name for name in ("metric", "entity", "unit") if getattr(self, f"{name}_id") is None]
        if missing:
            raise ValidationError({"review_status": " ".join(self._lacking(name) for name in missing)})
        key = ("entity_id", "metric_id", "period_type", "period", "channel_id")
        holder = (
            FactMetric.objects.filter(review_status=self.Review.APPROVED, **{f: getattr(self, f) for f in key})
            .exclude(pk=self.pk)
            .first()
        )
        if holder is not None:
            said = gettext(
                "Cannot approve: %(key)s already has an approved fact: %(value)s %(unit)s from %(source)s %(place)s. "
                "Reject the one that is wrong, then approve the other."
            )
            key_said = f"{self.entity_id} {self.metric_id} {self.period_label} {self.channel_id}"
            place = {
                "value": holder.value,
                "unit": holder.unit_id,
                "source": holder.source_doc,
                "place": holder.locator,
            }
            raise ValidationError({"review_status": said % {"key": key_said, **place}})

    def _lacking(self, part: str) -> str:
        """Why a fact without `part` cannot be approved, and what to do."""
        if part == "entity":
            return gettext(
                "Cannot approve: the fact has no company. Create its company from its document's page "
                "(the review queue offers it when the report names one), or reject the fact."
            )
        if part == "metric":
            return gettext(
                "Cannot approve: the fact has no metric. Give its row label '%(label)s' a metric in the review "
                "queue, or reject the fact."
            ) % {"label": self.suggested_alias or "?"}
        return gettext("Cannot approve: the fact has no unit. Correct it in the review queue, or reject the fact.")

    def __str__(self) -> str:
        return f"{self.entity_id} {self.metric_id} {self.period_label} {self.channel_id} = {self.value}"


class FactDispute(models.Model):
    """An analyst's "this figure is wrong": a note on one fact, waiting in the curator's
    review queue beside it until a curator settles it: corrects the figure, confirms it or
    rejects the fact (`facts.services.disputes.disputes_settle`). `resolved` is an older
    outcome that says none of the three (the dispute list's bulk action)."""

    # A dispute is as sensitive as its fact, which is as sensitive as its document.
    SENSITIVITY_LOOKUPS = ("fact__sensitivity", "fact__document__sensitivity")

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("dispute status", "open")
        RESOLVED = "resolved", pgettext_lazy("dispute status", "resolved")
        CORRECTED = "corrected", pgettext_lazy("dispute status", "corrected")
        CONFIRMED = "confirmed", pgettext_lazy("dispute status", "confirmed")
        REJECTED = "rejected", pgettext_lazy("dispute status", "rejected")

    fact = models.ForeignKey(
        FactMetric, on_delete=models.CASCADE, related_name="disputes", verbose_name=pgettext_lazy("field", "fact")
    )
    note = models.TextField(verbose_name=pgettext_lazy("field", "note"), max_length=2000)
    status = models.CharField(
        verbose_name=pgettext_lazy("field", "status"),
        max_length=10,
        choices=Status.choices,
        default=Status.OPEN,
        db_index=True,
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=pgettext_lazy("field", "filed by"),
    )
    created_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "filed at"), auto_now_add=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=pgettext_lazy("field", "resolved by"),
    )
    resolved_at = models.DateTimeField(verbose_name=pgettext_lazy("field", "resolved at"), null=True, blank=True)
    resolution = models.CharField(verbose_name=pgettext_lazy("field", "resolution"), max_length=255, blank=True)
    # The figure as it stood when the dispute was settled, and the one a correction gave it: the
    # analyst is told both, whatever the fact says later.
    value_disputed = ExactDecimalField(verbose_name=pgettext_lazy("field", "disputed value"), null=True, blank=True)
    value_corrected = ExactDecimalField(verbose_name=pgettext_lazy("field", "corrected value"), null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("dispute")
        verbose_name_plural = gettext_lazy("disputes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"dispute on fact {self.fact_id} ({self.status})"


class FxRate(models.Model):
    """A curated exchange rate: 1 `base_currency` is worth `rate` `quote_currency` over one period
    (USD/CNY 7.1). A currency asked is converted only with one of these (SPEC §5a): the average
    rate for a flow, the closing rate for a balance. One pair is stored in one direction per rate
    type and period; its inverse is derived (`core.engine.fx.fx_convert`), never stored beside it,
    so the two directions cannot disagree."""

    class RateType(models.TextChoices):
        AVERAGE = RATE_AVERAGE, gettext_lazy("average (for flows: revenue, profit)")
        CLOSING = RATE_CLOSING, gettext_lazy("closing (for balances: assets, debt)")

    base_currency = models.CharField(
        gettext_lazy("base currency"),
        max_length=3,
        validators=[currency_validator],
        help_text=gettext_lazy("The currency of which one unit is priced: USD in USD/CNY 7.1."),
    )
    quote_currency = models.CharField(
        gettext_lazy("quote currency"),
        max_length=3,
        validators=[currency_validator],
        help_text=gettext_lazy("The currency the rate is in: CNY in USD/CNY 7.1."),
    )
    # Positive is checked in `clean`, not by the database: SQLite keeps the value as text, which
    # a CHECK would compare as text.
    rate = ExactDecimalField(
        gettext_lazy("rate"), help_text=gettext_lazy("How many quote currency units one base unit is worth.")
    )
    rate_type = models.CharField(gettext_lazy("rate type"), max_length=8, choices=RateType.choices)
    period_type = models.CharField(gettext_lazy("period type"), max_length=8, choices=PERIOD_TYPES)
    period = models.CharField(gettext_lazy("period"), max_length=8)
    as_of = models.DateField(
        gettext_lazy("as of"),
        null=True,
        blank=True,
        help_text=gettext_lazy("The date the rate was fixed or published, if known."),
    )
    source = models.CharField(
        gettext_lazy("source"), max_length=255, help_text=gettext_lazy("Where the rate comes from.")
    )
    updated_at = models.DateTimeField(gettext_lazy("updated"), auto_now=True)

    class Meta:
        verbose_name = gettext_lazy("FX rate")
        verbose_name_plural = gettext_lazy("FX rates")
        ordering = ["base_currency", "quote_currency", "rate_type", "period_type", "period"]
        constraints = [
            models.UniqueConstraint(
                fields=["base_currency", "quote_currency", "rate_type", "period_type", "period"], name="fx_rate_key"
            ),
            models.CheckConstraint(condition=~Q(base_currency=F("quote_currency")), name="fx_rate_two_currencies"),
        ]

    @property
    def period_label(self) -> str:
        return Period(self.period_type, self.period).label

    @property
    def pair(self) -> str:
        return f"{self.base_currency}/{self.quote_currency}"

    def clean(self) -> None:
        """A positive rate between two currencies, for a period the fact table could hold, and
        the only rate of its pair (either direction), type and period: said here, before the
        database's constraints (`fx_rate_key`, `fx_rate_two_currencies`) refuse it."""
        errors: dict[str, str] = {}
        if isinstance(self.rate, Decimal) and self.rate <= 0:
            errors["rate"] = f"A rate is positive, not {self.rate}."
        if self.base_currency and self.base_currency == self.quote_currency:
            errors["quote_currency"] = f"A rate converts {self.base_currency} into another currency, not itself."
        if (
            self.period_type
            and self.period
            and period_absolute(self.period_label) != Period(self.period_type, self.period)
        ):
            errors["period"] = (
                f"'{self.period}' is not a {self.period_type} period (FY 2025, HY 2025H1, QUARTER 2025Q4)."
            )
        if errors:
            raise ValidationError(errors)
        same = {"rate_type": self.rate_type, "period_type": self.period_type, "period": self.period}
        held = (
            FxRate.objects.filter(
                Q(base_currency=self.base_currency, quote_currency=self.quote_currency)
                | Q(base_currency=self.quote_currency, quote_currency=self.base_currency),
                **same,
            )
            .exclude(pk=self.pk)
            .first()
        )
        if held is not None:
            inverse = "" if held.pair == self.pair else f" ({self.pair} is its inverse, derived from it)"
            raise ValidationError(
                f"{held.pair} already holds the {held.rate_type} rate for {held.period_label}: {held.rate} "
                f"from {held.source}{inverse}. Change that one."
            )

    def __str__(self) -> str:
        return f"{self.pair} {self.rate_type} {self.period_label} = {self.rate}"
