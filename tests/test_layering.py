"""The import graph follows the layers in the architecture: nothing imports upward.

core (stdlib only) -> retrieval -> stores (memory, agent) -> features (evaluation,
learning, render, install, ui) -> entry points (handlers, commands) -> cli. Imports inside functions count too.
chromadb is imported only inside functions of kioku.agent.chroma_store, and no module of a
package imports that package's facade (``api.py``), so facades never form import cycles.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kioku"
LAYERS = {
    "core": 0,
    "retrieval": 1,
    "memory": 2, "agent": 2,
    "evaluation": 3, "learning": 3, "render": 3, "install": 3, "ui": 3,
    "handlers": 4, "commands": 4, "cli": 5, "__main__": 5, "__init__": 0,
}
LAZY_AREAS = {"core", "handlers", "commands", "cli.py", "__init__.py", "__main__.py"}
HEAVY = {"chromadb", "numpy", "jinja2", "yaml", "frontmatter", "onnxruntime", "tokenizers"}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _area(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(module, at_top_level) for every import in the file."""
    found: list[tuple[str, bool]] = []
    top = set(map(id, getattr(tree, "body", [])))

    def visit(node: ast.AST, toplevel: bool) -> None:
        for child in ast.iter_child_nodes(node):
            child_top = toplevel and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                found.extend((alias.name, child_top) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.module, child_top))
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            visit(child, child_top)

    visit(tree, True)
    del top
    return found


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_upward_imports(path: Path) -> None:
    area = _area(path)
    level = LAYERS[area]
    for module, _top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        parts = module.split(".")
        if parts[0] != "kioku" or len(parts) < 2:
            continue
        target = LAYERS.get(parts[1], 0)
        assert target <= level, f"{path.relative_to(SRC)} imports {module} (layer {target} > {level})"


# Standard-library modules whose name depends on the Python version (CPython's own SHA-256 is
# _sha256 up to 3.11 and _sha2 from 3.12); sys.stdlib_module_names lists only the running one's.
STDLIB_BY_VERSION = {"_sha2", "_sha256"}


@pytest.mark.parametrize("path", sorted((SRC / "core").glob("*.py")), ids=lambda p: p.name)
def test_core_is_stdlib_only(path: Path) -> None:
    for module, _top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        root = module.split(".")[0]
        assert root == "kioku" or root in sys.stdlib_module_names | STDLIB_BY_VERSION, \
            f"{path.name} imports {module}"
        if root == "kioku":
            assert module.startswith("kioku.core") or module == "kioku", f"{path.name} imports {module}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_heavy_imports_only_inside_functions_outside_their_home(path: Path) -> None:
    rel = str(path.relative_to(SRC))
    for module, top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        root = module.split(".")[0]
        if root == "chromadb":
            assert rel == "agent/chroma_store.py" and not top, f"{rel} imports chromadb"
        elif root in HEAVY and top and rel.split("/")[0] in LAZY_AREAS:
            # these areas are imported by hooks or by argparse registration of every command,
            # so heavy libraries must load lazily, inside the functions that need them
            pytest.fail(f"{rel} imports {module} at module level")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_imports_its_own_package_facade(path: Path) -> None:
    rel = path.relative_to(SRC)
    if len(rel.parts) < 2 or rel.name == "api.py":
        return
    facade = f"kioku.{rel.parts[0]}.api"
    for module, _top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        assert module != facade, f"{rel} imports its own facade {facade}"


def test_stores_and_retrieval_stay_apart_from_each_other() -> None:
    """retrieval sits below both stores; the two stores (memory, agent) import neither each other."""
    for path in _modules():
        area = _area(path)
        for module, _top in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            parts = module.split(".")
            if parts[0] != "kioku" or len(parts) < 2:
                continue
            if area == "retrieval":
                assert parts[1] in {"core", "retrieval"}, f"{path.relative_to(SRC)} imports {module}"
            if {area, parts[1]} == {"memory", "agent"}:
                pytest.fail(f"{path.relative_to(SRC)} imports {module}")
