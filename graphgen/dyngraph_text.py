"""The dynamic graph's results as text, the same from the golden model (``graphgen golden
--updates``) and from the RTL (``graphgen sim --design dyngraph``): the final graph as
``u v w`` lines, the searches' answers one a line, and what the operations did."""

__all__ = ["edge_list_text", "answers_text", "summary_lines"]


def edge_list_text(src, dst, weight) -> str:
    return "".join(f"{u} {v} {w}\n" for u, v, w in zip(src.tolist(), dst.tolist(),
                                                        weight.tolist()))


def answers_text(answers) -> str:
    return "".join(line + "\n" for line in answers.lines())


def summary_lines(figures: dict) -> list[str]:
    """What the operations did and the graph now held, from a run's figures (golden model or
    RTL: the same names)."""
    f = figures
    return [
        f"edges: {f['inserted']} inserted, {f['replaced']} replaced, {f['deleted']} deleted "
        f"({f['delete_misses']} absent), searches {f['search_hits']} found / "
        f"{f['search_misses']} absent, {f['skipped']} skipped (vertex absent)",
        f"vertices: {f['vertices_inserted']} inserted ({f['vertex_insert_present']} present "
        f"already), {f['vertices_deleted']} deleted ({f['vertex_delete_absent']} absent), "
        f"{f['in_edges_removed']} in-edges removed by {f['sweeps']} sweep(s)",
        f"slabs: {f['walk_slab_reads']} read by walks, {f['free_slab_reads']} by frees, "
        f"{f['sweep_slab_reads']} by sweeps; {f['allocations']} allocated, "
        f"{f['slabs_freed']} freed, {f['allocation_failures']} allocations refused (pool full)",
        f"now: {f['vertices']} vertices, {f['edges']} edges in {f['slabs_in_use']} of "
        f"{f['pool_slabs']} slabs, memory efficiency {100 * f['memory_efficiency']:.1f}%, "
        f"chains of {f['buckets']} buckets max {f['chain_length_max']} mean "
        f"{f['chain_length_mean']:.3f} slabs",
    ]
