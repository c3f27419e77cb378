"""The package's import graph: no cycle between modules, and no import that runs up a layer.

Imports are read from the source with `ast`, so one made inside a function counts as much as
one at the top of a module: a function-local import hides a cycle from Python, not from a
reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "nemori_ui"

# The core's modules and packages from the bottom up: a module may import its own layer and
# those below it. Anything not under nemori_ui.core (the UI, the command line) is on top.
LAYERS = (
    ("errors", "config", "models", "stage_events", "csv_cells", "progress", "window_spans",
     "word_diff", "counts"),
    ("store", "transcripts"),
    ("llm", "embed", "vectors"),
    ("pipeline", "episode_lines", "offline", "prompts"),
    ("deciders",),                  # the engine and the prompts behind the pipeline's protocol
    ("retrieval", "clients", "run_figures", "export", "projection", "executors", "replay"),
    ("views", "eval"),
    ("tuning",),
    ("scale",),                     # evaluation and sweep take an executor, never import Ray
    # the service: jobs (one may sweep or evaluate) and the live feed that runs as one
    ("jobs", "live", "live_input", "live_view", "presenter_banners", "run_lock"),
    # the Python API, over everything else
    ("memory_api", "memory_async", "memory_edits", "memory_input", "memory_items",
     "memory_lines", "memory_live", "memory_models", "memory_search", "memory_worker"),
)
TOP = len(LAYERS)


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            wanted = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from pkg import mod` imports the module; `from mod import name` the module
            wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                      for a in node.names]
        else:
            continue
        for target in wanted:
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                targets.add(target)
    return targets


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = module_files(package)
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["nemori_ui", "core"]:
        return TOP
    if len(parts) == 2:
        return 0                       # the core package itself
    for n, names in enumerate(LAYERS):
        if parts[2] in names:
            return n
    return None


def test_no_module_imports_itself_round_about():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(g) for g in found)


def test_every_core_module_has_a_layer():
    missing = sorted({m.split(".")[2] for m in import_graph() if layer_of(m) is None})
    assert not missing, f"add {', '.join(missing)} to LAYERS"


def test_no_import_runs_up_a_layer():
    upward = sorted(f"{a} -> {b}" for a, targets in import_graph().items() for b in targets
                    if layer_of(a) is not None and layer_of(b) is not None
                    and layer_of(b) > layer_of(a))
    assert not upward, "imports up a layer: " + "; ".join(upward)


def test_a_function_local_import_counts(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def late():\n    from .a import thing\n")
    (package / "c.py").write_text("def later():\n    import pkg.b\n")
    graph = import_graph(package)
    assert graph["pkg.c"] == {"pkg.b"}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
