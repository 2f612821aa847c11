"""The core imports no Django: checked by import-linter and by importing it blind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contract_is_kept() -> None:
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_core_imports_with_django_unavailable() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "sys.modules['django'] = None\n"
        "import core\n"
        "for m in pkgutil.iter_modules(core.__path__): importlib.import_module('core.' + m.name)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
