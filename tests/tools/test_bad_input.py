"""Random bad input to ``graphgen`` (hypothesis): malformed graph files and generator specs,
bad ``--set`` values for every parameter of every design, bad ``--mem`` values and bad
option values each give one line on standard error, exit status 2, no traceback and no
output file.

Nothing is elaborated, simulated or synthesized: the entry points that would do so raise
:class:`Accepted`, and an input that reaches one was valid after all; such examples are
skipped (``reject``) where the value drawn may be valid, and fail the test where it cannot
be."""

import contextlib
import io
import os
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import golden
from golden import GraphError
from graphgen.cli import main
from graphgen.designs import DESIGNS
from graphgen.programs import PROGRAMS
from hw.lib.config import ConfigError
from sim.gateware.sim_memory import SimMemoryConfig


SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

GRAPH = "grid:rows=3,cols=4"           # 12 vertices
GRAPH_DESIGNS = [name for name, design in DESIGNS.items() if design.needs_graph]


class Accepted(Exception):
    """The command got past validation to the expensive part: the input was valid."""


def _accepted(*args, **kwargs):
    raise Accepted


def run(argv: list[str], files: dict[str, bytes] | None = None):
    """``main(argv)`` in a fresh folder holding ``files``; None if the input was accepted,
    else (exit status, stderr, the files left in the folder other than ``files``)."""
    stderr = io.StringIO()
    patches = [mock.patch("graphgen.designs.Design.verilog", _accepted),
               mock.patch("graphgen.designs.Design.run_test", _accepted),
               mock.patch("sim.graphicionado.run.run_register_design", _accepted),
               mock.patch("sim.depgraph.run.run_register_design", _accepted),
               mock.patch("sim.bfs.run.run_register_design", _accepted),
               mock.patch("sim.dyngraph.run.run_register_design", _accepted),
               mock.patch("synth.synthesize", _accepted)]
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder), \
            contextlib.ExitStack() as stack:
        for name, data in (files or {}).items():
            Path(name).write_bytes(data)
        for patch in patches:
            stack.enter_context(patch)
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        stack.enter_context(contextlib.redirect_stderr(stderr))
        try:
            status = main(argv)
        except Accepted:
            return None
        left = sorted(str(path) for path in Path(".").rglob("*")
                      if path.name not in (files or {}))
    return status, stderr.getvalue(), left


def assert_refused(argv, files=None, *, may_be_valid=False):
    outcome = run(argv, files)
    if outcome is None:
        if may_be_valid:
            reject()
        raise AssertionError(f"accepted: graphgen {' '.join(map(repr, argv))}")
    status, stderr, left = outcome
    lines = stderr.strip().splitlines()
    assert status == 2, (argv, status, stderr)
    assert len(lines) == 1 and lines[0].startswith("graphgen: error: "), (argv, stderr)
    assert "Traceback" not in stderr
    assert not left, f"{argv} left {left}"


OUTPUTS = {
    "verilog": ["-o", "out.v"],
    "test": ["--json", "report.json"],
    "synth": ["--target", "generic", "--json", "report.json"],
    "sim": ["-o", "values.npy", "--json", "report.json"],
    "golden": ["-o", "values.npy", "--json", "report.json"],
}

# Arbitrary text, numbers in and out of every range, and the spellings parsers trip on.
values = st.one_of(
    st.text(max_size=12),
    st.integers(-2**70, 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", " ", "0", "1", "-1", "0x10", "0b2", "1e3", "1.5", "nan", "inf",
                     "on", "off", "yes", "true", "none", "=", "1,2", "\x00", "９"]),
)


# ---------------------------------------------------------------- design parameters

def _valid_sets(design, overrides: dict[str, str]) -> bool:
    try:
        design.config(overrides)
    except ConfigError:
        return False
    return True


