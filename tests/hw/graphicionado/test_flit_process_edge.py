# amaranth: UnusedElaboratable=no
"""Process_Edge on flits (P5, §IV.E) built from collaborative filtering's program, and the
vector FP32 blocks it is built of, against the golden model's CF program bit for bit: each
edge packet in, the update packet ``err * p[u]`` out, flit by flit, in order, with and
without pauses."""

import numpy as np
import pytest

from golden.algorithms import cf_program, pairwise_sum
from hw.lib.config import ConfigError
from hw.lib.arith.fp32 import QNAN
from hw.lib.arith.fp32_vector import FP32PairSum, FP32TreeSum
from graphgen.programs import cf_program as cf_vertex_program
from hw.graphicionado.flit_process_edge import FlitProcessEdge
from tests.support.stream_drivers import PAUSES, Bench


def cf_process_edge(lanes, flits, **options):
    """Process_Edge built from CF's program with ``lanes * flits`` features."""
    return FlitProcessEdge(program=cf_vertex_program(lanes * flits), lanes=lanes, flits=flits,
                           **options)


def bits(values):
    """float32 values as the RTL's bit patterns (a NaN as the canonical quiet NaN)."""
    values = np.asarray(values, dtype=np.float32)
    out = values.view(np.uint32).astype(np.int64)
    out[np.isnan(values)] = QNAN
    return [int(x) for x in out.ravel()]


def random_properties(rng, count, K):
    """Properties as CF has them (small positive values), with some of every sign and
    magnitude, zeros and specials."""
    p = rng.random((count, K), dtype=np.float32) * np.float32(0.5)
    wild = rng.random((count, K)) < 0.1
    chosen = rng.choice(np.array([0.0, -0.0, 1e-40, -3.5, 7e30, np.inf, -np.inf, np.nan,
                                  1e-20, 2.0], dtype=np.float32), size=(count, K))
    p[wild] = chosen[wild]
    return p


def edge_packets(rng, edges, lanes, flits):
    """Packets in, and the golden model's update packets."""
    K = lanes * flits
    p_u, p_v = random_properties(rng, edges, K), random_properties(rng, edges, K)
    ratings = rng.integers(1, 6, edges).astype(np.float32)
    ratings[rng.random(edges) < 0.1] = np.float32(-0.0)
    dst = rng.integers(0, 1 << 20, edges)
    res = cf_program(K=K).process_edge(ratings, p_u, None, p_v)
    items, expected = [], []
    for e in range(edges):
        for f in range(flits):
            words = slice(f * lanes, (f + 1) * lanes)
            items.append({"edge": {"src": int(rng.integers(1 << 20)), "dst": int(dst[e]),
                                   "weight": bits(ratings[e])[0], "reserved": 0},
                          "flit": f, "src_prop": bits(p_u[e, words]),
                          "dst_prop": bits(p_v[e, words])})
            expected.append({"dst": int(dst[e]), "flit": f, "value": bits(res[e, words])})
    return items, expected


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("lanes, flits", [(8, 4), (4, 1), (2, 2)])
def test_cf_process_edge(lanes, flits, pause):
    rng = np.random.default_rng(lanes * 10 + flits)
    edges = 48 if flits > 1 else 96
    items, expected = edge_packets(rng, edges, lanes, flits)
    dut = cf_process_edge(lanes=lanes, flits=flits)
    bench = Bench(dut, f"FlitProcessEdge({lanes} lanes, {flits} flits)", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(expected))
    cycles = bench.run()
    bench.check_equal(bench.received["o"], expected)
    # A flit per cycle: the packet latency (about 45 cycles with 8 lanes and 4 flits) once,
    # then one flit a cycle, and the bench's 20 cycles of settling.
    if pause is None and cycles > len(items) + 50 + 20:
        bench.fail(f"{cycles} cycles for {len(items)} flits without pauses")


def test_cf_process_edge_subtracts_from_the_destination_base():
    rng = np.random.default_rng(5)
    items, expected = edge_packets(rng, 6, 2, 2)
    dut = cf_process_edge(lanes=2, flits=2, dst_shift=2)
    bench = Bench(dut, "FlitProcessEdge(dst_shift=2)", pause=None)

    async def base(ctx):
        ctx.set(dut.dst_base, 3)
    bench.sim.add_testbench(base)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(expected))
    bench.run()
    want = [{**item, "dst": ((item["dst"] >> 2) - 3) & 0xFFFF_FFFF} for item in expected]
    bench.check_equal(bench.received["o"], want)


