"""load_program: built-in names and path/to/file.py:ClassName, refused with one line."""

import textwrap

import pytest

import golden
from golden.programs import run_program
from graphgen.programs import PROGRAMS, ProgramError, load_program
from tests.support.examples import example

USER_FILE = textwrap.dedent('''
    from graphgen.programs import UInt, VertexProgram, maximum, minimum, select, uint


    class Bottleneck(VertexProgram):
        """Widest paths, written by a user."""

        prop = UInt(32)
        reduce = "max"

        def init(self, h):
            return select(h.is_root, uint(2**32 - 1), uint(0))

        def process_edge(self, e):
            return minimum(e.src_prop, e.weight)

        def apply(self, v):
            return maximum(v.vprop, v.temp)


    NOT_A_PROGRAM = 3
''')


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_programs.py"
    path.write_text(USER_FILE)
    return path


def test_builtin_names():
    assert load_program("sssp") is PROGRAMS["sssp"]
    assert load_program(" PageRank ") is PROGRAMS["pagerank"]


def test_a_class_from_a_file_runs(user_file):
    program = load_program(f"{user_file}:Bottleneck")
    assert program.name == "bottleneck"
    assert program.description == "Widest paths, written by a user."
    graph = golden.from_spec("grid:rows=6,cols=7,weights=1:9")
    expected = run_program(example("widest"), graph, root=4).values
    assert run_program(program, graph, root=4).values.tolist() == expected.tolist()


@pytest.mark.parametrize("suffix, message", [
    (":Missing", "my_programs.py defines no class Missing"),
    (":NOT_A_PROGRAM", "my_programs.py: NOT_A_PROGRAM is not a VertexProgram subclass"),
    (":not-a-name", "'not-a-name' is not a class name"),
])
def test_a_file_without_the_class_is_refused(user_file, suffix, message):
    with pytest.raises(ProgramError) as error:
        load_program(f"{user_file}{suffix}")
    assert str(error.value).endswith(message)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("spec, message", [
    ("dijkstra", "unknown program 'dijkstra': give a built-in (bfs, sssp"),
    ("nowhere/prog.py:Prog", "no program file 'nowhere/prog.py'"),
    ("prog.txt:Prog", "unknown program 'prog.txt:Prog'"),
])
def test_unknown_names_and_missing_files_are_refused(spec, message):
    with pytest.raises(ProgramError, match="^" + message.replace("(", r"\(")):
        load_program(spec)


@pytest.mark.parametrize("text, message", [
    ("def broken(:\n", "does not load: SyntaxError: "),
    ("raise RuntimeError('first line\\nsecond line')\n",
     "does not load: RuntimeError: first line"),
    ("from graphgen.programs import uint\nX = uint(-1)\n",
     "constant: -1 is not a UInt(32) value"),
])
def test_a_file_that_does_not_load_is_refused_on_one_line(tmp_path, text, message):
    path = tmp_path / "bad.py"
    path.write_text(text)
    with pytest.raises(ProgramError) as error:
        load_program(f"{path}:Anything")
    assert message in str(error.value) and "\n" not in str(error.value)
