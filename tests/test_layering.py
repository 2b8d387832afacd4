"""The import graph follows the layers in the architecture: nothing imports upward, nothing circles.

infra (standard library only) -> text -> retrieval -> stores (memory, lessons) -> features
(render, model, evaluation, enrich, learning, install, ui, mcp) -> worker -> hooks -> cli. Every import counts:
at module level or inside a function, absolute or relative, and ``__import__`` /
``importlib.import_module`` calls with a literal (or f-string) module name. chromadb is
imported only inside functions of its one home. The hooks' fast path (the dispatcher and every
event module, with what they import at module level) reaches the standard library only.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kioku"
LAYERS = {
    "__init__": 0, "infra": 0,
    "text": 1,
    "retrieval": 2,
    "memory": 3, "lessons": 3,
    "render": 4, "model": 4,
    "evaluation": 5, "install": 5, "enrich": 5,
    "learning": 6,
    "ui": 7, "mcp": 7,
    "worker": 8,
    "hooks": 9,
    "cli": 10, "__main__": 10,
}
STDLIB_ONLY = {"infra", "text"}
CHROMADB_HOME = "lessons/store/chroma_server.py"
# Areas imported by every hook or by the CLI's argument parsing: heavy libraries load lazily there.
LAZY_AREAS = {"infra", "text", "hooks", "cli", "__init__", "__main__"}
HEAVY = {"chromadb", "numpy", "jinja2", "yaml", "frontmatter", "onnxruntime", "tokenizers", "mcp", "anthropic"}
# Standard-library modules whose name depends on the Python version (CPython's own SHA-256 is
# _sha256 up to 3.11 and _sha2 from 3.12); sys.stdlib_module_names lists only the running one's.
STDLIB = set(sys.stdlib_module_names) | {"_sha2", "_sha256"}


@dataclass(frozen=True)
class Import:
    module: str        # absolute dotted name ("kioku.infra.paths", "json")
    toplevel: bool     # executed when the importing module loads


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(SRC.rglob("*.py")) if "__pycache__" not in p.parts}


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _literal_module(node: ast.AST) -> str | None:
    """The module named by ``__import__("x")`` / ``import_module("x")`` / an f-string's literal head."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value).rstrip(".") or None
    return None


def imports_of(name: str) -> list[Import]:
    path = MODULES[name]
    return imports_in(path.read_text(encoding="utf-8"), _package_of(name, path))


