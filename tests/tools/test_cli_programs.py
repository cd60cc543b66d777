"""``--algo NAME|FILE.py:CLASS`` and ``graphgen programs`` (issue 50, item 5): a user's own
program runs through the commands, and every reason to refuse one is one line, exit status 2,
before any build and with nothing written."""

import contextlib
import re
import io
import textwrap
from collections import deque
from itertools import count

import numpy as np
import pytest
from hypothesis import given, strategies as st

import golden
from golden.programs import run_program
from graphgen.cli import main
from graphgen.commands.programs import designs_running
from graphgen.programs import PROGRAMS, ProgramError, load_program
from tests.support.examples import examples_path
from tests.tools.test_bad_input import SETTINGS, run

CAP = 3

# A program written here, for these tests: hop counts from the root, capped at CAP.
USER_PROGRAM = textwrap.dedent(f'''
    from graphgen.programs import Op, UInt, VertexProgram, minimum, sat_add, select, uint


    class CappedHops(VertexProgram):
        """Hops from the root, counted up to {CAP}."""

        prop = UInt(32)
        reduce = "min"
        weight = None

        def init(self, h):
            return select(h.is_root, uint(0), uint(2**32 - 1))

        def process_edge(self, e):
            return minimum(sat_add(e.src_prop, 1), {CAP})

        def apply(self, v):
            return minimum(v.vprop, v.temp)
''')

# Variants of it that the hardware or the program API refuses, each with the reason's words.
BROKEN = {
    "vconst_in_apply": ('''
        def vconst(self, h):
            return h.out_degree

        def apply(self, v):
            return minimum(v.vconst, v.temp)
    ''', "Apply reads vconst, which the apply phase does not have"),
    "unknown_operation": ('''
        def apply(self, v):
            return Op("popcount", (v.vprop,), UInt(32))
    ''', "apply: 'popcount' is an operation the hardware cannot build"),
    "not_commutative": ('''
        reduce = "sat_sub"
    ''', "Reduce must be commutative and associative"),
    "narrow": ('''
        prop = UInt(16)

        def init(self, h):
            return select(h.is_root, uint(0, 16), uint(2**16 - 1, 16))

        def process_edge(self, e):
            return sat_add(e.src_prop, uint(1, 16))
    ''', "the pipeline carries 32-bit properties (UInt(32) or Float32), not UInt(16)"),
}

# Each command with its outputs (inside the test's own folder: none may appear).
COMMANDS = {
    "sim": ["sim", "--design", "graphicionado", "--graph", "kron:scale=4", "-o", "values.npy",
            "--json", "report.json"],
    "verilog": ["verilog", "--design", "graphicionado", "-o", "out.v"],
    "synth": ["synth", "--design", "graphicionado", "--target", "generic", "--json",
              "report.json"],
    "sweep": ["sweep", "--design", "graphicionado", "--grid", "streams_src=1,2", "--targets",
              "", "--graph", "kron:scale=4", "-o", "sweep"],
    "golden": ["golden", "--graph", "kron:scale=4", "-o", "values.npy", "--json", "report.json"],
    "programs": ["programs"],
}


def user_file(extra: str = "") -> bytes:
    """The user's file, with a class that changes CappedHops by ``extra``."""
    return (USER_PROGRAM + "\n\nclass Broken(CappedHops):\n" +
            textwrap.indent(textwrap.dedent(extra) or "pass\n", "    ")).encode()


def refusal(argv: list[str], files: dict[str, bytes] | None = None) -> str:
    """The one line ``graphgen argv`` refuses with, in a fresh folder holding ``files``,
    before any build (building is patched to fail the test) and leaving no file behind."""
    outcome = run(argv, files)
    assert outcome is not None, f"accepted: graphgen {' '.join(argv)}"
    status, stderr, left = outcome
    lines = stderr.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("graphgen: error: "), \
        (status, stderr)
    assert not left, f"{argv} left {left}"
    return lines[0]


def capped_hops(graph, root: int) -> np.ndarray:
    """The reference, a plain breadth-first search."""
    levels = np.full(graph.num_vertices, 2**32 - 1, dtype=np.uint64)
    levels[root] = 0
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in graph.dst[graph.offsets[u]:graph.offsets[u + 1]]:
            if levels[v] == 2**32 - 1:
                levels[v] = levels[u] + 1
                queue.append(v)
    return np.where(levels == 2**32 - 1, levels, np.minimum(levels, CAP)).astype(np.uint32)


