"""The admin in one language at a time. The project's catalogue never overrides a word of Django's
own (a bare msgid such as "Change" translated for a table column would rename every admin "Change"
link): a word that means something else here carries a context (`pgettext`). And the admin's index
shows the product's title, in English with no Chinese, in Chinese with Django's own words."""

from __future__ import annotations

import re
from pathlib import Path

import django
import polib
import pytest
from django.test import Client

from tests.factories import curator_make

ROOT = Path(__file__).resolve().parents[1]
DJANGO = Path(django.__file__).resolve().parent
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _django_catalogue(language: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in (
        *DJANGO.glob(f"conf/locale/{language}/LC_MESSAGES/django.po"),
        *DJANGO.glob(f"contrib/*/locale/{language}/LC_MESSAGES/django.po"),
    ):
        for entry in polib.pofile(str(path)):
            if entry.msgctxt is None and entry.msgstr:
                found.setdefault(entry.msgid, entry.msgstr)
    return found


@pytest.mark.parametrize("language", ["zh_Hans", "en"])
def test_the_catalogue_overrides_no_word_of_djangos_own(language: str) -> None:
    django_words = _django_catalogue(language)
    ours = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
    overrides = sorted(
        f"{entry.msgid!r}: {entry.msgstr!r} (Django: {django_words[entry.msgid]!r})"
        for entry in ours
        if entry.msgctxt is None
        and entry.msgid in django_words
        and entry.msgstr
        and entry.msgstr != django_words[entry.msgid]
    )
    assert overrides == []


def _index(language: str) -> str:
    browser = Client(headers={"accept-language": language})
    browser.force_login(curator_make(f"lead_{language}"))
    response = browser.get("/admin/", headers={"accept-language": language})
    assert response.status_code == 200
    return response.content.decode()


def _visible(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.django_db
def test_the_admin_index_in_english_shows_no_chinese_and_the_products_title(demo) -> None:
    page = _visible(_index("en"))
    assert "RAGSpine" in page and "Django administration" not in page
    assert CJK.findall(page) == [], sorted(set(re.findall(r"\S*[\u4e00-\u9fff]\S*", page)))


@pytest.mark.django_db
def test_the_admin_index_in_chinese_keeps_djangos_words_for_its_links(demo) -> None:
    html = _index("zh-hans")
    page = _visible(html)
    assert "RAGSpine" in page and "Django 管理" not in page
    assert "变动额" not in page and "修改" in page  # every change link is Django's own word
