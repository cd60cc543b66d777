"""The memory image of a Graphicionado run: where the host puts the graph and the vertex
arrays (Graphicionado §3.1's pre-processing), the registers that point at them, and how the
results are read back.

Regions, each starting on a 64-byte line: VProperty (one word per vertex, the program's
``init``), VConst (full edge access: the program's ``vconst`` word, e.g. PageRank's 1/outdeg,
then the degree words), the edge list (four words per
edge: srcid, dstid, weight, 0), the EdgeIDTable slices (one entry per ``coarsening``
vertices of a source stream, then its edge count's end), and two sets of ActiveVertex lists
(id, property). With several streams the per-vertex arrays are stored partition by
partition (:func:`build_image`).

Graph slicing (§VI.A): the destinations fall into slices of ``slice_vertices`` consecutive
ids; the edges are grouped by slice first, each slice has its own EdgeIDTables (frontier
algorithms) or edge ranges and VConst degree words (full edge access), and full edge access
gets a second VProperty (``vprop_next``) that apply writes while the slices read the first.
"""

import dataclasses

import numpy as np

from golden import Graph
from golden.algorithms import CF_DEFAULTS, cf_program
from golden.programs import golden_program, param_values
from graphgen.programs import Float32
from hw.lib.arith.fp32 import float32_bits
from hw.graphicionado.algorithms import algorithm_of
from hw.graphicionado.registers import param_registers
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
    slices: int = 1                 # graph slices (§VI.A)
    slice_vertices: int = 0         # destinations per slice
    double_vprop: bool = False      # full edge access with slices: VProperty alternates
    property_words: int = 1         # K: words of a vertex property (CF's features)

    def result_region(self, iterations: int) -> str:
        """The region holding VProperty after ``iterations`` iterations."""
        return "vprop_next" if self.double_vprop and iterations % 2 else "vprop"

    def vertex_values(self, words: np.ndarray) -> np.ndarray:
        """VProperty in vertex order, from the words of its region (partition by partition;
        shape (n, K) for K-word properties)."""
        k = self.property_words
        per_part = self.part_lines * 16 * k
        v = np.arange(self.num_vertices)
        first = (v % self.partitions) * per_part + (v // self.partitions) * k
        if k == 1:
            return words[first]
        return words[first[:, None] + np.arange(k)]


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
                streams_dst: int = 1, edge_readers: int = 1, slice_vertices: int | None = None,
                max_slices: int = 1, cf: dict | None = None,
                extended: bool = False, params: dict | None = None,
                edge_words: int = 4, undirected: Graph | None = None) -> GraphImage:
    """Lay out ``graph`` (already symmetrized for undirected programs) and the initial state of
    the program ``algo`` (its ``init``, ``vconst`` and first active set, evaluated by
    ``golden.programs``), for ``streams_src`` × ``streams_dst`` streams (§V.A).

    Vertices fall into L = max(n, m) partitions by their low bits; VProperty, VConst and the
    ActiveVertex lists are stored partition by partition. Frontier algorithms: the edges are
    grouped by source stream (srcid mod n, then srcid, dstid), and each source stream has an
    EdgeIDTable slice indexed by ``srcid >> log2(n)``. Full edge access: the edges are grouped
    by slice, partition and edge reader (srcid mod L, dstid mod r, then srcid, dstid; r edge
    readers, §V.B), the first edge id of each group in the register
    ``edge_part_<(s * L + l) * r + k>`` (slice s), and VConst holds (1/outdeg, the edges of each reader) per vertex, in a
    power-of-two number of words.

    ``slice_vertices`` (a multiple of 16 L; None: one slice) cuts the destinations into
    slices (§VI.A); ``max_slices`` is the hardware's, which sets how many edge-range registers
    full edge access has.

    ``extended``: extended slicing for symmetric graphs (§VI.B; ``graph`` holds the stored
    edges, larger id to smaller): ``slice_vertices`` is a partition's size, N partitions make
    N(N+1)/2 slices in :class:`hw.graphicionado.extended_schedule.ExtendedSchedule`'s order
    (column by column), each with its edge ranges and VConst degree words; the register
    ``ext_partitions`` is N and ``temp_base`` the memory VTempProperty partitions are written
    back to (per partition, per destination stream, ``slice_vertices / m`` vertices of K
    words).

    ``params``: values of the program's parameters (others: their defaults), for the initial
    state and the registers ``param_<k>`` (:func:`hw.graphicionado.registers.param_registers`).

    ``edge_words``: an edge's words in memory (``GraphicionadoConfig.edge_words``): 4, the
    paper's (srcid, dstid, weight, reserved); 2 (dstid, weight) or 1 (dstid), the compact
    layout, in the same order, so that edge ids, table entries and edge ranges are the same.
    With a coarsened EdgeIDTable (frontier programs) the top log2(``coarsening``) bits of a
    compact edge's dstid word hold ``(srcid >> log2(streams_src)) mod coarsening``, the
    source's place in its table entry's group (``GraphicionadoConfig.edge_tag_bits``).

    CF: ``cf`` holds ``golden.cf_program``'s parameters (K, gamma, lam, seed, init_scale);
    VProperty holds K words per vertex (partition l from line ``l * part_lines * K``), the
    edge's weight word its rating as binary32, and the registers ``cf_gamma`` and ``cf_lam``
    Apply's constants.

    ``undirected``: the graph ``graph``'s edges were stored from (the symmetric-graph
    optimisation, §IV.D, each undirected edge once), whose degrees set the program's initial
    state and VConst (PageRank's 1/outdeg counts both directions)."""
    n, m = graph.num_vertices, graph.num_edges
    parts = max(streams_src, streams_dst)
    part_lines = max(1, -(-(-(-n // parts)) // 16))
    align = 16 * parts
    if slice_vertices is None:
        slice_vertices = max(align, -(-n // align) * align)
    if slice_vertices % align:
        raise ValueError(f"slice_vertices {slice_vertices} is not a multiple of 16 x {parts}")
    src, dst = graph.src.astype(np.uint32), graph.dst.astype(np.uint32)
    ext_partitions = max(1, -(-n // slice_vertices))
    if extended:
        if np.any(src < dst):
            raise ValueError("extended slicing stores each undirected edge from the larger "
                             "id to the smaller")
        slices = ext_partitions * (ext_partitions + 1) // 2
        slice_of_edge = _extended_step(src // slice_vertices, dst // slice_vertices,
                                       ext_partitions)
    else:
        slices = ext_partitions
        slice_of_edge = dst.astype(np.int64) // slice_vertices
    if slices > max_slices:
        raise ValueError(f"{slices} slices of {slice_vertices} vertices, more than "
                         f"max_slices={max_slices}")
    program = algorithm_of(algo).program
    full = program.mode == "all"
    if algo == "cf":
        cf_setup = _cf_setup(graph, cf)
        weight = cf_setup.weight.astype(np.float32).view(np.uint32)
        vprop = np.ascontiguousarray(cf_setup.vprop).view(np.uint32)
        first_vconst = None
    else:
        _, setup = golden_program(program, undirected or graph,
                                  root if program.uses_root else None, params)
        weight = _weight_words(program, graph)
        vprop = _words(setup.vprop)
        first_vconst = None if setup.vconst is None else _words(setup.vconst)
    active_ids = np.zeros(0, dtype=np.uint32) if full else \
        np.flatnonzero(setup.active).astype(np.uint32)
    readers = edge_readers if full else 1
    if full:
        const_words = 1 << readers.bit_length()
        # One VConst per slice: the degree words count the slice's edges only.
        vconst = np.zeros((slices, n, const_words), dtype=np.uint32)
        if first_vconst is not None:
            vconst[:, :, 0] = first_vconst
        for s_ in range(slices):
            for k in range(readers):
                chosen = (dst % readers == k) & (slice_of_edge == s_)
                vconst[s_, :, 1 + k] = np.bincount(src[chosen], minlength=n)
    else:
        vconst = None

    group = (slice_of_edge * parts + src % parts) * readers + dst % readers if full else \
        slice_of_edge * streams_src + src % streams_src
    order = np.argsort(group, kind="stable")
    edges = np.stack([src, dst, weight, np.zeros(m, dtype=np.uint32)], axis=1)[order]
    if edge_words < 4 and not full and coarsening > 1:
        edges[:, 1] |= _edge_tags(edges[:, 0], n, streams_src, coarsening)
    edges = edges[:, {4: [0, 1, 2, 3], 2: [1, 2], 1: [1]}[edge_words]]
    registers = {}
    if full:
        bounds = np.searchsorted(group[order], np.arange(max_slices * parts * readers + 1))
        registers.update({f"edge_part_{i}": int(bound) for i, bound in enumerate(bounds)})
        table = np.zeros(0, dtype=np.uint32)
        table_count = 0
    else:
        table, table_count = _edge_id_tables(group[order], src[order], n, streams_src,
                                             coarsening, slices)

    active_parts = np.zeros((parts, part_lines * 16, 2), dtype=np.uint32)
    for part in range(parts):
        chosen = active_ids[active_ids % parts == part]
        if len(chosen):
            active_parts[part, :len(chosen)] = np.stack([chosen, vprop[chosen]], axis=1)
        registers[f"active_count_{part}"] = len(chosen)
    if full:
        registers = {k: v for k, v in registers.items() if not k.startswith("active_count")}

    dram = DRAMImage()
    base = {name: dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
            for name, words in [("vprop", _partitioned(vprop, parts, part_lines)),
                                ("vconst", np.zeros(0, dtype=np.uint32) if vconst is None
                                 else np.concatenate([_partitioned(one, parts, part_lines)
                                                      for one in vconst])),
                                ("edges", edges.reshape(-1)), ("table", table),
                                ("active_a", active_parts.reshape(-1)),
                                ("active_b", np.zeros(active_parts.size, dtype=np.uint32))]}
    double = full and slices > 1
    if double:
        base["vprop_next"] = dram.add("vprop_next", _partitioned(vprop, parts, part_lines))
    if extended:
        words = vprop.shape[1] if vprop.ndim == 2 else 1
        spill_words = ext_partitions * slice_vertices * words
        base["vtemp"] = dram.add("vtemp", np.zeros(spill_words, dtype=np.uint32))
        registers.update({"ext_partitions": ext_partitions, "temp_base": base["vtemp"]})
    registers.update({
        "num_vertices": n, "num_edges": m, "part_lines": part_lines,
        "num_slices": slices, "slice_vertices": slice_vertices,
        "vprop_base": base["vprop"], "vconst_base": base["vconst"],
        "vprop_next_base": base["vprop_next" if double else "vprop"],
        "edge_base": base["edges"], "table_base": base["table"], "table_count": table_count,
        "active_base_a": base["active_a"], "active_base_b": base["active_b"],
        "max_iterations": max_iterations,
    })
    if algorithm_of(algo).apply_reads_root:
        registers["root"] = root
    registers.update(_param_words(algo, params or {}))
    if algo == "cf":
        program = _cf_params(cf)
        registers.update({"cf_gamma": float32_bits(program["gamma"]),
                          "cf_lam": float32_bits(program["lam"])})
    words = vprop.shape[1] if vprop.ndim == 2 else 1
    return GraphImage(dram, registers, n, m, parts, part_lines, slices, slice_vertices, double,
                      words)


def _param_words(algo: str, params: dict) -> dict[str, int]:
    """The registers of the parameters the pipeline reads: each value's 32-bit word."""
    algorithm = algorithm_of(algo)
    values = param_values(algorithm.program, params)
    return {register: float32_bits(values[name]) if algorithm.params[name].type is Float32
            else int(values[name]) for register, name in param_registers(algorithm).items()}


def _words(values: np.ndarray) -> np.ndarray:
    """Per-vertex values as the 32-bit words memory holds (float32 as its bits)."""
    values = np.ascontiguousarray(values)
    return values.view(np.uint32) if values.dtype == np.float32 else values.astype(np.uint32)


def _weight_words(program, graph: Graph) -> np.ndarray:
    """The edges' weight words: what the program reads as ``weight`` (all 1 when it reads
    none)."""
    if program.weight is None or not program.uses_weight:
        return np.ones(graph.num_edges, dtype=np.uint32)
    if program.weight == Float32:
        if graph.weight is None:
            raise ValueError(f"{program.name} needs a float32 weight on every edge")
        return graph.weight.astype(np.float32).view(np.uint32)
    return graph.require_nonnegative_integer_weights().astype(np.uint32)


def _extended_step(part_src: np.ndarray, part_dst: np.ndarray, partitions: int) -> np.ndarray:
    """The schedule position of slice (i, j), i >= j: column by column, i = j .. N - 1."""
    i, j = part_src.astype(np.int64), part_dst.astype(np.int64)
    column_start = j * partitions - j * (j - 1) // 2
    return column_start + (i - j)


def _cf_params(cf: dict | None) -> dict:
    return {**CF_DEFAULTS, **(cf or {})}


def _cf_setup(graph: Graph, cf: dict | None):
    """CF's initial state as the golden model makes it (features, ratings)."""
    return cf_program(**_cf_params(cf)).init(graph)



def _edge_tags(src: np.ndarray, num_vertices: int, streams: int, coarsening: int
               ) -> np.ndarray:
    """Each edge's source's place in its coarsened EdgeIDTable group, in the top
    log2(``coarsening``) bits of a word."""
    bits = coarsening.bit_length() - 1
    if num_vertices > 1 << (32 - bits):
        raise ValueError(f"{num_vertices} vertices do not fit beside {bits} bits of tag")
    place = (src // streams) % coarsening
    return (place << (32 - bits)).astype(np.uint32)


def _edge_id_tables(group_of_edge, src, num_vertices, streams, coarsening, slices=1):
    """Each (graph slice, source stream)'s EdgeIDTable, slice-major, one after the other,
    each ``ceil(count / 16)`` lines: entry i of stream s is the first edge id of its vertex
    ``s + i * n`` (every ``coarsening``-th) among the slice's edges, the last entry their
    end. ``group_of_edge`` is ``slice * streams + stream``, ascending."""
    local_count = -(-num_vertices // streams)
    count = -(-local_count // coarsening) + 1
    lines = -(-count // 16)
    tables = np.zeros((slices * streams, lines * 16), dtype=np.uint32)
    local = src // streams
    for g in range(slices * streams):
        first, end = np.searchsorted(group_of_edge, [g, g + 1])
        starts = first + np.searchsorted(local[first:end], np.arange(count) * coarsening)
        tables[g, :count] = np.minimum(starts, end)
    return tables.reshape(-1), count
