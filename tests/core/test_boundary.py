"""The core never imports Textual or the app: proved in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys


def test_core_imports_no_textual() -> None:
    code = (
        "import sys, pkgutil, importlib, flipgate.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'flipgate.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "import flipgate.cli\n"
        "bad = [m for m in sys.modules if m.startswith(('textual', 'flipgate.tui'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