@pytest.mark.parametrize("pause", PAUSES)
def test_cf_process_edge_symmetric_updates_both_ends(pause):
    """§IV.D: each edge (u, v) gives v's packet, err * p[u], then u's, err * p[v] (the golden
    model's CF program with the ends swapped), each naming its vertex's stream; a self-loop
    gives v's packet alone."""
    rng = np.random.default_rng(11)
    lanes, flits, shift = 4, 2, 2
    items, forward = edge_packets(rng, 40, lanes, flits)
    for e in range(40):                     # one source per packet; some self-loops
        for f in range(flits):
            items[e * flits + f]["edge"]["src"] = items[e * flits]["edge"][
                "dst" if e % 7 == 0 else "src"]
    expected = []
    for e in range(40):
        first = items[e * flits]
        u, v = first["edge"]["src"], first["edge"]["dst"]
        rating = np.array(first["edge"]["weight"], dtype=np.uint32).view(np.float32)[None]
        p_u = np.array([w for f in range(flits) for w in items[e * flits + f]["src_prop"]],
                       dtype=np.uint32).view(np.float32)[None]
        p_v = np.array([w for f in range(flits) for w in items[e * flits + f]["dst_prop"]],
                       dtype=np.uint32).view(np.float32)[None]
        program = cf_program(K=lanes * flits)
        ends = [(v, program.process_edge(rating, p_u, None, p_v)[0])]
        if u != v:
            ends.append((u, program.process_edge(rating, p_v, None, p_u)[0]))
        for vertex, res in ends:
            expected += [{"dst": vertex >> shift, "owner": vertex & 3, "flit": f,
                          "value": bits(res[f * lanes:(f + 1) * lanes])} for f in range(flits)]
    assert [x for x in expected if x["flit"] == 0][0]["value"] == \
        [x for x in forward if x["flit"] == 0][0]["value"]
    dut = cf_process_edge(lanes=lanes, flits=flits, dst_shift=shift, symmetric=True,
                          owner_bits=shift)
    bench = Bench(dut, "FlitProcessEdge(symmetric)", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(expected))
    bench.run()
    bench.check_equal(bench.received["o"], expected)


@pytest.mark.parametrize("pause", PAUSES[:2])
def test_tree_and_pair_sums_continue_one_tree(pause):
    """An 8-lane tree then two pair sums: the pairwise sum of 32 words."""
    from amaranth.hdl import Module
    from amaranth.lib import wiring

    class Chain(wiring.Component):
        def __init__(self):
            self.tree, self.pairs = FP32TreeSum(8, 4), [FP32PairSum(4), FP32PairSum(4)]
            super().__init__({"i": wiring.In(self.tree.i.signature.flip()),
                              "o": wiring.Out(self.pairs[1].o.signature)})

        def elaborate(self, platform):
            m = Module()
            m.submodules.tree = self.tree
            m.submodules.pair0, m.submodules.pair1 = self.pairs
            wiring.connect(m, wiring.flipped(self.i), self.tree.i)
            source = self.tree.o
            for pair in self.pairs:
                m.d.comb += [pair.i.valid.eq(source.valid),
                             pair.i.payload.value.eq(source.payload.result),
                             pair.i.payload.tag.eq(source.payload.tag),
                             source.ready.eq(pair.i.ready)]
                source = pair.o
            wiring.connect(m, source, wiring.flipped(self.o))
            return m

    rng = np.random.default_rng(9)
    x = random_properties(rng, 20, 32)
    dut = Chain()
    bench = Bench(dut, "FP32TreeSum(8) + 2 FP32PairSum", pause=pause)
    bench.source("i", dut.i, [{"a": bits(x[e, f * 8:(f + 1) * 8]), "tag": f + 4 * (e % 4)}
                              for e in range(20) for f in range(4)])
    bench.sink("o", dut.o, 20)
    bench.run()
    want = [{"result": r, "tag": 3 + 4 * (e % 4)} for e, r in enumerate(bits(pairwise_sum(x)))]
    bench.check_equal(bench.received["o"], want)


@pytest.mark.parametrize("change", [dict(lanes=3), dict(flits=0), dict(lanes=64),
                                    dict(flits=True)])