def imports_in(source: str, package: str) -> list[Import]:
    """Every import in ``source``, a module of ``package`` (relative imports are resolved against it)."""
    tree = ast.parse(source)
    found: list[Import] = []

    def visit(node: ast.AST, toplevel: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                continue  # annotations only: never executed
            inner = toplevel and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend(Import(alias.name, inner) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - (child.level - 1)]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                for alias in child.names:
                    sub = f"{module}.{alias.name}"
                    found.append(Import(sub if sub in MODULES else module, inner))
            elif isinstance(child, ast.Call) and child.args:
                func = child.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called in ("__import__", "import_module"):
                    target = _literal_module(child.args[0])
                    if target:
                        found.append(Import(target, inner))
            visit(child, inner)

    visit(tree, True)
    return found


def _area(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _kioku_target(module: str) -> str | None:
    """The kioku module an import loads (its longest known prefix), None for other packages."""
    if module != "kioku" and not module.startswith("kioku."):
        return None
    while module not in MODULES and "." in module:
        module = module.rpartition(".")[0]
    return module


def test_every_area_has_a_layer() -> None:
    assert {_area(name) for name in MODULES} <= set(LAYERS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_imports(name: str) -> None:
    level = LAYERS[_area(name)]
    for imp in imports_of(name):
        target = _kioku_target(imp.module)
        if target is None:
            continue
        assert LAYERS[_area(target)] <= level, f"{name} imports {imp.module} (layer {_area(target)} is above)"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        targets = {_kioku_target(imp.module) for imp in imports_of(name)}
        graph[name] = {t for t in targets if t and t != name}
    return graph


def test_no_import_cycles_even_through_imports_inside_functions() -> None:
    assert _cycles(module_graph()) == []


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_function_level_relative_and_dynamic_imports_are_seen() -> None:
    """The parser finds what a lazy import hides: inside a function, relative, __import__, import_module."""
    source = ("from . import paths\n\ndef f():\n    import importlib\n    importlib.import_module('kioku.cli.main')\n"
              "    __import__(f'kioku.hooks.{1}')\n    from ..lessons import digest\n")
    seen = [(imp.module, imp.toplevel) for imp in imports_in(source, "kioku.infra")]
    assert seen == [("kioku.infra.paths", True), ("importlib", False), ("kioku.cli.main", False),
                    ("kioku.hooks", False), ("kioku.lessons.digest", False)]
    dispatched = [imp for imp in imports_of("kioku.hooks.dispatch") if imp.module == "kioku.hooks"]
    assert dispatched and not dispatched[0].toplevel  # the handler module is chosen at run time


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _area(n) in STDLIB_ONLY))
def test_infra_and_text_are_stdlib_only(name: str) -> None:
    for imp in imports_of(name):
        root = imp.module.split(".")[0]
        if root == "kioku":
            assert _area(_kioku_target(imp.module) or "") in STDLIB_ONLY, f"{name} imports {imp.module}"
        else:
            assert root in STDLIB, f"{name} imports {imp.module}"


def _hook_entry_modules() -> list[str]:
    return ["kioku.hooks.dispatch"] + sorted(n for n in MODULES if _area(n) == "hooks" and n != "kioku.hooks.dispatch")


def _toplevel_closure(roots: list[str]) -> set[str]:
    """Every module that loading ``roots`` imports at module level, transitively (packages included)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in MODULES)
        for imp in imports_of(name):
            if not imp.toplevel:
                continue
            target = _kioku_target(imp.module)
            if target is not None:
                todo.append(target)
            else:
                seen.add(imp.module)
    return seen


def test_the_hooks_fast_path_reaches_the_standard_library_only() -> None:
    """What the hook launcher loads before a handler decides anything: no third-party module."""
    closure = _toplevel_closure(_hook_entry_modules())
    outside = sorted(m for m in closure if m.split(".")[0] not in STDLIB | {"kioku"})
    assert outside == []


def test_the_hooks_fast_path_in_a_real_interpreter() -> None:
    """Import every hook module in a fresh interpreter: only standard-library modules get loaded."""
    code = ("import sys\nbefore = set(sys.modules)\n"
            + "".join(f"import {name}\n" for name in _hook_entry_modules())
            + "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
              "print(' '.join(sorted(new - set(sys.stdlib_module_names) - {'kioku', '_sha2', '_sha256'})))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC.parent), "PATH": "/usr/bin:/bin"})
    assert run.stdout.strip() == ""


@pytest.mark.parametrize("name", sorted(MODULES))
def test_heavy_imports_only_inside_functions_outside_their_home(name: str) -> None:
    rel = str(MODULES[name].relative_to(SRC))
    for imp in imports_of(name):
        root = imp.module.split(".")[0]
        if root == "chromadb":
            assert rel == CHROMADB_HOME and not imp.toplevel, f"{rel} imports chromadb"
        elif root in HEAVY and imp.toplevel and _area(name) in LAZY_AREAS:
            pytest.fail(f"{rel} imports {imp.module} at module level")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_its_own_package_facade(name: str) -> None:
    parts = name.split(".")
    if len(parts) < 3 or parts[-1] == "api":
        return
    facade = f"kioku.{parts[1]}.api"
    assert all(imp.module != facade for imp in imports_of(name)), f"{name} imports its own facade {facade}"


def test_the_two_stores_do_not_import_each_other() -> None:
    for name in MODULES:
        for imp in imports_of(name):
            target = _kioku_target(imp.module)
            if target and {_area(name), _area(target)} == {"memory", "lessons"}:
                pytest.fail(f"{name} imports {imp.module}")
