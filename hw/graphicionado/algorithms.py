"""The vertex programs the pipeline's custom compute modules implement (Graphicionado §2.2,
Table I), with the same conventions as ``golden/``:

========  ================================  ===========  ==================================
algo      Process_Edge(weight, prop, const)  Reduce       Apply(vprop, temp) → vprop, active
========  ================================  ===========  ==================================
bfs       prop + 1 (saturating)             min          min(vprop, temp), if smaller
sssp      prop + weight (saturating)        min          min(vprop, temp), if smaller
cc        prop                              min          min(vprop, temp), if smaller
pagerank  prop * const (FP32; const=1/deg)  FP32 add     0.15 + 0.85 * temp (FP32), all
cf        (rating - p[u]·p[v]) * p[u]       FP32 adds    p + gamma (temp - lam p), all
========  ================================  ===========  ==================================

PageRank and CF run with full edge access (§IV.B): all vertices active, edges streamed in
order. CF's properties are vectors of K float32 features (``property_bytes`` = 4K), carried
as packets of 32-byte flits (§IV.E), its dot product in
``golden.algorithms.pairwise_sum``'s order.
"""

import dataclasses

from hw.lib.arith.fp32 import float32_bits


__all__ = ["Algorithm", "ALGORITHMS", "UINT32_INF", "FP32_ALPHA", "FP32_ONE_MINUS_ALPHA"]

UINT32_INF = 0xFFFF_FFFF
FP32_ALPHA = float32_bits(0.85)
FP32_ONE_MINUS_ALPHA = float32_bits(0.15)


@dataclasses.dataclass(frozen=True)
class Algorithm:
    name: str
    reduce_identity: int        # the VTempProperty value before any Reduce
    full_edge_access: bool      # all vertices active every iteration, sequential edges
    floating_point: bool
    large_property: bool = False    # vectors of features, in flits (§IV.E)


ALGORITHMS = {
    "bfs": Algorithm("bfs", UINT32_INF, False, False),
    "sssp": Algorithm("sssp", UINT32_INF, False, False),
    "cc": Algorithm("cc", UINT32_INF, False, False),
    "pagerank": Algorithm("pagerank", 0, True, True),   # +0.0
    "cf": Algorithm("cf", 0, True, True, large_property=True),
}
