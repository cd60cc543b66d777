"""The memory image of a DepGraph run and the values ``DEP_configure`` writes into the
register block (Zhang et al., HPCA 2021, §III-B "initialisation").

The software pre-processing (partitions, hubs, the H'' bitmap, the initial deltas) is the
golden model's (:func:`golden.depgraph.run_depgraph`); this lays its results out as
:mod:`hw.depgraph.layouts` describes: CSR offsets, edges of ``config.edge_words`` words (the
destination alone, or (dst, weight) pairs when the program reads the weight or
``edge_format`` is weighted), the state,
delta and constant arrays, the stop bitmap and room for the circular queues; with the hub
index, the DDMU's hash table and the hub-index entries, all in the N state (nothing learnt),
laid out as :mod:`hw.depgraph.ddmu` reads them.
"""

import dataclasses

import numpy as np

from golden import Graph
from golden.depgraph.gas import get_algorithm, source_constants
from golden.depgraph.hub_index import HubIndex
from hw.lib.config import ConfigError
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.ddmu import EMPTY_SLOT, ENTRY_WORDS, SLOT_WORDS, EntryFlag
from hw.depgraph.layouts import STOP_WORD_FIELDS, VERTICES_PER_STOP_WORD
from hw.depgraph.program import stored
from hw.depgraph.top import registers
from sim.dram_image import DRAMImage


__all__ = ["DepGraphImage", "build_depgraph_image", "edge_region_words", "hub_index_words",
           "leaves"]


@dataclasses.dataclass
class DepGraphImage:
    dram: DRAMImage
    registers: dict[str, int]       # name → value, every register of the block
    num_vertices: int
    num_edges: int
    index_entries: int = 0
    index_heads: int = 0

    @property
    def index_bytes(self) -> int:
        """Bytes of the hub index in the image: entries and the whole hash table."""
        return 4 * (ENTRY_WORDS * self.index_entries +
                    SLOT_WORDS * self.registers["hash_slots"])


def hub_index_words(index: HubIndex) -> tuple[np.ndarray, np.ndarray]:
    """(hash table, entries) as 32-bit words: a power of two of slots at most half full,
    linear probing from v mod slots; entries in the N state, sorted by (head, L)."""
    heads = sorted(index.table)
    slots = 4
    while slots < 2 * len(heads):
        slots *= 2
    table = np.zeros((slots, SLOT_WORDS), dtype=np.uint32)
    table[:, 0] = EMPTY_SLOT
    for v in heads:
        s = v % slots
        while table[s, 0] != EMPTY_SLOT:
            s = (s + 1) % slots
        begin, end = index.table[v]
        table[s, :3] = (v, begin, end)
    entries = np.zeros((max(index.num_entries, 1), ENTRY_WORDS), dtype=np.uint32)
    k = index.num_entries
    entries[:k, 0] = index.head
    entries[:k, 1] = index.tail
    entries[:k, 2] = index.second
    entries[:k, 3] = index.length | EntryFlag.N.value << 16
    return table.reshape(-1), entries.reshape(-1)


def edge_region_words(graph: Graph, config: DepGraphConfig) -> np.ndarray:
    """The ``edges`` region's 32-bit words: each edge's destination, followed by its weight
    when ``config.edge_words`` is 2 (1 for a program that reads none, or a graph without
    weights)."""
    dst = graph.dst.astype(np.uint32)
    if config.edge_words == 1:
        return dst
    weight = graph.require_nonnegative_integer_weights() if config.gas.uses_weight else \
        np.ones(graph.num_edges, dtype=np.uint32)
    return np.stack([dst, np.asarray(weight, dtype=np.uint32)], axis=1).reshape(-1)


