"""Graphicionado's host adapter for :class:`~graphgen.driver.driver.Driver`: the memory image
and registers of a run (:func:`sim.graphicionado.image.build_image`, as the simulation lays
them out) and the answer, VProperty in vertex order, read from the region the last
iteration left it in."""

import numpy as np

from graphgen.driver.driver import HostImage
from hw.graphicionado.config import GraphicionadoConfig
from sim.graphicionado.image import build_image
from sim.graphicionado.run import check_graph, stored_graph


__all__ = ["GraphicionadoHost"]


class GraphicionadoHost:
    """Runs of a Graphicionado built with ``config``, its algorithm's."""

    def __init__(self, config: GraphicionadoConfig):
        self.config = config

    def image(self, graph, *, root: int = 0, iters: int | None = None,
              slices: int | None = None, cf: dict | None = None,
              params: dict | None = None) -> HostImage:
        """``graph``'s image (refused with ConfigError if the configuration cannot run it);
        ``iters`` bounds the iterations (the program's ``iterations`` unless given: PageRank
        and CF 10); ``params`` the program's parameters (their ``param_<k>`` registers;
        others keep their defaults)."""
        config, algo = self.config, self.config.algo
        slice_vertices = check_graph(graph, algo, config, slices)
        program = config.program
        if iters is None:
            iters = program.iterations
        if algo == "cf":
            cf = {**(cf or {}), "K": config.property_words}
        run_graph = graph.symmetrized() if program.undirected and not config.symmetric else \
            stored_graph(graph, config)
        image = build_image(run_graph, algo=algo, root=root, coarsening=config.coarsening,
                            max_iterations=iters if iters is not None else 0xFFFF_FFFF,
                            streams_src=config.streams_src, streams_dst=config.streams_dst,
                            edge_readers=config.edge_readers, slice_vertices=slice_vertices,
                            max_slices=config.max_slices, cf=cf,
                            extended=config.extended_slicing, params=params,
                            edge_words=config.edge_words)
        return HostImage.of(image)

    def result(self, image: HostImage, counters: dict, read_words) -> np.ndarray:
        """VProperty by vertex (float32 for PageRank and CF, else uint32; CF: one row of K
        features a vertex)."""
        graph_image = image.state
        base, count = graph_image.dram.region(graph_image.result_region(counters["iterations"]))
        values = graph_image.vertex_values(read_words(base, count))
        return values.view(np.float32) if self.config.algorithm.floating_point else values
