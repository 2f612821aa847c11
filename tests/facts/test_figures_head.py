"""`figures_head` finds the head of one metric's figures across entities in the database, with
the count, units and strictest level of the whole field: the same as reading every figure
(`figures_get`) and cutting it, for short and long entity lists, ties, clearance, a document's
level, missing entities, and an entity written while a long list is read."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.engine import sensitivity_max
from core.model.facts import INTERNAL, RESTRICTED
from core.model.period import Period
from facts import figures as figures_module
from facts import selectors
from facts.models import Entity, FactMetric
from tests.factories import document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

FY2025 = Period("FY", "2025")


def figures(codes: list[str], values: list[str], *, unit: str = "CNY_M", **fields: object) -> None:
    FactMetric.objects.bulk_create(
        [
            FactMetric(
                entity_id=code,
                metric_id="REVENUE",
                period_type="FY",
                period="2025",
                channel_id="TOTAL",
                value=Decimal(value),
                unit_id=unit,
                source_doc="head.csv",
                locator=f"row={i}",
                **fields,
            )
            for i, (code, value) in enumerate(zip(codes, values, strict=True))
        ]
    )


@pytest.fixture
def field(db: object) -> list[str]:
    """700 subsidiaries' revenue (a long list), with ten tied at the 10th place, one RESTRICTED
    figure near the top, one figure in a RESTRICTED document, five entities without a figure,
    and a figure of an entity outside the list (the parent) above all of them."""
    metric_make()
    entity_make("HOME", "集团", kind="home")
    codes = [f"SUB{i:04d}" for i in range(700)]
    Entity.objects.bulk_create([Entity(code=c, name=c, kind="subsidiary", parent_id="HOME") for c in codes])
    values = [str(1000 + (i * 37) % 4000) + ".5" for i in range(695)]
    values[:9] = [str(9000 - i) for i in range(9)]
    values[9:19] = ["8000.25"] * 10
    figures(codes[:695], values)
    FactMetric.objects.filter(entity_id="SUB0002").update(sensitivity=RESTRICTED)
    secret = document_make("board_pack.xlsx", sensitivity=RESTRICTED)
    FactMetric.objects.filter(entity_id="SUB0030").update(document=secret, value=Decimal("8500"))
    figures(["HOME"], ["99999"])
    return codes


def cut(rows: list, top: int) -> tuple[set[str], str | None]:
    """What a ranking takes from a field read whole: every entity at or better than the `top`-th
    (ties as doubles included), and the first value after them."""
    boundary = float(Decimal(str(rows[top - 1][1])))
    end = next((i for i in range(top, len(rows)) if float(Decimal(str(rows[i][1]))) != boundary), len(rows))
    return {row[0] for row in rows[:end]}, str(Decimal(str(rows[end][1]))) if end < len(rows) else None


@pytest.mark.parametrize("size", [700, 300])  # a long list (said by the entities left out), a short one
@pytest.mark.parametrize("top", [1, 3, 10, 12])
def test_the_head_and_the_totals_are_those_of_every_figure(field: list[str], size: int, top: int) -> None:
    entities = field[:size]
    for cleared in (False, True):
        for order in ("desc", "asc"):
            rows = selectors.figures_get("REVENUE", entities, FY2025, "TOTAL", cleared=cleared, order=order)
            head = selectors.figures_head("REVENUE", entities, FY2025, "TOTAL", cleared=cleared, order=order, top=top)
            assert head is not None
            assert head.count == len(rows)
            assert head.units == {"CNY_M"}
            assert head.sensitivity == sensitivity_max(row[2] for row in rows)
            leaders, following = cut(rows, top)
            assert cut(list(head.rows), top) == (leaders, following)
            assert len(head.rows) == len(leaders) + (following is not None)
            found = {row[0] for row in rows}
            assert head.found == (found if len(found) < len(entities) else None)
            assert "HOME" not in {row[0] for row in head.rows}
            by_entity = {row[0]: (Decimal(str(row[1])), row[2], row[3]) for row in rows}
            assert all(by_entity[row[0]] == (Decimal(str(row[1])), row[2], row[3]) for row in head.rows)


def test_a_document_raises_the_level_and_clearance_hides_what_it_must(field: list[str]) -> None:
    uncleared = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=False, order="desc", top=10)
    cleared = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=10)
    assert uncleared.count == 693 and cleared.count == 695
    assert (uncleared.sensitivity, cleared.sensitivity) == (INTERNAL, RESTRICTED)
    assert {"SUB0002", "SUB0030"} <= {row[0] for row in cleared.rows}
    assert not {"SUB0002", "SUB0030"} & {row[0] for row in uncleared.rows}
    assert dict((row[0], row[2]) for row in cleared.rows)["SUB0030"] == RESTRICTED


def test_mixed_units_and_an_empty_field_are_told(field: list[str]) -> None:
    FactMetric.objects.filter(entity_id="SUB0100").update(unit_id="PCT")
    head = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=10)
    assert head.units == {"CNY_M", "PCT"}
    empty = selectors.figures_head("REVENUE", field, Period("FY", "2019"), "TOTAL", cleared=True, order="desc", top=10)
    assert (empty.count, empty.rows, empty.found, empty.units) == (0, (), frozenset(), frozenset())


def test_an_entity_written_after_the_codes_were_read_is_not_counted_in(field: list[str]) -> None:
    before = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=10)
    # A bulk insert sends no signal and bumps no glossary version: the entity table's stamp moves.
    Entity.objects.bulk_create([Entity(code="NEWCO", name="NEWCO", kind="subsidiary")])
    figures(["NEWCO"], ["123456"])
    after = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=10)
    assert after == before
    assert "NEWCO" in figures_module._entity_codes(fresh=False)[1]  # the codes were read again


def test_a_long_list_that_leaves_out_many_entities_is_read_figure_by_figure(field: list[str]) -> None:
    Entity.objects.bulk_create([Entity(code=f"OTHER{i:04d}", name=f"O{i}", kind="subsidiary") for i in range(600)])
    assert selectors.figures_head("REVENUE", field[:550], FY2025, "TOTAL", cleared=True, order="desc", top=10) is None


def test_bad_arguments_are_refused(field: list[str]) -> None:
    with pytest.raises(ValueError, match="order"):
        selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="up", top=10)
    with pytest.raises(ValueError, match="top"):
        selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=0)


def test_codes_remembered_from_another_database_state_are_read_again(
    field: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = frozenset(f"GONE{i:04d}" for i in range(600))  # as if read before these entities existed
    monkeypatch.setattr(figures_module, "_known", ("0:/600/600", stale))
    head = selectors.figures_head("REVENUE", field, FY2025, "TOTAL", cleared=True, order="desc", top=10)
    assert head is not None and head.count == 695
    assert figures_module._known[1] >= set(field)
