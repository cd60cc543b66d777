"""DepGraph's host adapter for :class:`~graphgen.driver.driver.Driver`: the memory image and
registers of a run (:func:`sim.depgraph.image.build_depgraph_image`, as the simulation lays
them out) and the answer, each vertex's state.

The image needs the host's pre-processing: the engines' partition bounds, the stop bitmap
and (with the hub index) its unlearnt tables. They come from
:func:`golden.depgraph.run_depgraph`, as in the simulation, which also runs the algorithm in
software: the pre-processing is not yet a function of its own."""

import numpy as np

from golden.depgraph import run_depgraph
from golden.depgraph.hub_index import HubIndex
from graphgen.driver.driver import HostImage
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.program import stored
from sim.depgraph.image import build_depgraph_image
from sim.depgraph.run import check_graph


__all__ = ["DepGraphHost"]


class DepGraphHost:
    """Runs of a DepGraph built with ``config``, its algorithm's."""

    def __init__(self, config: DepGraphConfig):
        self.config = config

    def image(self, graph, *, root: int = 0, tolerance: float = 1e-6, hub_lam: float = 0.005,
              hub_sample_min: int = 1024) -> HostImage:
        """``graph``'s image (``root`` for BFS and SSSP; ``tolerance`` PageRank's;
        ``hub_lam``, ``hub_sample_min`` the choice of hubs, as
        :func:`golden.depgraph.run_depgraph`)."""
        config, algo = self.config, self.config.algo
        check_graph(graph, algo, config)
        root = root if config.gas.uses_root else None
        pre = run_depgraph(algo, graph, root=root, engines=config.engines,
                           stack_depth=config.stack_depth, walks=config.walks,
                           hub_index=config.hub_index, tolerance=tolerance, lam=hub_lam,
                           hub_sample_min=hub_sample_min)
        run_graph = graph.symmetrized() if config.gas.program.undirected else graph
        index = HubIndex.from_core(pre.core, config.gas.accum == "min", ~pre.stop) \
            if config.hub_index and pre.shortcuts else None
        image = build_depgraph_image(run_graph, algo=algo, config=config, bounds=pre.bounds,
                                     stop=pre.stop, root=root, tolerance=tolerance,
                                     index=index)
        return HostImage.of(image)

    def result(self, image: HostImage, counters: dict, read_words) -> np.ndarray:
        """The vertex states (float32 for a sum Accum such as PageRank's, else uint32)."""
        words = read_words(*image.state.dram.region("state"))
        gas = self.config.gas
        return words.view(np.float32) if gas.accum == "sum" else stored(gas, words)