@SETTINGS
@given(data=st.data(), value=values)
def test_bad_set_values(data, value):
    name = data.draw(st.sampled_from(sorted(DESIGNS)), label="design")
    design = DESIGNS[name]
    key = data.draw(st.sampled_from(design.config_class.field_names()), label="key")
    commands = ["verilog", "synth"] + (["sim"] if design.needs_graph else ["test"])
    command = data.draw(st.sampled_from(commands), label="command")
    argv = [command, "--design", name, "--set", f"{key}={value}", *OUTPUTS[command]]
    overrides = {key: value.strip()}
    if command == "sim":
        algo = data.draw(st.sampled_from(["bfs", "sssp", "cc", "pagerank"]), label="algo")
        argv += ["--algo", algo, "--graph", GRAPH]
        if name == "bfs" and algo != "bfs":
            assert_refused(argv)    # the BFS engine runs bfs only, whatever the value
            return
        if key == "algo" and value.strip() != algo:
            overrides = {}          # contradicts --algo: refused whatever the value
            assert_refused(argv)
            return
        if name != "bfs":
            overrides.setdefault("algo", algo)
    if _valid_sets(design, overrides):
        reject()
    assert_refused(argv)


@SETTINGS
@given(data=st.data(), key=st.text(min_size=1, max_size=10), value=values)
def test_unknown_or_malformed_set(data, key, value):
    name = data.draw(st.sampled_from(sorted(DESIGNS)), label="design")
    if key.strip() in DESIGNS[name].config_class.field_names() or "=" in key:
        reject()
    form = data.draw(st.sampled_from(["key=value", "no equals sign", "empty key"]))
    pair = {"key=value": f"{key}={value}", "no equals sign": key, "empty key": f"={value}"}
    assert_refused(["verilog", "--design", name, "--set", pair[form], "-o", "out.v"])


@SETTINGS
@given(data=st.data(), value=values)
def test_bad_mem_values(data, value):
    key = data.draw(st.sampled_from(SimMemoryConfig.field_names()), label="key")
    try:
        SimMemoryConfig.from_overrides({key: value.strip()})
    except ConfigError:
        pass
    else:
        reject()
    design = data.draw(st.sampled_from(GRAPH_DESIGNS), label="design")
    assert_refused(["sim", "--design", design, "--algo", "bfs", "--graph", GRAPH,
                    "--mem", f"{key}={value}", *OUTPUTS["sim"]])


# ---------------------------------------------------------------- options

not_numbers = st.text(max_size=8).filter(lambda text: not _is_number(text))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@SETTINGS
@given(data=st.data())
def test_bad_option_values(data):
    option = data.draw(st.sampled_from(
        ["root", "iters", "seed", "clock", "seeds", "liberty", "choice", "design", "graph",
         "output"]))
    design = data.draw(st.sampled_from(GRAPH_DESIGNS), label="design")
    sim = ["sim", "--design", design, "--algo", "bfs", *OUTPUTS["sim"]]
    gold = ["golden", "--algo", "bfs", *OUTPUTS["golden"]]
    base = data.draw(st.sampled_from([sim, gold]), label="command")
    synth = ["synth", "--design", "cam", "--json", "report.json"]
    if option == "root":
        root = data.draw(st.one_of(st.integers(max_value=-1), st.integers(min_value=12))
                         .map(str) | not_numbers, label="root")
        argv = [*base, "--graph", GRAPH, f"--root={root}"]
    elif option == "iters":
        iters = data.draw(st.integers(max_value=-1).map(str) | not_numbers, label="iters")
        argv = [*gold, "--graph", GRAPH, f"--iters={iters}"]
    elif option == "seed":
        seed = data.draw(not_numbers, label="seed")
        argv = data.draw(st.sampled_from([[*sim, "--graph", GRAPH, f"--seed={seed}"],
                                          ["test", "--design", "cam", f"--seed={seed}"]]))
    elif option == "output":
        # One output fine, the other not writable: neither may be left behind.
        bad = data.draw(st.sampled_from(["", ".", "no/such/folder/out", "/"]), label="path")
        which = data.draw(st.sampled_from(["-o", "--json"]), label="option")
        good = "report.json" if which == "-o" else "values.npy"
        other = "--json" if which == "-o" else "-o"
        argv = [*base[:-4], "--graph", GRAPH, which, bad, other, good]
    elif option == "clock":
        clock = data.draw(st.floats(max_value=0).map(repr) | not_numbers |
                          st.sampled_from(["inf", "-inf", "nan", "1e400"]), label="clock")
        target = data.draw(st.sampled_from(["ecp5", "gw5a-138"]), label="target")
        argv = [*synth, "--target", target, f"--clock-mhz={clock}"]
    elif option == "seeds":
        seeds = data.draw(st.integers(max_value=0).map(str) | not_numbers, label="seeds")
        target = data.draw(st.sampled_from(["ecp5", "gw5a-138"]), label="target")
        argv = [*synth, "--target", target, f"--seeds={seeds}"]
    elif option == "liberty":
        argv = [*synth, "--target", "asic", "--liberty", "no/such/cells.lib"]
    elif option == "choice":
        which = data.draw(st.sampled_from(["--algo", "--simulator", "--target"]))
        choice = data.draw(st.text(max_size=10), label="choice")
        if choice in ("verilator", "icarus", "ecp5", "gw5a-138", "generic", "asic") or \
                which == "--algo" and choice.strip().lower() in PROGRAMS:
            reject()
        argv = {"--algo": [*gold[:1], f"--algo={choice}", "--graph", GRAPH],
                "--simulator": [*sim, "--graph", GRAPH, f"--simulator={choice}"],
                "--target": [*synth, f"--target={choice}"]}[which]
    elif option == "design":
        name = data.draw(st.text(max_size=10), label="design")
        if name in DESIGNS:
            reject()
        argv = ["verilog", f"--design={name}", "-o", "out.v"]
    else:
        spec = data.draw(st.text(max_size=20), label="graph")
        if os.path.exists(spec):
            reject()
        try:
            golden.load_graph(spec)
        except GraphError:
            pass
        else:
            reject()
        argv = [*base, f"--graph={spec}"]
    assert_refused(argv)


