"""The program a DepGraph design runs (``hw/depgraph/program.py``): any program with a GAS
form is accepted by name or file, the hub index only for one it can run, refused with one
line naming the program and the reason."""

import numpy as np
import pytest

from hw.depgraph.config import DepGraphConfig
from hw.depgraph.program import hub_index_refusal, stored
from hw.lib.config import ConfigError
from tests.support.examples import spec_of

USER = '''
from graphgen.programs import UInt, VertexProgram, minimum, sat_add, select, uint


class TwoHops(VertexProgram):
    """Shortest paths where every edge costs its weight plus one."""
    prop = UInt(32)
    reduce = "min"

    def init(self, h):
        return select(h.is_root, uint(0), uint(2**32 - 1))

    def process_edge(self, e):
        return sat_add(e.src_prop, sat_add(e.weight, 1))

    def apply(self, v):
        return minimum(v.vprop, v.temp)
'''


@pytest.mark.parametrize("algo", ["bfs", "sssp", "cc", "pagerank", "ppr"])
def test_builtins_with_the_hub_index(algo):
    config = DepGraphConfig(algo=spec_of(algo), hub_index=True)
    assert config.gas.name == algo and config.is_min == (algo not in ("pagerank", "ppr"))


def test_a_non_linear_program_with_the_hub_index_is_refused():
    assert DepGraphConfig(algo=spec_of("widest")).gas.accum == "max"
    with pytest.raises(ConfigError) as refused:
        DepGraphConfig(algo=spec_of("widest"), hub_index=True)
    assert str(refused.value) == ("hub_index: program widest: EdgeCompute of widest: "
                                  "min(x, weight) is not of the form mu*x + eps")
    with pytest.raises(ConfigError, match="^hub_index: program labelprop: the hub index is "
                                          "built for min and sum Accum, not max$"):
        DepGraphConfig(algo=spec_of("labelprop"), hub_index=True)


def test_a_program_file(tmp_path):
    path = tmp_path / "two_hops.py"
    path.write_text(USER)
    config = DepGraphConfig(algo=f"{path}:TwoHops")
    assert config.gas.name == "twohops" and config.gas.linearity.linear
    assert "built from a constant or the edge weight" in hub_index_refusal(config.gas)
    with pytest.raises(ConfigError, match="^hub_index: program twohops: the walk adds eps"):
        DepGraphConfig(algo=f"{path}:TwoHops", hub_index=True)
    with pytest.raises(ConfigError, match="defines no class Missing"):
        DepGraphConfig(algo=f"{path}:Missing")
    before = DepGraphConfig(algo=f"{path}:TwoHops")
    assert before.digest() != DepGraphConfig(algo="sssp").digest()
    path.write_text(USER.replace("sat_add(e.weight, 1)", "sat_add(e.weight, 2)"))
    after = DepGraphConfig(algo=f"{path}:TwoHops")
    assert after.digest() != before.digest() and after.run_digest() != before.run_digest()


def test_max_words_are_stored_complemented():
    words = np.array([0, 5, 2**32 - 1], dtype=np.uint32)
    widest = DepGraphConfig(algo=spec_of("widest")).gas
    assert stored(widest, words).tolist() == [2**32 - 1, 2**32 - 6, 0]
    assert stored(widest, stored(widest, words)).tolist() == words.tolist()
    assert stored(DepGraphConfig(algo="bfs").gas, words).tolist() == words.tolist()


@pytest.mark.parametrize("algo, words", [("bfs", 1), ("cc", 1), ("pagerank", 1), ("sssp", 2),
                                         ("widest", 2)])
def test_an_edge_holds_the_weight_only_when_the_program_reads_it(algo, words):
    """``edge_format`` csr (the default): the destination alone, sixteen a line, unless the
    program reads the weight; weighted: always (dst, weight). The image follows."""
    import golden
    from sim.depgraph.image import edge_region_words
    config = DepGraphConfig(algo=spec_of(algo))
    weighted = DepGraphConfig(algo=spec_of(algo), edge_format="weighted")
    assert (config.edge_words, config.edges_per_line) == (words, 16 // words)
    assert (weighted.edge_words, weighted.edges_per_line) == (2, 8)
    assert config.digest() != weighted.digest()
    graph = golden.from_spec("kron:scale=5,ef=3,seed=7,weights=1:20")
    dst = graph.dst.astype(np.uint32)
    image = edge_region_words(graph, config)
    assert image.dtype == np.uint32 and image.size == words * graph.num_edges
    assert (image[::words] == dst).all()
    pairs = edge_region_words(graph, weighted).reshape(-1, 2)
    assert (pairs[:, 0] == dst).all()
    want = graph.weight if config.gas.uses_weight else np.ones(graph.num_edges)
    assert (pairs[:, 1] == want).all()


def test_a_program_file_that_starts_reading_the_weight(tmp_path):
    """The edge layout is derived from the program, which the digest covers."""
    path = tmp_path / "hops.py"
    path.write_text(USER.replace("sat_add(e.weight, 1)", "uint(1)"))
    before = DepGraphConfig(algo=f"{path}:TwoHops")
    path.write_text(USER)
    after = DepGraphConfig(algo=f"{path}:TwoHops")
    assert (before.edge_words, after.edge_words) == (1, 2)
    assert before.digest() != after.digest()
