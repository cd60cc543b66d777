"""The memory image of a Graphicionado run: where the host puts the graph and the vertex
arrays (Graphicionado §3.1's pre-processing), the registers that point at them, and how the
results are read back.

Regions, each starting on a 64-byte line: VProperty (one word per vertex), VConst (two words
per vertex for PageRank: 1/outdeg as FP32 and the out-degree), the edge list (four words per
edge: srcid, dstid, weight, 0), the EdgeIDTable slices (one entry per ``coarsening``
vertices of a source stream, then its edge count's end), and two sets of ActiveVertex lists
(id, property). With several streams the per-vertex arrays are stored partition by
partition (:func:`build_image`).
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
    partitions: int = 1             # L: vertex partitions (see hw.graphicionado.partition_walk)
    part_lines: int = 1             # lines between two partitions of a one-word array

    def vertex_values(self, words: np.ndarray) -> np.ndarray:
        """VProperty in vertex order, from the words of its region (partition by partition)."""
        per_part = self.part_lines * 16
        v = np.arange(self.num_vertices)
        return words[(v % self.partitions) * per_part + v // self.partitions]


def _partitioned(values: np.ndarray, partitions: int, part_lines: int) -> np.ndarray:
    """A per-vertex array (rows of words) as ``partitions`` arrays, partition l holding the
    vertices l, l + L, ... from line ``l * part_lines * width``."""
    values = values.reshape(len(values), -1)
    width = values.shape[1]
    out = np.zeros((partitions, part_lines * 16, width), dtype=np.uint32)
    for part in range(partitions):
        rows = values[part::partitions]
        out[part, :len(rows)] = rows
    return out.reshape(-1)


def build_image(graph: Graph, *, algo: str, root: int = 0, coarsening: int = 1,
                max_iterations: int = 0xFFFF_FFFF, streams_src: int = 1,
                streams_dst: int = 1, edge_readers: int = 1) -> GraphImage:
    """Lay out ``graph`` (already symmetrized for CC) and the initial state of ``algo``, as
    the golden model starts it, for ``streams_src`` × ``streams_dst`` streams (§V.A).

    Vertices fall into L = max(n, m) partitions by their low bits; VProperty, VConst and the
    ActiveVertex lists are stored partition by partition. Frontier algorithms: the edges are
    grouped by source stream (srcid mod n, then srcid, dstid), and each source stream has an
    EdgeIDTable slice indexed by ``srcid >> log2(n)``. Full edge access: the edges are grouped
    by partition and edge reader (srcid mod L, dstid mod r, then srcid, dstid; r edge
    readers, §V.B), the first edge id of each group in the ``edge_part_<l * r + k>``
    registers, and VConst holds (1/outdeg, the edges of each reader) per vertex, in a
    power-of-two number of words."""
    n, m = graph.num_vertices, graph.num_edges
    parts = max(streams_src, streams_dst)
    part_lines = max(1, -(-(-(-n // parts)) // 16))
    src, dst = graph.src.astype(np.uint32), graph.dst.astype(np.uint32)
    weight = graph.require_nonnegative_integer_weights() if algo == "sssp" else \
        np.ones(m, dtype=np.uint32)

    ids = np.arange(n, dtype=np.uint32)
    if algo in ("bfs", "sssp"):
        vprop = np.full(n, UINT32_INF, dtype=np.uint32)
        vprop[root] = 0
        active_ids = np.array([root], dtype=np.uint32)
    elif algo == "cc":
        vprop = ids.copy()
        active_ids = ids
    elif algo == "pagerank":
        vprop = np.ones(n, dtype=np.float32).view(np.uint32)
        active_ids = np.zeros(0, dtype=np.uint32)
    else:
        raise ValueError(f"unknown algorithm {algo!r}")
    full = algo == "pagerank"
    readers = edge_readers if full else 1
    if full:
        inverse = pagerank_inv_outdeg(graph)
        const_words = 1 << readers.bit_length()
        vconst = np.zeros((n, const_words), dtype=np.uint32)
        vconst[:, 0] = inverse.view(np.uint32)
        for k in range(readers):
            vconst[:, 1 + k] = np.bincount(src[dst % readers == k], minlength=n)
    else:
        vconst = None

    group = src % parts * readers + dst % readers if full else src % streams_src
    order = np.argsort(group, kind="stable")
    edges = np.stack([src, dst, weight, np.zeros(m, dtype=np.uint32)], axis=1)[order]
    registers = {}
    if full:
        bounds = np.searchsorted(group[order], np.arange(parts * readers + 1))
        registers.update({f"edge_part_{i}": int(bound) for i, bound in enumerate(bounds)})
        table = np.zeros(0, dtype=np.uint32)
        table_count = 0
    else:
        table, table_count = _edge_id_tables(group[order], src[order], n, streams_src,
                                             coarsening)

    active_parts = np.zeros((parts, part_lines * 16, 2), dtype=np.uint32)
    for part in range(parts):
        chosen = active_ids[active_ids % parts == part]
        active_parts[part, :len(chosen)] = np.stack([chosen, vprop[chosen]], axis=1)
        registers[f"active_count_{part}"] = len(chosen)
    if full:
        registers = {k: v for k, v in registers.items() if not k.startswith("active_count")}

    dram = DRAMImage()
    base = {name: dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
            for name, words in [("vprop", _partitioned(vprop, parts, part_lines)),
                                ("vconst", np.zeros(0, dtype=np.uint32) if vconst is None
                                 else _partitioned(vconst, parts, part_lines)),
                                ("edges", edges.reshape(-1)), ("table", table),
                                ("active_a", active_parts.reshape(-1)),
                                ("active_b", np.zeros(active_parts.size, dtype=np.uint32))]}
    registers.update({
        "num_vertices": n, "num_edges": m, "part_lines": part_lines,
        "vprop_base": base["vprop"], "vconst_base": base["vconst"],
        "edge_base": base["edges"], "table_base": base["table"], "table_count": table_count,
        "active_base_a": base["active_a"], "active_base_b": base["active_b"],
        "max_iterations": max_iterations,
    })
    return GraphImage(dram, registers, n, m, parts, part_lines)


def _edge_id_tables(stream_of_edge, src, num_vertices, streams, coarsening):
    """Each source stream's EdgeIDTable slice, one after the other, each ``ceil(count / 16)``
    lines: entry i of stream s is the first edge id of its vertex ``s + i * n`` (every
    ``coarsening``-th), the last entry its edge count's end."""
    local_count = -(-num_vertices // streams)
    count = -(-local_count // coarsening) + 1
    lines = -(-count // 16)
    tables = np.zeros((streams, lines * 16), dtype=np.uint32)
    local = src // streams
    for s in range(streams):
        first, end = np.searchsorted(stream_of_edge, [s, s + 1])
        starts = first + np.searchsorted(local[first:end], np.arange(count) * coarsening)
        tables[s, :count] = np.minimum(starts, end)
    return tables.reshape(-1), count