# ---------------------------------------------------------------- generator specs

SPEC_KEYS = {"kron": ["scale", "ef", "edge_factor", "seed", "a", "b", "c", "weights"],
             "rmat": ["scale", "ef", "edge_factor", "seed", "a", "b", "c", "weights"],
             "grid": ["rows", "cols", "seed", "weights"],
             "scalefree": ["n", "seed", "hubs", "hub_fraction", "hub_degree", "deg",
                           "avg_degree", "weights"],
             "uniform": ["n", "m", "seed", "weights"],
             "bipartite": ["users", "items", "ratings", "ratings_per_user", "seed"]}
SMALL = {"kron": {"scale": "3"}, "rmat": {"scale": "3"}, "grid": {"rows": "3", "cols": "3"},
         "scalefree": {"n": "10"}, "uniform": {"n": "10", "m": "20"},
         "bipartite": {"users": "3", "items": "3", "ratings": "2"}}
# Values no key of any generator takes (but seed and the capped degrees): negative, not a
# number, or past every bound.
bad_spec_values = st.one_of(
    st.integers(max_value=-1).map(str),
    st.integers(min_value=2**33).map(str),
    st.text(alphabet="abcxyz!@$%^&*()[]{}<>?;'\" ", min_size=1, max_size=8),
    st.sampled_from(["", "1.5e", "--3", "0x", "nan", "-inf", "1:2:3:4", "uniform:"]),
)


@SETTINGS
@given(data=st.data())
def test_bad_generator_specs(data):
    name = data.draw(st.sampled_from(sorted(SPEC_KEYS)), label="generator")
    items = dict(SMALL[name])
    fault = data.draw(st.sampled_from(["value", "unknown key", "missing key", "name"]))
    if fault == "value":
        key = data.draw(st.sampled_from(SPEC_KEYS[name]), label="key")
        value = data.draw(bad_spec_values, label="value")
        # Any seed is valid, and degrees are capped at n - 1.
        if key == "weights" and value.strip() in ("", "none") or value.isdigit() and \
                key in ("seed", "hub_degree", "deg", "avg_degree"):
            reject()
        items[key] = value
    elif fault == "unknown key":
        key = data.draw(st.text(alphabet="abcdefgqz_", min_size=1, max_size=6))
        if key.lower() in SPEC_KEYS[name]:
            reject()
        items[key] = "1"
    elif fault == "missing key":
        del items[data.draw(st.sampled_from(sorted(items)))]
    else:
        name = data.draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1,
                                 max_size=8), label="name")
        if name in SPEC_KEYS or name in ("kronecker", "scale_free", "rating"):
            reject()
    spec = f"{name}:" + ",".join(f"{key}={value}" for key, value in items.items())
    command = data.draw(st.sampled_from(["golden", "sim"]))
    argv = ["golden", "--algo", "bfs"] if command == "golden" else \
        ["sim", "--design", "graphicionado", "--algo", "bfs"]
    assert_refused([*argv, "--graph", spec, *OUTPUTS[command]])


