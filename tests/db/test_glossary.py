from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from facts.models import Alias, CompanyProfile, Entity
from facts.selectors import glossary_snapshot

pytestmark = pytest.mark.django_db

HEADER = "kind,code,name,alias,unit,entity_kind,parent\n"


def test_demo_glossary_loads_with_one_home_entity(demo) -> None:
    glossary = glossary_snapshot()
    assert glossary.home_entity == "ACME_GROUP"
    assert CompanyProfile.objects.get().home_company_name == "ACME集团"
    assert Entity.objects.get(code="ACME_CN").parent_id == "ACME_GROUP"
    assert glossary.resolve("entity", "mainland China") == "ACME_CN"


def test_an_alias_pointing_at_two_codes_aborts_the_import(demo, tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text(
        HEADER + "entity,ACME_TW,ACME台湾,台湾,,subsidiary,ACME_GROUP\n"
        "entity,ACME_TW,ACME台湾,香港,,subsidiary,ACME_GROUP\n",
        encoding="utf-8",
    )
    before = Alias.objects.count()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_glossary", str(path), stdout=StringIO(), stderr=err)
    assert "already points at entity ACME_HK" in err.getvalue()
    assert Alias.objects.count() == before and not Entity.objects.filter(code="ACME_TW").exists()


def test_a_second_home_entity_is_refused(demo, tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text(HEADER + "entity,OTHER_HOME,另一家,另一家,,home,\n", encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_glossary", str(path), stdout=StringIO(), stderr=err)
    assert "only one home entity" in err.getvalue()


def test_unknown_units_are_created_with_the_code_as_name(demo, tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text(HEADER + "metric,STORE_AREA,门店面积,门店面积,SQM,,\n", encoding="utf-8")
    call_command("import_glossary", str(path), stdout=StringIO())
    assert glossary_snapshot().units["SQM"].name_zh == "SQM"


def test_a_glossary_change_takes_effect_on_the_next_question(demo, analyst: APIClient) -> None:
    before = analyst.post("/v1/ask", {"question": "港区2025年营收是多少"}, format="json").json()
    assert before["intent"]["entity"] is None
    Alias.objects.create(text="港区", entity=Entity.objects.get(code="ACME_HK"))
    after = analyst.post("/v1/ask", {"question": "港区2025年营收是多少"}, format="json").json()
    assert after["intent"]["entity"] == "ACME_HK" and after["facts"][0]["value"] == "24015.8"
    Alias.objects.get(text="港区").delete()
    gone = analyst.post("/v1/ask", {"question": "港区2025年营收是多少"}, format="json").json()
    assert gone["intent"]["entity"] is None


def test_a_new_competitor_is_refused_on_the_next_question(demo, analyst: APIClient) -> None:
    Entity.objects.create(code="EXT_NEW", name="新锐零售", kind="external")
    body = analyst.post("/v1/ask", {"question": "新锐零售的营收是多少"}, format="json").json()
    assert body["clarification"]["mode"] == "out_of_scope_entity"
