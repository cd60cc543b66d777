"""The project's import graph, read from the source with ``ast``: every ``import`` at any depth
of a module (one inside a function counts too), resolved to the project's modules that exist.
Used by the layout rule (``tests/tools/test_layout.py``) and the CLI's no-cycle check
(``tests/tools/test_cli_imports.py``)."""

import ast
import functools
from pathlib import Path

from tests.support import REPO_ROOT

PACKAGES = ("hw", "sim", "graphgen", "synth", "golden", "tests")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(name: str) -> Path | None:
    base = REPO_ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def modules_under(folder: str) -> list[str]:
    return sorted(module_name(path) for path in (REPO_ROOT / folder).rglob("*.py"))


@functools.cache
def imports_of(name: str) -> frozenset[str]:
    """The project modules ``name`` imports (``from .x import y`` counts ``x`` and, when it is
    a module, ``x.y``)."""
    path = module_path(name)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[:len(parts) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(target for target in targets
                     if target.split(".")[0] in PACKAGES and target != name
                     and module_path(target))
    return frozenset(found)


def reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imports_of(name))
    return seen
