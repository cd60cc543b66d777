"""NumPy golden models of the graph-analytics accelerators: the specification the RTL matches.

* :mod:`golden.graph` -- the sorted-COO :class:`Graph` with Graphicionado's EdgeIDTable.
* :mod:`golden.io` -- Matrix Market, ``.npz`` and edge-list files.
* :mod:`golden.generators` -- seeded Kronecker, R-MAT, grid, scale-free, road-like, uniform,
  bipartite; networkx's real graphs.
* :mod:`golden.vertex_program` -- Graphicionado's processing/apply executor (section 3.1).
* :mod:`golden.algorithms` -- BFS, SSSP, CC, PageRank and CF as vertex programs, ``run``.
* :mod:`golden.programs` -- the NumPy back end of :mod:`graphgen.programs` (``run_program``).
"""

from .algorithms import (ALGORITHMS, ALPHA, ONE_MINUS_ALPHA, PROGRAMS, UNREACHED, cf_program,
                         cf_rmse, pagerank_inv_outdeg, run)
from .generators import (GENERATORS, NETWORKX_GRAPHS, SpecError, bipartite, from_spec, grid,
                         hub_chain, kronecker, load_graph, networkx_graph, rmat, road,
                         scale_free, uniform)
from .graph import MAX_UINT32, Graph, GraphError
from .io import GraphFormatError, read_graph, write_graph
from .vertex_program import Result, Setup, VertexProgram, active_edge_ids, execute

__all__ = [
    "Graph", "GraphError", "MAX_UINT32",
    "GraphFormatError", "read_graph", "write_graph",
    "SpecError", "kronecker", "rmat", "grid", "scale_free", "uniform", "bipartite", "hub_chain",
    "road", "networkx_graph", "NETWORKX_GRAPHS", "from_spec", "load_graph", "GENERATORS",
    "VertexProgram", "Setup", "Result", "execute", "active_edge_ids",
    "ALGORITHMS", "ALPHA", "ONE_MINUS_ALPHA", "UNREACHED", "PROGRAMS", "run", "cf_program",
    "cf_rmse", "pagerank_inv_outdeg",
]
