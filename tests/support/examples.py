"""The example programs of ``examples/programs/``, found from the repository root, so that
tests load them from any working directory."""

from graphgen.programs import Program, load_program

from . import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "programs"

#: each example program's name and its ``file.py:ClassName``
EXAMPLE_FILES = {"widest": "widest.py:WidestPath", "spmv": "spmv.py:SpMV",
                 "ppr": "ppr.py:PersonalizedPageRank",
                 "labelprop": "labelprop.py:LabelPropagation",
                 "bounded_hops": "bounded_hops.py:BoundedHops"}


def examples_path(spec: str) -> str:
    """``file.py:ClassName`` of ``examples/programs/`` (or an example's name) as the
    absolute ``path:ClassName`` that ``algo`` and ``load_program`` take."""
    return str(EXAMPLES / EXAMPLE_FILES.get(spec, spec))


def example(spec: str) -> Program:
    """The built example program ``spec`` (a name of :data:`EXAMPLE_FILES` or
    ``file.py:ClassName``)."""
    return load_program(examples_path(spec))


def spec_of(name: str) -> str:
    """What ``algo`` takes for ``name``: a built-in's name or a ``path:ClassName`` as it is,
    an example's name as its ``path:ClassName``."""
    from graphgen.programs import PROGRAMS
    return name if name in PROGRAMS or ":" in name else examples_path(name)


def program_of(name: str) -> Program:
    """The built program of a built-in's or an example's name."""
    return load_program(spec_of(name))
