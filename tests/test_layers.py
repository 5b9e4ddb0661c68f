"""The packages import one way, {engine, cube} <- nets <- players, arena <- training, benchmarks, analysis,
service <- cli, with no circle and no private name of another package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Each package and the packages it may import (``weights`` holds the shipped files and their paths).
ALLOWED: dict[str, set[str]] = {
    "weights": set(),
    "engine": set(),
    "cube": set(),
    "nets": {"weights", "engine", "cube"},
    "players": {"weights", "engine", "cube", "nets"},
    "arena": {"weights", "engine", "cube", "nets", "players"},
    "training": {"weights", "engine", "cube", "nets", "players", "arena"},
    "benchmarks": {"weights", "engine", "cube", "nets", "players", "arena", "training"},
    "analysis": {"weights", "engine", "cube", "nets", "players", "arena"},
    "service": {"weights", "engine", "cube", "nets", "players", "arena"},
    "cli": {"weights", "engine", "cube", "nets", "players", "arena", "training", "benchmarks", "analysis", "service"},
}


def _imports(package: str) -> list[tuple[str, int, str, list[str]]]:
    """(file, line, module, names) of every absolute import of a project package in ``package``'s files."""
    found: list[tuple[str, int, str, list[str]]] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(str(path.relative_to(ROOT)), node.lineno, a.name, []) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((str(path.relative_to(ROOT)), node.lineno, node.module, [a.name for a in node.names]))
    return [item for item in found if item[2].split(".")[0] in ALLOWED]


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_the_layers_below_it(package: str) -> None:
    wrong = [
        f"{file}:{line} imports {module}"
        for file, line, module, _ in _imports(package)
        if (top := module.split(".")[0]) != package and top not in ALLOWED[package]
    ]
    assert not wrong


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_private_name_of_another_package_is_imported(package: str) -> None:
    private = [
        f"{file}:{line} {module} {name}"
        for file, line, module, names in _imports(package)
        if module.split(".")[0] != package
        for name in [*names, *module.split(".")]
        if name.startswith("_") and not name.startswith("__")
    ]
    assert not private


def test_the_allowed_imports_have_no_circle() -> None:
    done: set[str] = set()

    def visit(package: str, path: tuple[str, ...]) -> None:
        assert package not in path, " -> ".join((*path, package))
        if package not in done:
            for below in ALLOWED[package]:
                visit(below, (*path, package))
            done.add(package)

    for package in ALLOWED:
        visit(package, ())
