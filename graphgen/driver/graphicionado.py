"""Graphicionado's host adapter for :class:`~graphgen.driver.driver.Driver`: the memory image
and registers of a run (:func:`sim.graphicionado.image.build_image`, as the simulation lays
them out) and the answer, VProperty in vertex order, read from the region the last
iteration left it in."""

import dataclasses

import numpy as np

from golden.vertex_order import VERTEX_ORDERS, spread
from graphgen.driver.driver import HostImage
from hw.lib.config import ConfigError
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
              params: dict | None = None, vertex_order: str = "ids") -> HostImage:
        """``graph``'s image (refused with ConfigError if the configuration cannot run it);
        ``iters`` bounds the iterations (the program's ``iterations`` unless given: PageRank
        and CF 10); ``params`` the program's parameters (their ``param_<k>`` registers;
        others keep their defaults); ``vertex_order`` ``spread``: the graph renumbered so
        that the destination streams own about as many edges each
        (:func:`golden.vertex_order.spread_hubs`), the answer given back in its order."""
        config, algo = self.config, self.config.algo
        slice_vertices = check_graph(graph, algo, config, slices)
        if vertex_order not in VERTEX_ORDERS:
            raise ConfigError(f"vertex_order must be one of {', '.join(VERTEX_ORDERS)}, not "
                              f"{vertex_order!r}")
        new_ids = None
        if vertex_order == "spread":
            graph, new_ids = spread(graph, config.streams_dst)
            root = int(new_ids[root])
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
        host = HostImage.of(image)
        return dataclasses.replace(host, state=(image, new_ids))

    def result(self, image: HostImage, counters: dict, read_words) -> np.ndarray:
        """VProperty by vertex (float32 for PageRank and CF, else uint32; CF: one row of K
        features a vertex)."""
        graph_image, new_ids = image.state
        base, count = graph_image.dram.region(graph_image.result_region(counters["iterations"]))
        values = graph_image.vertex_values(read_words(base, count))
        if new_ids is not None:
            values = values[new_ids]
        return values.view(np.float32) if self.config.algorithm.floating_point else values