def _fp32_bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def leaves(graph: Graph, bounds: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """The leaf bit of every vertex: none of its out-neighbours is in its own partition and
    outside the ``stop`` bitmap, so a walk can never descend from it (its HDTL skips the
    wait for its batch's updates)."""
    owner = np.searchsorted(bounds, np.arange(graph.num_vertices), side="right") - 1
    src = np.repeat(np.arange(graph.num_vertices), graph.out_degree)
    walkable = (owner[graph.dst] == owner[src]) & ~stop[graph.dst]
    leaf = np.ones(graph.num_vertices, dtype=bool)
    leaf[src[walkable]] = False
    return leaf


def build_depgraph_image(graph: Graph, *, algo: str, config: DepGraphConfig,
                         bounds: np.ndarray, stop: np.ndarray, root: int | None = None,
                         tolerance: float = 1e-6,
                         index: HubIndex | None = None) -> DepGraphImage:
    """Lay out ``graph`` (already symmetrized for CC) with the partition ``bounds`` and
    ``stop`` bitmap of the golden pre-processing and ``algo``'s initial state; ``index``
    (with ``config.hub_index``: the golden pre-processing's unlearnt hub index, None when
    the algorithm's EdgeCompute is not linear) gives the DDMU's tables."""
    gas = get_algorithm(algo)
    n, m = graph.num_vertices, graph.num_edges
    if len(bounds) != config.engines + 1:
        raise ConfigError(f"the pre-processing made {len(bounds) - 1} partitions for "
                          f"{config.engines} engines")
    largest = int(np.diff(bounds).max())
    if largest > config.bank_vertices:
        raise ConfigError(f"a partition of the graph has {largest} vertices but a "
                          f"vertex-store bank holds {config.bank_vertices} "
                          f"(set bank_vertices)")
    state, delta = gas.initial(graph, root)
    if gas.selective:
        state, delta = stored(gas.form, state), stored(gas.form, delta)
        const = source_constants(gas, graph).astype(np.uint32)
    else:
        state, delta = _fp32_bits(state), _fp32_bits(delta)
        const = _fp32_bits(source_constants(gas, graph))
    edges = edge_region_words(graph, config)
    heads = np.zeros(n, dtype=bool)
    if config.hub_index and index is not None:
        heads[list(index.table)] = True
    stop = np.asarray(stop, dtype=bool)
    fields = {"stop": stop, "head": heads, "leaf": leaves(graph, bounds, stop),
              "spare": np.zeros(n, dtype=bool)}
    bits = np.stack([fields[name] for name in STOP_WORD_FIELDS], axis=1).reshape(-1)
    stop_bytes = np.packbits(bits, bitorder="little")
    stop_words = np.zeros(-(-n // VERTICES_PER_STOP_WORD), dtype=np.uint32)
    stop_words.view(np.uint8)[:stop_bytes.size] = stop_bytes

    dram = DRAMImage()
    base = {}
    for name, words in [("offsets", graph.edge_id_table.astype(np.uint32)),
                        ("edges", edges), ("state", state), ("delta", delta),
                        ("const", const), ("stop", stop_words)]:
        base[name] = dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
    queue_lines = config.bank_vertices // 16
    base["queue"] = dram.add("queues", np.zeros(16 * queue_lines * config.engines,
                                                dtype=np.uint32))
    values = {
        "offsets_base": base["offsets"], "edges_base": base["edges"],
        "state_base": base["state"], "delta_base": base["delta"],
        "const_base": base["const"], "stop_base": base["stop"],
        "queue_base": base["queue"], "queue_lines": queue_lines,
        "hash_base": 0, "hash_slots": 0, "index_base": 0,
        "num_vertices": n, "tolerance": int(_fp32_bits([tolerance])[0]),
    }
    entries = heads = 0
    if config.hub_index:
        # Without linearity the table is empty: every lookup misses.
        if index is None:
            none = np.zeros(0, dtype=np.int64)
            index = HubIndex(head=none, tail=none, second=none, length=none,
                             is_min=gas.is_min)
        table, entry_words = hub_index_words(index)
        values["hash_base"] = dram.add("hash_table", table)
        values["hash_slots"] = table.size // SLOT_WORDS
        values["index_base"] = dram.add("hub_index", entry_words)
        entries, heads = index.num_entries, len(index.table)
    values.update({f"first{e}": int(b) for e, b in enumerate(bounds)})
    assert set(values) == set(registers(config.engines))
    return DepGraphImage(dram, values, n, m, entries, heads)
