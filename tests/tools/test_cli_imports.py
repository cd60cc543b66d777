"""graphgen's modules import one another without a cycle: the import graph, read from the
source with ``ast`` (every ``import`` at any depth of a module, so one inside a function
counts too), has no cycle, and the subcommands reach the shared helpers without going
through ``graphgen.cli``."""

from tests.support import REPO_ROOT
from tests.support.imports import imports_of as project_imports_of, module_name

MODULES = {module_name(path): path for path in sorted((REPO_ROOT / "graphgen").rglob("*.py"))}


def imports_of(name: str) -> frozenset[str]:
    """The graphgen modules ``name`` imports."""
    return frozenset(target for target in project_imports_of(name) if target in MODULES)


def find_cycle(imports=imports_of) -> list[str] | None:
    """One cycle of the import graph (``imports``: a module's imports) as the modules along
    it, or None."""
    state = {}                      # name: "open" while on the path, "done" after

    def visit(name, path):
        state[name] = "open"
        for target in sorted(imports(name)):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target, path + [target])
                if cycle:
                    return cycle
        state[name] = "done"
        return None

    for name in MODULES:
        if name not in state:
            cycle = visit(name, [name])
            if cycle:
                return cycle
    return None


def test_the_walker_sees_imports():
    assert "graphgen.common" in imports_of("graphgen.commands.sim")
    assert "graphgen.commands.sim" in imports_of("graphgen.cli")
    assert "graphgen.simulations.bfs" in imports_of("graphgen.designs")


def test_graphgen_has_no_import_cycle():
    cycle = find_cycle()
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_only_the_entry_point_imports_the_cli():
    importers = sorted(name for name in MODULES if "graphgen.cli" in imports_of(name))
    assert not importers, importers


def test_the_walker_finds_a_cycle():
    """The check itself: the shared helpers made to import the CLI close a loop."""
    edges = {name: imports_of(name) for name in MODULES}
    edges["graphgen.common"] = edges["graphgen.common"] | {"graphgen.cli"}
    cycle = find_cycle(lambda name: edges[name])
    assert cycle and cycle[0] == cycle[-1] and "graphgen.cli" in cycle