def test_programs_lists_every_builtin_with_the_designs_that_run_it(capsys):
    assert main(["programs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["program", "property", "reduce", "mode", "designs",
                                "description"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == list(PROGRAMS)
    for name, program in PROGRAMS.items():
        name_, prop, reduce, mode, designs = rows[name].split()[:5]
        assert (prop, reduce, mode) == (repr(program.prop), program.reduce, program.mode)
        assert rows[name].endswith(program.description)
        assert designs.split(",") == designs_running(name)
    assert designs_running("bfs") == ["graphicionado", "depgraph", "bfs", "dyngraph"]
    assert designs_running(examples_path("widest")) == ["graphicionado", "depgraph"]


def test_programs_describes_a_users_file(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_bytes(user_file())
    assert main(["programs", f"{path}:CappedHops"]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert row.split()[1:5] == ["UInt(32)", "min", "frontier",
                                  "graphicionado,depgraph"]
    assert row.endswith(f"Hops from the root, counted up to {CAP}.")


def test_a_users_program_runs_in_golden_and_emits_verilog(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_bytes(user_file())
    spec = f"{path}:CappedHops"
    graph = golden.from_spec("kron:scale=5,seed=3")
    values = tmp_path / "values.npy"
    assert main(["golden", "--algo", spec, "--graph", "kron:scale=5,seed=3", "--root", "1",
                 "-o", str(values)]) == 0
    assert f"{spec} on kron:scale=5,seed=3: 32 vertices" in capsys.readouterr().out
    assert np.load(values).tolist() == capped_hops(graph, 1).tolist()
    verilog = tmp_path / "mine.v"
    assert main(["verilog", "--design", "graphicionado", "--algo", spec, "--set",
                 "max_vertices=64", "-o", str(verilog)]) == 0
    text = verilog.read_text()
    assert text.startswith(f'// graphgen design graphicionado: {{"algo": "{spec}"')
    assert "module graphicionado(" in text


@pytest.mark.soak      # a Verilator build of the pipeline (about a minute)
def test_a_users_program_runs_end_to_end_in_rtl(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_bytes(user_file())
    values = tmp_path / "values.npy"
    assert main(["sim", "--design", "graphicionado", "--algo", f"{path}:CappedHops",
                 "--graph", "kron:scale=5,seed=3", "--root", "1", "--set", "max_vertices=64",
                 "-o", str(values)]) == 0
    assert "result: matches the golden model" in capsys.readouterr().out
    graph = golden.from_spec("kron:scale=5,seed=3")
    assert np.load(values).tolist() == capped_hops(graph, 1).tolist()


def _refusals():
    """(files, --algo, command, fragment) of every reason, through every command it
    reaches: the hardware's reasons through those that build for a design, the file's and
    the program's through all."""
    good = {"mine.py": user_file()}
    cases = []
    for name, (extra, fragment) in BROKEN.items():
        commands = ["sim", "verilog", "synth", "sweep"]
        if name in ("unknown_operation", "not_commutative"):
            commands += ["golden", "programs"]
        cases += [pytest.param({"mine.py": user_file(extra)}, "mine.py:Broken", command,
                               fragment, id=f"{name}-{command}") for command in commands]
    for name, files, algo, fragment in [
            ("no_class", good, "mine.py:Missing", "mine.py defines no class Missing"),
            ("no_file", good, "theirs.py:CappedHops", "no program file 'theirs.py'"),
            ("raises", {"mine.py": b"1 / 0\n" + user_file()}, "mine.py:CappedHops",
             "mine.py does not load: ZeroDivisionError: division by zero"),
            ("unknown", good, "hops", "unknown program 'hops'")]:
        cases += [pytest.param(files, algo, command, fragment, id=f"{name}-{command}")
                  for command in COMMANDS]
    return cases


@pytest.mark.parametrize("files, algo, command, fragment", _refusals())
def test_each_reason_is_refused_before_any_build(files, algo, command, fragment, capsys):
    argv = [*COMMANDS[command], algo] if command == "programs" else \
        [*COMMANDS[command], "--algo", algo]
    assert fragment in refusal(argv, files)


@pytest.mark.parametrize("argv, fragment", [
    (["sim", "--design", "depgraph", "--algo", "cf", "--graph", "kron:scale=4"], "cf"),
    (["sim", "--design", "bfs", "--algo", "sssp", "--graph", "kron:scale=4"],
     "the bfs design runs --algo bfs, not sssp"),
    (["sim", "--design", "dyngraph", "--algo", examples_path("widest"), "--graph",
      "kron:scale=4",
      "--updates", "mix:ops=8"], "analytics on the dynamic graph run"),
    (["verilog", "--design", "cam", "--algo", "bfs", "-o", "out.v"],
     "--design cam builds no vertex program"),
    (["verilog", "--design", "dyngraph", "--algo", "bfs", "-o", "out.v"],
     "--design dyngraph builds no vertex program"),
    (["verilog", "--design", "graphicionado", "--algo", "sssp", "--set", "algo=bfs", "-o",
      "out.v"], "--set algo=bfs contradicts --algo sssp"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "graphicionado",
      "--algo", "cf", "--graph", "kron:scale=4"], "program cf: graphicionado on a board"),
])
def test_designs_refuse_programs_they_do_not_run(argv, fragment):
    assert fragment in refusal(argv)


# -- malformed program files, drawn by hypothesis ----------------------------------------

# Each body, attribute and file below is wrong on its own, and wrong whatever it is drawn with.
_METHOD_BODIES = st.sampled_from([
    "return 3", "return None", "return 'min'", "return e", "return self",
    "return h.src_prop", "return e.vprop", "return v.src_prop", "return e.nothing",
    "return e.src_prop + 1", "return uint(-1)", "return f32(1.0)", "raise RuntimeError('x')",
    "raise SystemExit(3)", "return select(1, 2)", "return minimum(e.src_prop, f32(1.0))",
    "return lt(e.src_prop, 3)", "return e.random(1)", "return [1]",
    "return self.process_edge(e)", "import nonexistent_module", "pass",
])
_ATTRIBUTES = st.sampled_from([
    "reduce = 'fsub'", "reduce = ['min']", "reduce = None", "reduce = 'fadd'",
    "prop = 32", "prop = UInt(0)", "prop = UInt(33)", "prop = 'UInt(32)'", "prop = float",
    "mode = 'sometimes'", "mode = 'all'", "iterations = -1", "iterations = 'ten'",
    "tolerance = float('nan')", "tolerance = 0.1", "weight = UInt(8)", "weight = 'heavy'",
    "__doc__ = 5",
])
_ARGUMENT = {"init": "h", "process_edge": "e", "apply": "v"}
_HEAD = ("from graphgen.programs import *\n"
         "from graphgen.programs import VertexProgram as Base\n")


@st.composite
def broken_class(draw) -> str:
    """A subclass of the user's valid program with one to five things wrong."""
    attributes = draw(st.lists(_ATTRIBUTES, max_size=2))
    functions = draw(st.lists(st.sampled_from(list(_ARGUMENT)), min_size=0 if attributes
                              else 1, max_size=3, unique=True))
    lines = ["class Broken(CappedHops):", *(f"    {line}" for line in attributes)]
    for function in functions:
        lines += [f"    def {function}(self, {_ARGUMENT[function]}):",
                  f"        {draw(_METHOD_BODIES)}"]
    return "\n".join(lines) + "\n"


_MALFORMED = st.one_of(
    st.binary(max_size=60).map(lambda data: (data, "Broken")),
    # no "e" or "w": no def, exec or while; no capital: no Broken
    st.text(alphabet="()[]{}:=+-*/ .,'\"#\nabcdfxyz0123", max_size=60)
    .map(lambda text: (text.encode(), "Broken")),
    broken_class().map(lambda text: (user_file().rstrip() + b"\n\n\n" + text.encode(),
                                     "Broken")),
    st.sampled_from([
        "class Broken:\n    prop = 1\n",                        # not a VertexProgram
        "class Broken(Base):\n    pass\n",                      # no prop, no reduce
        "class Broken(Base):\n    prop = UInt(32)\n    reduce = 'min'\n",   # no methods
        "Broken = 3\n", "def Broken():\n    pass\n", "Broken = CappedHops()\n",
        "class Broken(CappedHops)\n    pass\n",                 # a syntax error
        "class Broken(CappedHops):\ndef init(self, h): return 1\n",
        "class Broken(CappedHops):\n    def __init__(self, x):\n        pass\n",
        "raise SystemExit(0)\n", "import sys\nsys.exit('bye')\n",
        "class Broken(CappedHops):\n    def apply(self):\n        return 1\n",
    ]).map(lambda text: ((_HEAD + USER_PROGRAM + text).encode(), "Broken")),
    st.just((user_file(), "NotThere")),                          # a missing class name
)

_unique = count()


@SETTINGS
@given(malformed=_MALFORMED)
def test_malformed_program_files_are_refused_with_one_line(tmp_path_factory, malformed):
    data, class_name = malformed
    # A fresh file name each time: the pipeline keeps the programs it has loaded, by name.
    path = tmp_path_factory.mktemp("programs") / f"prog{next(_unique)}.py"
    path.write_bytes(data)
    spec = f"{path}:{class_name}"
    with pytest.raises(ProgramError) as refused:
        load_program(spec)
    assert len(str(refused.value).strip().splitlines()) == 1
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = main(["golden", "--algo", spec, "--graph", "kron:scale=3", "-o",
                       str(path.with_suffix(".npy"))])
    assert status == 2
    lines = stderr.getvalue().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphgen: error: "), lines
    assert not path.with_suffix(".npy").exists()


def test_the_file_the_strategies_vary_is_valid(tmp_path):
    """Each malformed file above breaks a valid one: this one."""
    path = tmp_path / "mine.py"
    path.write_bytes(user_file())
    graph = golden.from_spec("grid:rows=4,cols=5")
    for name in ("CappedHops", "Broken"):
        values = run_program(load_program(f"{path}:{name}"), graph, root=0).values
        assert np.asarray(values).tolist() == capped_hops(graph, 0).tolist()


def test_param_sets_a_programs_parameter_in_golden(tmp_path):
    graph = golden.from_spec("kron:scale=6,ef=8,seed=1")
    values, spec = tmp_path / "values.npy", examples_path("ppr")
    assert main(["golden", "--algo", spec, "--graph", "kron:scale=6,ef=8,seed=1", "--root",
                 "1", "--iters", "3", "--param", "alpha=0.5", "-o", str(values)]) == 0
    program = load_program(spec)
    expected = run_program(program, graph, root=1, iters=3, alpha=0.5).values
    assert np.load(values).tolist() == expected.tolist()
    assert expected.tolist() != run_program(program, graph, root=1, iters=3).values.tolist()


@pytest.mark.parametrize("argv, fragment", [
    (["golden", "--algo", examples_path("ppr"), "--param", "beta=1"],
     "ppr has no such parameter (parameters: alpha, one_minus_alpha)"),
    (["golden", "--algo", examples_path("ppr"), "--param", "alpha=high"],
     "alpha expects a number"),
    (["golden", "--algo", "pagerank", "--param", "alpha=0.5"],
     "pagerank has no such parameter (parameters: none)"),
    (["golden", "--algo", "bfs", "--param", "alpha=1"], "bfs has no such parameter"),
    (["golden", "--algo", examples_path("ppr"), "--model", "depgraph", "--param",
      "alpha=0.5"],
     "not --model"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--param", "alpha=1"],
     "for --design graphicionado"),
])
def test_param_refusals(argv, fragment):
    line = refusal([*argv, "--graph", "kron:scale=5,seed=3"])
    assert fragment in line, line


@pytest.mark.soak      # a Verilator build of the pipeline (about a minute)
def test_the_worked_example_runs_with_a_parameter_in_rtl(tmp_path, capsys):
    """docs/programs.md's worked example through graphgen sim with --param: the parameter
    reaches the design's register, the golden model and the report."""
    values, report = tmp_path / "values.npy", tmp_path / "run.json"
    spec = examples_path("bounded_hops")
    assert main(["sim", "--design", "graphicionado", "--algo", spec, "--graph",
                 "kron:scale=6,ef=8,seed=1,weights=1:20", "--root", "2", "--param",
                 "max_weight=12", "--set", "max_vertices=64", "-o", str(values),
                 "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "result: matches the golden model" in out
    assert re.search(r"program parameters\n  max_weight +12\n", out), out
    graph = golden.from_spec("kron:scale=6,ef=8,seed=1,weights=1:20")
    expected = run_program(load_program(spec), graph, root=2, max_weight=12).values
    assert np.load(values).tolist() == expected.tolist()
    assert expected.tolist() != run_program(load_program(spec), graph, root=2).values.tolist()
    import json
    assert json.loads(report.read_text())["program_parameters"] == {"max_weight": 12}


def test_depgraphs_golden_models_run_a_program_file(tmp_path, capsys):
    """--model depgraph|sync|ligra take any program with a GAS form: widest's fixpoint is
    the program's own result."""
    spec, values = examples_path("widest"), tmp_path / "values.npy"
    graph = golden.from_spec("kron:scale=7,ef=8,seed=1,weights=1:9")
    expected = run_program(load_program(spec), graph, root=1).values
    for model in ("depgraph", "sync", "ligra"):
        assert main(["golden", "--model", model, "--algo", spec, "--graph",
                     "kron:scale=7,ef=8,seed=1,weights=1:9", "--root", "1",
                     "-o", str(values)]) == 0
        assert np.load(values).tolist() == expected.tolist(), model
    assert "is not of the form mu*x + eps" in capsys.readouterr().out
