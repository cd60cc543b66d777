"""What the pipeline builds from a program: the facts the hand-written table gave for the
built-ins (reduce identity, full edge access, floating point, large property) derived from
the programs; file programs by ``path:Class``; refusals naming the program and the reason;
the reduce expression against golden.programs' reductions."""

import numpy as np
import pytest

from golden.programs import evaluate
from graphgen.programs import PROGRAMS, Float32, Param, UInt, VertexProgram, build, uint
from hw.graphicionado.algorithms import algorithm_of, check_buildable, reduce_expression
from hw.lib.config import ConfigError
from tests.support.examples import examples_path


def test_programs_as_the_pipeline_sees_them():
    table = {"bfs": (0xFFFF_FFFF, False, False, False), "sssp": (0xFFFF_FFFF, False, False, False),
             "cc": (0xFFFF_FFFF, False, False, False), "pagerank": (0, True, True, False),
             "cf": (0, True, True, True),
             "ppr": (0, True, True, False), "spmv": (0, True, True, False),
             "widest": (0, False, False, False), "labelprop": (0, False, False, False)}
    for name, facts in table.items():
        algorithm = algorithm_of(name if name in PROGRAMS else examples_path(name))
        assert algorithm.name == name
        assert (algorithm.reduce_identity, algorithm.full_edge_access,
                algorithm.floating_point, algorithm.large_property) == facts, name
        assert algorithm.frontier == (not facts[1])


def _program(**fields):
    base = {"prop": UInt(32), "reduce": "min", "init": lambda self, h: uint(0),
            "process_edge": lambda self, e: e.src_prop, "apply": lambda self, v: v.temp}
    base.update(fields)
    return build(type("P", (VertexProgram,), base))


def test_refusals_name_the_program_and_the_reason():
    assert algorithm_of(examples_path("ppr")).apply_reads_root
    assert not algorithm_of("pagerank").apply_reads_root
    with pytest.raises(ConfigError, match="algo: unknown program 'dfs'"):
        algorithm_of("dfs")
    with pytest.raises(ConfigError, match="32-bit properties"):
        check_buildable(_program(prop=UInt(16), init=lambda self, h: uint(0, 16),
                                 process_edge=lambda self, e: e.src_prop))
    with pytest.raises(ConfigError, match="Apply reads vconst"):
        check_buildable(_program(vconst=lambda self, h: h.out_degree,
                                 apply=lambda self, v: v.vconst))
    with pytest.raises(ConfigError, match="src_const"):
        check_buildable(_program(vconst=lambda self, h: h.out_degree,
                                 process_edge=lambda self, e: e.src_const))
    with pytest.raises(ConfigError, match="tolerance"):
        check_buildable(_program(prop=Float32, reduce="fadd", mode="all", tolerance=0.01,
                                 init=lambda self, h: Param("x", Float32, 1.0)))
    with pytest.raises(ConfigError, match="Apply reading vprop"):
        check_buildable(_program(prop=Float32, reduce="fadd", mode="all", iterations=2,
                                 init=lambda self, h: Param("x", Float32, 1.0),
                                 apply=lambda self, v: v.vprop))


def test_file_programs(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("from graphgen.programs import UInt, VertexProgram, maximum, uint\n"
                    "class Mine(VertexProgram):\n"
                    "    prop = UInt(32)\n    reduce = 'max'\n"
                    "    def init(self, h): return uint(0)\n"
                    "    def process_edge(self, e): return e.src_prop\n"
                    "    def apply(self, v): return maximum(v.vprop, v.temp)\n")
    algorithm = algorithm_of(f"{path}:Mine")
    assert algorithm.name == "mine" and algorithm.reduce_identity == 0


def test_reduce_expressions():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 1 << 32, 50, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, 50, dtype=np.uint64).astype(np.uint32)
    for name, want in (("bfs", np.minimum(a, b)), (examples_path("widest"), np.maximum(a, b))):
        got = evaluate(reduce_expression(algorithm_of(name).program), {"a": a, "b": b})
        assert got.tolist() == want.tolist()
    x, y = rng.random(50).astype(np.float32), rng.random(50).astype(np.float32)
    got = evaluate(reduce_expression(algorithm_of("pagerank").program), {"a": x, "b": y})
    assert got.view(np.uint32).tolist() == (x + y).view(np.uint32).tolist()


