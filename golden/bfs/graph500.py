"""Graph500's validation of a BFS parent array, and its TEPS.

The Graph500 specification (kernel 2) accepts any BFS tree that passes five checks; they are
applied here to a directed graph, which for a symmetric graph are Graph500's own:

1. the parent array is a tree rooted at the root: the root is its own parent, and following
   parents from any reached vertex arrives at the root without a cycle;
2. each tree edge joins levels that differ by exactly one (checked against the levels the
   engine reported, when given; the tree's own depths otherwise make it true by definition);
3. every edge (u, v) leaving a reached u reaches v, at a level at most one deeper (on a
   symmetric graph: every input edge joins levels that differ by at most one, or two
   unreached vertices);
4. the tree spans exactly the vertices reachable from the root (follows from 1 and 3, and is
   reported as its own rule);
5. every tree edge (parent[v], v) is an edge of the graph.

TEPS: edges of the root's component over the run time; the edges are those leaving a
reached vertex, each undirected edge counted once on a symmetric graph (Graph500 counts the
input tuples).  Over several roots Graph500 takes the harmonic mean.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, GraphError

__all__ = ["ValidationError", "validate_parents", "component_edges", "harmonic_mean"]

UNREACHED = 2**32 - 1


class ValidationError(GraphError):
    """A parent array that fails one of Graph500's rules; ``rule`` is its number."""

    def __init__(self, rule: int, message: str):
        super().__init__(f"Graph500 rule {rule}: {message}")
        self.rule = rule


def _tree_depths(parents: np.ndarray, root: int) -> np.ndarray:
    """Depth of every reached vertex (-1 unreached) by pointer doubling; rule 1 on failure."""
    n = parents.size
    reached = parents >= 0
    if not reached[parents[reached]].all():
        v = int(np.flatnonzero(reached)[np.flatnonzero(~reached[parents[reached]])[0]])
        raise ValidationError(1, f"vertex {v}'s parent {int(parents[v])} is not reached")
    self_parent = np.flatnonzero(reached & (parents == np.arange(n)))
    if self_parent.size != 1:
        v = int(self_parent[self_parent != root][0])
        raise ValidationError(1, f"vertex {v} is its own parent but is not the root {root}")
    ancestor = np.where(reached, parents, np.arange(n))
    depth = (reached & (np.arange(n) != root)).astype(np.int64)
    for _ in range(max(1, int(n).bit_length()) + 1):
        depth = depth + depth[ancestor]
        ancestor = ancestor[ancestor]
    cyclic = reached & (ancestor != root)
    if cyclic.any():
        v = int(np.flatnonzero(cyclic)[0])
        raise ValidationError(1, f"following parents from vertex {v} never reaches the root "
                                 f"{root} (a cycle)")
    return np.where(reached, depth, -1)


def _has_edges(graph: Graph, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    n = np.uint64(max(graph.num_vertices, 1))
    keys = graph.src.astype(np.uint64) * n + graph.dst.astype(np.uint64)
    want = src.astype(np.uint64) * n + dst.astype(np.uint64)
    at = np.searchsorted(keys, want)
    return (at < keys.size) & (keys[np.minimum(at, keys.size - 1)] == want)


def validate_parents(graph: Graph, root: int, parents, levels=None) -> np.ndarray:
    """Check ``parents`` (and ``levels``, if given) by Graph500's rules; the tree's depths.

    Returns the depth of each vertex as uint32 (4294967295 where unreached); raises
    :class:`ValidationError` naming the first rule broken and a vertex that breaks it.
    """
    n = graph.num_vertices
    parents = np.asarray(parents)
    if parents.shape != (n,) or parents.dtype.kind not in "iu":
        raise ValidationError(1, f"the parent array must hold {n} integers, got shape "
                                 f"{parents.shape} of {parents.dtype}")
    parents = parents.astype(np.int64)
    if ((parents < -1) | (parents >= n)).any():
        v = int(np.flatnonzero((parents < -1) | (parents >= n))[0])
        raise ValidationError(1, f"vertex {v}'s parent {int(parents[v])} is not a vertex")
    if parents[root] != root:
        raise ValidationError(1, f"the root {root} is not its own parent "
                                 f"(parent {int(parents[root])})")
    depth = _tree_depths(parents, root)
    reached = depth >= 0
    if levels is not None:
        levels = np.asarray(levels)
        if levels.shape != (n,):
            raise ValidationError(2, f"the levels must hold {n} values, got shape "
                                     f"{levels.shape}")
        given = levels.astype(np.int64)
        given[given == UNREACHED] = -1
        bad = np.flatnonzero(given != depth)
        if bad.size:
            v = int(bad[0])
            raise ValidationError(2, f"vertex {v} has level {int(given[v])} but depth "
                                     f"{int(depth[v])} in the parent tree (-1: unreached)")
    tree = np.flatnonzero(reached & (np.arange(n) != root))
    missing = ~_has_edges(graph, parents[tree], tree)
    if missing.any():
        v = int(tree[np.flatnonzero(missing)[0]])
        raise ValidationError(5, f"tree edge {int(parents[v])} -> {v} is not in the graph")
    u, v = graph.src.astype(np.int64), graph.dst.astype(np.int64)
    live = reached[u]
    unreached_end = live & ~reached[v]
    if unreached_end.any():
        e = int(np.flatnonzero(unreached_end)[0])
        raise ValidationError(4, f"edge {u[e]} -> {v[e]} leaves reached vertex {u[e]} for "
                                 f"unreached vertex {v[e]}: the tree does not span the "
                                 f"root's component")
    too_deep = live & (depth[v] > depth[u] + 1)
    if too_deep.any():
        e = int(np.flatnonzero(too_deep)[0])
        raise ValidationError(3, f"edge {u[e]} -> {v[e]} joins levels {depth[u[e]]} and "
                                 f"{depth[v[e]]}")
    return np.where(reached, depth, UNREACHED).astype(np.uint32)


def component_edges(graph: Graph, reached: np.ndarray) -> int:
    """Graph500's edge count of a search: edges leaving reached vertices (once if symmetric)."""
    count = int(np.count_nonzero(reached[graph.src]))
    if graph.symmetric:
        loops = int(np.count_nonzero(reached[graph.src] & (graph.src == graph.dst)))
        count = (count - loops) // 2 + loops
    return count


def harmonic_mean(values) -> float:
    """Graph500's mean of TEPS over roots (0 if any is 0)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or (values <= 0).any():
        return 0.0
    return float(values.size / np.sum(1.0 / values))