# ---------------------------------------------------------------- graph files

MTX = (b"%%MatrixMarket matrix coordinate integer general\n% a comment\n4 4 3\n"
       b"1 2 5\n2 3 7\n4 1 1\n")
EDGES = b"# Nodes: 4\n0 1 5\n1 2 7\n3 0 1\n"
TOKENS = [b"-1", b"0", b"4294967296", b"99999999999999999999", b"1.5", b"nan", b"inf",
          b"x", b"", b" ", b"\n", b"%", b"#", b"%%MatrixMarket", b"pattern", b"symmetric",
          b"real", b"complex", b"array", b"# Nodes: 0", b"# Nodes: 99999999999", b"\x00",
          b"\xff\xfe", b"1 2 3 4", b"\t", b"\r", b"-0", b"1e40"]


@st.composite
def mutated(draw, text: bytes) -> bytes:
    """``text`` with a few of its tokens replaced, removed or duplicated, or cut short."""
    parts = text.replace(b"\n", b" \n ").split(b" ")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(parts) - 1))
        action = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        token = draw(st.sampled_from(TOKENS) | st.binary(max_size=6))
        if action == "replace":
            parts[at] = token
        elif action == "insert":
            parts.insert(at, token)
        elif action == "delete" and len(parts) > 1:
            del parts[at]
        elif action == "cut":
            parts = parts[:at + 1]
    return b" ".join(parts).replace(b" \n ", b"\n")


def npz_bytes(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


array_values = st.one_of(
    st.lists(st.integers(-2**40, 2**40), max_size=5).map(np.array),
    st.lists(st.floats(allow_nan=True), max_size=5).map(lambda v: np.array(v, dtype=float)),
    st.sampled_from([np.array(4), np.array(-1), np.array(2**40), np.array([1, 2]),
                     np.array("text"), np.array(True), np.zeros((2, 2), dtype=np.uint32)]),
)


@st.composite
def npz_files(draw) -> bytes:
    arrays = {"num_vertices": np.array(4), "src": np.array([0, 1, 3], dtype=np.uint32),
              "dst": np.array([1, 2, 0], dtype=np.uint32)}
    kind = draw(st.sampled_from(["array", "missing", "raw", "cut"]))
    if kind == "array":
        key = draw(st.sampled_from(["num_vertices", "src", "dst", "weight", "symmetric"]))
        arrays[key] = draw(array_values)
    elif kind == "missing":
        del arrays[draw(st.sampled_from(sorted(arrays)))]
    elif kind == "raw":
        return draw(st.binary(max_size=64) | st.just(b"PK\x03\x04") |
                    st.just(np.lib.format.magic(1, 0)))
    data = npz_bytes(arrays)
    if kind == "cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    return data


graph_files = st.one_of(
    st.tuples(st.just("g.mtx"), mutated(MTX) | st.binary(max_size=64)),
    st.tuples(st.sampled_from(["g.txt", "g.el", "g"]), mutated(EDGES) | st.binary(max_size=64)),
    st.tuples(st.just("g.npz"), npz_files()),
)


@SETTINGS
@given(file=graph_files, command=st.sampled_from(["golden", "sim"]))
def test_malformed_graph_files(file, command):
    name, data = file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            golden.load_graph(path)
        except GraphError:
            pass
        else:
            reject()
    argv = ["golden", "--algo", "bfs"] if command == "golden" else \
        ["sim", "--design", "graphicionado", "--algo", "bfs"]
    assert_refused([*argv, "--graph", name, *OUTPUTS[command]], {name: data})