def _vector_program(process_edge, apply=None, **fields):
    from graphgen.programs import Float32Vector, vadd
    base = {"prop": Float32Vector(8), "reduce": "fadd", "weight": Float32, "mode": "all",
            "iterations": 2, "init": lambda self, h: h.random(1),
            "process_edge": lambda self, e: process_edge(e),
            "apply": lambda self, v: (apply or (lambda v: vadd(v.vprop, v.temp)))(v)}
    base.update(fields)
    return build(type("V", (VertexProgram,), base))


def test_vector_programs_of_the_built_shapes_build():
    """Any Float32Vector program of the flit pipeline's shapes: lane-wise alone, a dot's
    scalar read directly, or the scalar of a dot (CF's shape)."""
    from graphgen.programs import dot, fmul, scale, vsub
    for process_edge in (lambda e: scale(e.src_prop, e.weight),
                         lambda e: scale(vsub(e.dst_prop, e.src_prop), dot(e.src_prop,
                                                                          e.dst_prop)),
                         lambda e: scale(e.dst_prop, fmul(e.weight, dot(e.src_prop,
                                                                        e.src_prop)))):
        check_buildable(_vector_program(process_edge))


def test_vector_shapes_not_built_are_refused_in_one_line():
    from graphgen.programs import dot, fadd, scale, vadd
    cases = [
        (lambda e: scale(e.src_prop, dot(scale(e.src_prop, dot(e.src_prop, e.dst_prop)),
                                         e.dst_prop)),
         r"lane sum \(dot\) of a vector computed from"),
        (lambda e: scale(e.src_prop, fadd(dot(e.src_prop, e.src_prop),
                                          dot(e.dst_prop, e.dst_prop))), "2 lane sums"),
        (lambda e: vadd(scale(e.src_prop, dot(e.src_prop, e.dst_prop)),
                        scale(e.dst_prop, fadd(dot(e.src_prop, e.dst_prop), 1.0))),
         "reads 2 scalars computed from the lane sum"),
    ]
    for process_edge, message in cases:
        with pytest.raises(ConfigError, match=message) as error:
            check_buildable(_vector_program(process_edge))
        assert "\n" not in str(error.value)
    with pytest.raises(ConfigError, match="mode 'all'"):
        check_buildable(_vector_program(lambda e: e.src_prop, mode="frontier",
                                        iterations=None))
    with pytest.raises(ConfigError, match="lane sum .* in Apply is not built"):
        check_buildable(_vector_program(lambda e: e.src_prop,
                                        apply=lambda v: scale(v.temp, dot(v.temp, v.temp))))


def test_vector_file_programs_build_but_are_not_simulated(tmp_path):
    """A Float32Vector program of a file configures the pipeline; the simulation's image and
    golden check are CF's, so simulating it is refused in one line."""
    from golden import bipartite
    from hw.graphicionado.config import GraphicionadoConfig
    from sim.graphicionado.run import check_graph
    path = tmp_path / "vec.py"
    path.write_text("from graphgen.programs import *\n"
                    "class Vec(VertexProgram):\n"
                    "    prop = Float32Vector(8)\n    reduce = 'fadd'\n    weight = Float32\n"
                    "    mode = 'all'\n    iterations = 2\n"
                    "    def init(self, h): return h.random(1)\n"
                    "    def process_edge(self, e): return scale(e.dst_prop, e.weight)\n"
                    "    def apply(self, v): return vadd(v.vprop, v.temp)\n")
    config = GraphicionadoConfig(algo=f"{path}:Vec", property_bytes=32, max_vertices=64)
    assert config.algorithm.large_property and (config.lanes, config.flits) == (8, 1)
    with pytest.raises(ConfigError, match="golden check of Float32Vector programs are CF's"):
        check_graph(bipartite(8, 5, 2, seed=2), config.algo, config)
