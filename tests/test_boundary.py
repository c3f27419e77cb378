"""Only the UI imports streamlit: the core runs, and is tested, without it."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_nothing_outside_the_ui_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "nemori_ui").rglob("*.py")
                 if "ui" not in p.relative_to(ROOT / "nemori_ui").parts[:1]
                 and "streamlit" in imported_modules(p)]
    assert offenders == []


def test_the_core_and_command_line_load_without_streamlit():
    # a meta-path finder that refuses streamlit: importing the core must not need it
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'streamlit': raise ImportError('streamlit is UI-only')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import pkgutil, importlib, nemori_ui.core, nemori_ui.cli\n"
        "for pkg in (nemori_ui.core, nemori_ui.cli):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_the_check_would_catch_a_leak(tmp_path):
    leak = tmp_path / "leak.py"
    leak.write_text("from streamlit import session_state\n")
    assert "streamlit" in imported_modules(leak)
