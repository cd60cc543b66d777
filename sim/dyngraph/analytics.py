"""Analytics on the updated graph (issue 19, item 3): the compactor's lists, read back from the
dynamic graph unit's memory, become the edge list, EdgeIDTable and VConst of a Graphicionado
run, whose result is checked against the golden model on the golden updated graph.

The two units are simulated one after the other: the words the compactor wrote are put, word
for word, over the regions Graphicionado's host would have laid out (``overlay`` of
:func:`sim.graphicionado.run.simulate`), so every word of the graph the pipeline reads is the
compactor's. The compacted list is the one-stream layout (sources ascending, one edge
reader), so the pipeline has one source and one destination stream.
"""

import dataclasses

import numpy as np

import golden
from hw.dyngraph.compact_index import RECORD_WORDS
from hw.lib.config import ConfigError
from hw.graphicionado.config import GraphicionadoConfig
from sim.gateware.sim_memory import SimMemoryConfig
from sim.graphicionado.run import GraphicionadoReport, simulate as simulate_graphicionado
from sim.run_settings import RunSettings


__all__ = ["ANALYTICS", "analytics_config", "run_analytics"]

ANALYTICS = ("bfs", "sssp", "pagerank")
# The regions each algorithm's pipeline reads from the compactor's output.
_READS = {"bfs": ("edges", "table"), "sssp": ("edges", "table"), "pagerank": ("edges", "vconst")}


def analytics_config(algo: str, num_vertices: int, edge_words: int = RECORD_WORDS,
                     **settings) -> GraphicionadoConfig:
    """A one-stream Graphicionado build for ``num_vertices`` vertices (its scratchpad the
    next power of two, at least 64) reading the compactor's edges of ``edge_words`` words:
    4, the paper's records (``edge_format`` coo); 1 or 2, ``edge_format`` csr (whose edge
    words the program sets: a weight or not)."""
    size = max(64, 1 << max(0, num_vertices - 1).bit_length())
    layout = "coo" if edge_words == RECORD_WORDS else "csr"
    return GraphicionadoConfig(**{"algo": algo, "max_vertices": size, "edge_format": layout,
                                  **settings})


def _check(algo: str, config: GraphicionadoConfig, num_vertices: int):
    if algo not in ANALYTICS:
        raise ConfigError(f"analytics on the dynamic graph run {', '.join(ANALYTICS)}, "
                          f"not {algo!r}")
    if config.algo != algo:
        raise ConfigError(f"the Graphicionado build runs {config.algo}, not {algo}")
    one_stream = (config.streams_src, config.streams_dst, config.edge_readers,
                  config.coarsening) == (1, 1, 1, 1)
    if not one_stream or config.extended_slicing or config.symmetric:
        raise ConfigError("the compactor writes the one-stream edge list: the Graphicionado "
                          "build needs streams_src=1, streams_dst=1, edge_readers=1, "
                          "coarsening=1, no extended slicing")
    if num_vertices > config.max_vertices:
        raise ConfigError(f"the compacted graph has {num_vertices} vertices, more than the "
                          f"Graphicionado build's max_vertices ({config.max_vertices})")


def run_analytics(dyn_report, config: GraphicionadoConfig,
                  memory: SimMemoryConfig | None = None,
                  run: RunSettings = RunSettings()) -> GraphicionadoReport:
    """Run the configuration's algorithm (``run.algo``, if given, must be it) in
    Graphicionado's RTL on the lists a compacting dynamic-graph run (``dyn_report``, from
    :func:`sim.dyngraph.run.simulate` with ``compact_vertices``) wrote: Graphicionado's
    :func:`~sim.graphicionado.run.simulate` with ``memory`` and ``run``, the compactor's words
    as its ``overlay``, the graph named ``dyngraph-compacted``; BFS and SSSP start from
    ``run.root``, or else the vertex with the most edges out."""
    compaction, reference = dyn_report.compaction, dyn_report.compacted_reference
    if compaction is None:
        raise ConfigError("the dynamic graph run did not compact its graph "
                          "(compact_vertices=0)")
    if not compaction["matches_golden"]:
        raise ConfigError(f"the compactor's lists differ from the golden model's: "
                          f"{compaction['first_mismatch']}")
    if run.overlay is not None:
        raise ConfigError("the analytics run's overlay is the compactor's words, not one "
                          "of its own")
    algo = run.algo or config.algo
    n, m = reference.num_vertices, reference.num_edges
    _check(algo, config, n)
    words_an_edge = compaction["edge_words"]
    if config.edge_words != words_an_edge:
        raise ConfigError(f"the compactor wrote edges of {words_an_edge} words "
                          f"(compact_edge_words), the Graphicionado build reads "
                          f"{config.edge_words} (edge_format {config.edge_format}, {algo})")
    graph = golden.Graph.from_edges(n, reference.src, reference.dst, reference.weight,
                                    name="updated")
    words = dyn_report.compacted
    lengths = {"edges": words_an_edge * m, "table": n + 1, "vconst": 2 * n}
    overlay = {name: np.asarray(words[name][:lengths[name]], dtype=np.uint32)
               for name in _READS[algo]}
    root = run.root
    if algo in ("bfs", "sssp") and root is None:
        root = int(np.argmax(graph.out_degree))
    return simulate_graphicionado(graph, config, memory, dataclasses.replace(
        run, algo=algo, root=root, overlay=overlay,
        graph_name="dyngraph-compacted"))
