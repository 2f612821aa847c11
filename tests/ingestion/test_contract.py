"""`ingestion` is Django-free: it imports, module by module, with Django unavailable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ingestion_imports_with_django_unavailable() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "for name in ('django', 'rest_framework', 'facts', 'documents', 'faq'):\n"
        "    sys.modules[name] = None\n"
        "import ingestion\n"
        "for m in pkgutil.iter_modules(ingestion.__path__): importlib.import_module('ingestion.' + m.name)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
