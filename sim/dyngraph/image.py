"""The memory image of a dynamic-graph run and its register values (the host's bulk build of
the slab-hash graph and the batch of operations), laid out as :mod:`hw.dyngraph.layouts`
describes; and the state read back from a dumped image."""

import dataclasses

import numpy as np

from golden.dyngraph import SlabGraph, SlabOptions, Updates
from golden.dyngraph.slab import AUX_WORD, EMPTY_KEY, FREE_OWNER, SLAB_PAIRS, SLAB_WORDS, \
    TOMBSTONE_KEY
from hw.lib.config import ConfigError
from hw.dyngraph.config import DynGraphConfig
from hw.dyngraph.compact_index import RECORD_WORDS
from hw.dyngraph.layouts import ANSWER_WORDS, OP_WORDS
from hw.dyngraph.registers import REGISTERS
from sim.dram_image import DRAMImage


__all__ = ["DynGraphImage", "build_dyngraph_image", "state_from_image", "answers_from_words"]

PRESENT_BITS_PER_LINE = 512


@dataclasses.dataclass
class DynGraphImage:
    dram: DRAMImage
    registers: dict[str, int]
    searches: int


def vertex_words(state: SlabGraph, slab_index_bits: int) -> np.ndarray:
    words = state.base.astype(np.uint64) | (state.buckets.astype(np.uint64) << slab_index_bits)
    return np.where(state.present, words, 0).astype(np.uint32)


def stack_words(state: SlabGraph) -> np.ndarray:
    """The free stack with room for every slab of the pool (deletions push freed slabs)."""
    words = np.zeros(max(len(state.pool), 1), dtype=np.uint32)
    words[:len(state.free)] = state.free
    return words


def build_dyngraph_image(state: SlabGraph, updates: Updates, config: DynGraphConfig, *,
                         batch: int | None, compact_vertices: int = 0) -> DynGraphImage:
    """The image of ``state`` (built, not yet updated) with ``updates`` to apply; with
    ``compact_vertices`` > 0, room for the compactor's lists of that many vertices (the edge
    records sized for a pool full of pairs)."""
    if state.max_vertices != config.max_vertices:
        raise ConfigError(f"the slab graph has max_vertices {state.max_vertices}, the unit "
                          f"{config.max_vertices}")
    if not 0 <= compact_vertices <= config.max_vertices:
        raise ConfigError(f"the compactor walks at most max_vertices ({config.max_vertices}) "
                          f"vertices, not {compact_vertices}")
    if len(state.pool) > 1 << config.slab_index_bits:
        raise ConfigError(f"the pool has {len(state.pool)} slabs, more than a vertex word "
                          f"can point at (slab_index_bits={config.slab_index_bits})")
    ops = np.stack([updates.kind.astype(np.uint32), updates.u, updates.v, updates.w], axis=1)
    searches = int((updates.kind == 2).sum())
    present = np.packbits(state.present, bitorder="little").view(np.uint8)
    lines = -(-config.max_vertices // PRESENT_BITS_PER_LINE)
    present_bytes = np.zeros(lines * 64, dtype=np.uint8)
    present_bytes[:present.size] = present
    dram = DRAMImage()
    base = {}
    for name, words in [("ops", ops.reshape(-1) if len(updates) else np.zeros(OP_WORDS)),
                        ("vertices", vertex_words(state, config.slab_index_bits)),
                        ("present", present_bytes.view(np.uint32)),
                        ("pool", state.pool.reshape(-1)),
                        ("stack", stack_words(state)),
                        ("answers", np.zeros(ANSWER_WORDS * max(searches, 1))),
                        ("edges", np.zeros(config.compact_edge_words * SLAB_PAIRS *
                                           len(state.pool) if compact_vertices else
                                           RECORD_WORDS)),
                        ("table", np.zeros(compact_vertices + 1)),
                        ("vconst", np.zeros(2 * max(compact_vertices, 1)))]:
        base[name] = dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
    values = {"ops_base": base["ops"], "ops_count": len(updates),
              "batch_size": batch or max(len(updates), 1),
              "vertices_base": base["vertices"], "present_base": base["present"],
              "present_lines": lines, "pool_base": base["pool"], "pool_slabs": len(state.pool),
              "stack_base": base["stack"], "stack_top": len(state.free),
              "answers_base": base["answers"], "compact_vertices": compact_vertices,
              "edges_base": base["edges"], "table_base": base["table"],
              "vconst_base": base["vconst"]}
    if set(values) != set(REGISTERS):
        raise ConfigError(f"the image sets {sorted(values)}, the unit has {REGISTERS}")
    return DynGraphImage(dram, values, searches)


def state_from_image(pool_words: np.ndarray, vertex_table: np.ndarray, stack: np.ndarray,
                     stack_top: int, options: SlabOptions, slab_index_bits: int) -> SlabGraph:
    """The slab graph a dumped image holds (degrees counted from the pool's live pairs), to be
    checked with :meth:`SlabGraph.check` and read with :meth:`SlabGraph.edges`."""
    pool = pool_words.reshape(-1, SLAB_WORDS).astype(np.uint32)
    state = SlabGraph(options, len(vertex_table), len(pool))
    state.pool[:] = pool
    buckets = vertex_table >> np.uint32(slab_index_bits)
    state.present[:] = buckets != 0
    state.buckets[:] = buckets
    state.base[:] = vertex_table & np.uint32((1 << slab_index_bits) - 1)
    owner = pool[:, AUX_WORD]
    keys = pool[:, 0:30:2]
    live = ((keys != EMPTY_KEY) & (keys != TOMBSTONE_KEY)).sum(axis=1)
    owned = owner != FREE_OWNER
    degree = np.bincount(owner[owned].astype(np.int64), weights=live[owned],
                         minlength=len(vertex_table))[:len(vertex_table)]
    state.degree[:] = degree.astype(np.uint32)
    state.free = [int(x) for x in stack[:stack_top]]
    return state


def answers_from_words(words: np.ndarray, searches: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = words[:ANSWER_WORDS * searches].reshape(-1, ANSWER_WORDS)
    return pairs[:, 0] != 0, pairs[:, 1].astype(np.uint32)
