"""The dynamic graph unit's host adapter for :class:`~graphgen.driver.driver.Driver`: the
memory image and registers of a run (:func:`sim.dyngraph.image.build_dyngraph_image`: the
slab graph built from ``graph`` and the operations to apply) and the answer, the searches'
results; :meth:`DynGraphHost.state` reads the updated slab graph back."""

import numpy as np

from golden.dyngraph import SlabGraph, SlabOptions
from graphgen.driver.driver import HostImage
from hw.dyngraph.config import DynGraphConfig
from hw.lib.config import ConfigError
from sim.dyngraph.image import answers_from_words, build_dyngraph_image, state_from_image


__all__ = ["DynGraphHost", "ANSWER_DTYPE"]

# A search's answer: whether the edge was found and its weight.
ANSWER_DTYPE = np.dtype([("found", np.bool_), ("weight", np.uint32)])


class DynGraphHost:
    """Batches of operations on a dynamic graph unit built with ``config``."""

    def __init__(self, config: DynGraphConfig):
        self.config = config
        self.options = SlabOptions(**config.golden_options())

    def image(self, graph, *, updates, batch: int | None = None) -> HostImage:
        """``graph`` as a slab graph with ``updates`` (a :class:`golden.dyngraph.Updates`) to
        apply in batches of ``batch`` (None: one batch)."""
        config = self.config
        graph.validate_for_hardware(id_width=32)
        if graph.num_vertices > config.max_vertices:
            raise ConfigError(f"the graph has {graph.num_vertices} vertices, more than "
                              f"max_vertices ({config.max_vertices})")
        updates.check_ids(config.max_vertices)
        image = build_dyngraph_image(SlabGraph.build(graph, self.options), updates, config,
                                     batch=batch)
        return HostImage.of(image)

    def result(self, image: HostImage, counters: dict, read_words) -> np.ndarray:
        """An :data:`ANSWER_DTYPE` record per search, in operation order."""
        found, weights = answers_from_words(read_words(*image.state.dram.region("answers")),
                                            image.state.searches)
        out = np.empty(len(found), ANSWER_DTYPE)
        out["found"], out["weight"] = found, weights
        return out

    def state(self, image: HostImage, counters: dict, read_words) -> SlabGraph:
        """The slab graph in memory after the run (check it with ``.check()``, read it with
        ``.edges()``)."""
        dram = image.state.dram
        words = {name: read_words(*dram.region(name)) for name in ("pool", "vertices", "stack")}
        return state_from_image(words["pool"], words["vertices"], words["stack"],
                                counters["stack_top"], self.options,
                                self.config.slab_index_bits)

    def difference(self, image: HostImage, counters: dict, read_words, graph, *, updates,
                   batch: int | None = None) -> str | None:
        """How the run's answers or slab graph differ from the golden model's applying
        ``updates`` to ``graph`` in batches of ``batch`` (None: they are equal); the slab
        graph's own invariants are checked first."""
        answers = self.result(image, counters, read_words)
        reference = SlabGraph.build(graph, self.options)
        wanted, _, _ = reference.apply_batches(updates, batch)
        if answers["found"].tolist() != wanted.found.tolist():
            return "the searches found other edges than the golden model's"
        found = wanted.found
        if answers["weight"][found].tolist() != wanted.weight[found].tolist():
            return "a search found another weight than the golden model's"
        state = self.state(image, counters, read_words)
        state.check()
        if not all(np.array_equal(a, b) for a, b in zip(state.edges(), reference.edges())):
            return "the slab graph read back differs from the golden model's"
        return None
