"""Every UI string marked for translation has its Chinese and its English in the checked-in
catalogues: a `{% translate %}` added without a translation fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_TEMPLATE = re.compile(r'{%\s*translate\s+"([^"]+)"|_\("([^"]+)"\)')
_BLOCK = re.compile(r"{%\s*blocktranslate[^%]*%}(.*?){%\s*endblocktranslate\s*%}", re.S)
_PYTHON = re.compile(r'\bgettext(?:_lazy)?\(\s*"([^"]+)"\s*\)')


def _marked() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        found |= {a or b for a, b in _TEMPLATE.findall(text)}
        found |= {re.sub(r"{{\s*(\w+)\s*}}", r"%(\1)s", block) for block in _BLOCK.findall(text)}
    for app in ("agent", "documents", "facts"):
        for path in (ROOT / app).rglob("*.py"):
            found |= set(_PYTHON.findall(path.read_text(encoding="utf-8")))
    return found


def _catalogue(language: str) -> dict[str, str]:
    text = (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    entries = {}
    for block in text.split("\n\n"):
        match = re.search(r'^msgid ((?:".*"\n?)+)msgstr ((?:".*"\n?)+)', block, re.M)
        if match:
            joined = ["".join(re.findall(r'"(.*)"', part)).replace('\\"', '"') for part in match.groups()]
            entries[joined[0]] = joined[1]
    return entries


@pytest.mark.parametrize("language", ["zh_Hans", "en"])
def test_every_ui_string_has_its_translation(language: str) -> None:
    catalogue = _catalogue(language)
    marked = _marked()
    assert len(marked) > 20
    missing = sorted(s for s in marked if not catalogue.get(s))
    assert missing == [], f"untranslated in locale/{language}: {missing}"
