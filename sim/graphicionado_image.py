"""The memory image of a Graphicionado run: where the host puts the graph and the vertex
arrays (Graphicionado §3.1's pre-processing), the registers that point at them, and how the
results are read back.

Regions, each starting on a 64-byte line: VProperty (one word per vertex), VConst (two words
per vertex for PageRank: 1/outdeg as FP32 and the out-degree), the edge list (four words per
edge: srcid, dstid, weight, 0; sorted by srcid then dstid), the EdgeIDTable (one entry per
``coarsening`` vertices, then the edge count), and two ActiveVertex lists (id, property).
"""

import dataclasses

import numpy as np

from golden import Graph, pagerank_inv_outdeg
from hw.graphicionado.algorithms import UINT32_INF
from sim.dram_image import DRAMImage


__all__ = ["GraphImage", "build_image"]


@dataclasses.dataclass
class GraphImage:
    dram: DRAMImage                 # the regions, laid out one after the other
    registers: dict[str, int]
    num_vertices: int
    num_edges: int


def build_image(graph: Graph, *, algo: str, root: int = 0, coarsening: int = 1,
                max_iterations: int = 0xFFFF_FFFF) -> GraphImage:
    """Lay out ``graph`` (already symmetrized for CC) and the initial state of ``algo``, as
    the golden model starts it."""
    n, m = graph.num_vertices, graph.num_edges
    src, dst = graph.src.astype(np.uint32), graph.dst.astype(np.uint32)
    weight = graph.require_nonnegative_integer_weights() if algo == "sssp" else \
        np.ones(m, dtype=np.uint32)
    degree = graph.out_degree.astype(np.uint32)
    offsets = graph.edge_id_table.astype(np.uint32)

    ids = np.arange(n, dtype=np.uint32)
    if algo in ("bfs", "sssp"):
        vprop = np.full(n, UINT32_INF, dtype=np.uint32)
        vprop[root] = 0
        active = np.array([root, 0], dtype=np.uint32)
    elif algo == "cc":
        vprop = ids.copy()
        active = np.stack([ids, ids], axis=1).reshape(-1)
    elif algo == "pagerank":
        vprop = np.ones(n, dtype=np.float32).view(np.uint32)
        active = np.zeros(0, dtype=np.uint32)
    else:
        raise ValueError(f"unknown algorithm {algo!r}")
    if algo == "pagerank":
        inverse = pagerank_inv_outdeg(graph)
        vconst = np.stack([inverse.view(np.uint32), degree], axis=1).reshape(-1)
    else:
        vconst = np.zeros(0, dtype=np.uint32)
    table = offsets[np.minimum(np.arange(0, -(-n // coarsening) + 1) * coarsening, n)]
    edges = np.stack([src, dst, weight, np.zeros(m, dtype=np.uint32)], axis=1).reshape(-1)

    active_a = np.zeros(2 * n, dtype=np.uint32)
    active_a[:len(active)] = active
    dram = DRAMImage()
    base = {name: dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
            for name, words in [("vprop", vprop), ("vconst", vconst), ("edges", edges),
                                ("table", table), ("active_a", active_a),
                                ("active_b", np.zeros(2 * n, dtype=np.uint32))]}
    registers = {
        "num_vertices": n, "num_edges": m,
        "vprop_base": base["vprop"], "vconst_base": base["vconst"],
        "edge_base": base["edges"], "table_base": base["table"],
        "table_count": len(table),
        "active_base_a": base["active_a"], "active_base_b": base["active_b"],
        "active_count": len(active) // 2, "max_iterations": max_iterations,
    }
    return GraphImage(dram, registers, n, m)
