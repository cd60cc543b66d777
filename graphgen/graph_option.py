"""``--graph`` with ``--undirected`` or ``--directed``: the graph a command runs on, and how
it came to be counted as undirected (symmetric) or directed, for the report.

Without either flag a generated graph is as its generator made it, and a file's graph is
symmetric when the file says so (Matrix Market ``symmetric``, ``# Symmetric``, checked) or
when its edges mirror themselves (every edge in both directions, as often, with equal
weights: :meth:`golden.Graph.mirror_symmetric`), as GAPBS's converter writes an undirected
graph. ``--undirected`` states it: a graph whose edges do not mirror themselves is
symmetrized (each edge added in the other direction, duplicates dropped, as GAPBS's ``-s``),
and refused when the two directions of a pair carry different weights (which one would be
the undirected edge's is not the tool's to choose). ``--directed`` counts a symmetric graph's
edges in each direction. The symmetry decides what counts as one edge: TEPS count an
undirected edge once (Graph500).
"""

from __future__ import annotations

from pathlib import Path

from .common import UsageError


__all__ = ["add_symmetry_options", "load_graph", "symmetry_line"]


def add_symmetry_options(command) -> None:
    group = command.add_mutually_exclusive_group()
    group.add_argument("--undirected", action="store_true",
                       help="the graph is undirected: edges listed once are symmetrized "
                            "(both directions, as GAPBS's -s); TEPS count each once. "
                            "Default: symmetric when the file says so or its edges mirror "
                            "themselves, or as generated")
    group.add_argument("--directed", action="store_true",
                       help="count a symmetric graph's edges in each direction")


def load_graph(spec: str, undirected: bool = False, directed: bool = False):
    """(the graph of ``spec``, ``{"symmetric": bool, "symmetry": how}``)."""
    import golden
    if undirected and directed:
        raise UsageError("give --undirected or --directed, not both")
    path = Path(spec)
    from_file = path.exists()
    if from_file:
        graph = golden.read_graph(path)
        declared = graph.symmetric
        if not declared and graph.mirror_symmetric():
            graph = graph.flagged(True)
            how = "detected on load (the file's edges mirror themselves)"
        elif declared:
            header = "MatrixMarket 'symmetric'" if _mtx_symmetric(path) else "its header"
            how = f"stated by the file ({header})"
        else:
            how = "directed (the file's edges do not mirror themselves)"
    else:
        graph = golden.load_graph(spec)
        how = "generated undirected" if graph.symmetric else "directed (as generated)"
    if directed:
        return graph.flagged(False), {"symmetric": False, "symmetry": "directed (--directed)"}
    if undirected:
        if graph.symmetric:
            how = "stated (--undirected); the edges already mirror themselves"
        else:
            before = graph.num_edges
            graph = _symmetrized(graph)
            how = (f"stated (--undirected): symmetrized, {before} edges listed became "
                   f"{graph.num_edges} (each in both directions, duplicates dropped)")
    return graph, {"symmetric": graph.symmetric, "symmetry": how}


def symmetry_line(symmetry: dict) -> str:
    """The report's line: symmetric or directed, and how it was decided."""
    if symmetry["symmetric"]:
        return (f"graph: symmetric, {symmetry['symmetry']}; an undirected edge counts once "
                f"(TEPS)")
    return f"graph: {symmetry['symmetry']}; each listed edge counts"


def _mtx_symmetric(path: Path) -> bool:
    if path.suffix.lower() != ".mtx":
        return False
    with open(path, "rb") as handle:
        banner = handle.readline().decode("latin-1").split()
    return len(banner) == 5 and banner[4].lower() == "symmetric"


def _symmetrized(graph):
    """``graph.symmetrized()``, refused when a pair's two directions (or repeats) differ in
    weight."""
    import numpy as np
    both = graph.symmetrized()
    if graph.weight is None or graph.num_edges == 0:
        return both
    keys = (both.src.astype(np.uint64) << np.uint64(32)) | both.dst.astype(np.uint64)
    for src, dst in ((graph.src, graph.dst), (graph.dst, graph.src)):
        at = np.searchsorted(keys, (src.astype(np.uint64) << np.uint64(32))
                             | dst.astype(np.uint64))
        differ = both.weight[at] != graph.weight
        if differ.any():
            e = int(np.flatnonzero(differ)[0])
            u, v = sorted((int(graph.src[e]), int(graph.dst[e])))
            weights = sorted((graph.weight[e].item(), both.weight[at[e]].item()))
            raise UsageError(f"--undirected: the pair {u}, {v} carries weights {weights[0]} "
                             f"and {weights[1]} ({u} -> {v}, {v} -> {u} or a repeat): not "
                             f"one undirected edge")
    return both