def test_cf_process_edge_refuses_shapes_it_cannot_build(change):
    with pytest.raises(ConfigError,
                       match="FlitProcessEdge: (lanes|flits) must be a power of two"):
        FlitProcessEdge(program=cf_vertex_program(8), **change)


@pytest.mark.parametrize("change", [dict(owner_bits=2, dst_shift=2),
                                    dict(owner_bits=1, dst_shift=2, symmetric=True)])
def test_cf_process_edge_refuses_owners_without_the_symmetric_network(change):
    with pytest.raises(ConfigError, match="FlitProcessEdge: owner_bits"):
        FlitProcessEdge(program=cf_vertex_program(8), **change)


def _vector_program(K, process_edge):
    """A Float32Vector program of K features with this Process_Edge (CF's Apply)."""
    from graphgen.programs import Float32, Float32Vector, VertexProgram, build, vadd
    return build(type("Shape", (VertexProgram,), {
        "prop": Float32Vector(K), "reduce": "fadd", "weight": Float32, "mode": "all",
        "iterations": 2, "init": lambda self, h: h.random(1),
        "process_edge": lambda self, e: process_edge(e),
        "apply": lambda self, v: vadd(v.vprop, v.temp)}))


def _shapes():
    from graphgen.programs import dot, fadd, fmul, scale, vadd, vmul, vsub
    return {
        # lane-wise alone: no barrier, each flit as its packet's header is at hand
        "lane-wise": lambda e: vadd(scale(e.src_prop, e.weight), vmul(e.src_prop,
                                                                      e.dst_prop)),
        # the lane sum read directly by the lane-wise part
        "dot itself": lambda e: scale(vsub(e.dst_prop, e.src_prop), dot(e.src_prop,
                                                                       e.dst_prop)),
        # a scalar of the lane sum and the weight, and the weight in the lane-wise part too
        "scalar of a dot": lambda e: vadd(scale(e.dst_prop, fmul(e.weight, fadd(
            dot(e.src_prop, e.dst_prop), 1.0))), scale(e.src_prop, e.weight)),
    }


@pytest.mark.parametrize("pause", PAUSES[:2])
@pytest.mark.parametrize("shape", ["lane-wise", "dot itself", "scalar of a dot"])
def test_process_edge_of_other_vector_programs(shape, pause):
    """Programs of the other shapes FlitSplit builds, against golden.programs.evaluate of
    their process_edge bit for bit (4 lanes, 2 flits)."""
    from golden.programs import evaluate
    lanes, flits, edges = 4, 2, 24
    K = lanes * flits
    program = _vector_program(K, _shapes()[shape])
    rng = np.random.default_rng(31)
    items, _ = edge_packets(rng, edges, lanes, flits)

    def vectors(field):
        return np.array([[w for f in range(flits) for w in items[e * flits + f][field]]
                         for e in range(edges)], dtype=np.uint32).view(np.float32)
    weight = np.array([items[e * flits]["edge"]["weight"] for e in range(edges)],
                      dtype=np.uint32).view(np.float32)
    res = evaluate(program.process_edge, {"weight": weight, "src_prop": vectors("src_prop"),
                                          "dst_prop": vectors("dst_prop")})
    expected = [{"dst": items[e * flits]["edge"]["dst"], "flit": f,
                 "value": bits(res[e, f * lanes:(f + 1) * lanes])}
                for e in range(edges) for f in range(flits)]
    dut = FlitProcessEdge(program=program, lanes=lanes, flits=flits)
    bench = Bench(dut, f"FlitProcessEdge({shape})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(expected))
    bench.run()
    bench.check_equal(bench.received["o"], expected)


def test_symmetric_needs_a_lane_sum_symmetric_in_the_two_ends():
    from graphgen.programs import dot, fsub, scale
    program = _vector_program(8, lambda e: scale(e.src_prop, fsub(dot(e.src_prop, e.src_prop),
                                                                  dot(e.src_prop, e.dst_prop))))
    with pytest.raises(ConfigError, match="2 lane sums"):
        FlitProcessEdge(program=program, lanes=4, flits=2)
    program = _vector_program(8, lambda e: scale(e.src_prop, dot(e.src_prop, e.src_prop)))
    FlitProcessEdge(program=program, lanes=4, flits=2)
    with pytest.raises(ConfigError, match="symmetric needs a lane sum symmetric in src_prop "
                                          "and dst_prop"):
        FlitProcessEdge(program=program, lanes=4, flits=2, symmetric=True)
