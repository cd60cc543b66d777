"""Per-iteration figures of a run from the testbench's snapshots of its counters.

The cocotb testbench (:func:`sim.tb.common.run_to_done`) snapshots every counter each time
a design's iteration counter changes (Graphicionado's ``iterations``, the BFS engine's
``levels``, the dynamic graph unit's ``batches``). An iteration's figures are the differences
between its snapshot and the one before (the first one's from zero: the counters count from
the cycle after ``start``, so the first iteration holds the start's work too); what the
counters gained after the last snapshot, until ``done``, is the run's finish.
"""


__all__ = ["per_iteration"]


def per_iteration(snapshots: list[dict], counters: dict, *, edges: str | None = "edges",
                  cycles: str = "cycles", also: tuple[str, ...] = ()) -> dict:
    """The figures of each iteration of a run and of its finish.

    ``snapshots``: the testbench's (each ``iteration``, ``sim_cycle``, ``counters``);
    ``counters``: the run's final counters. ``edges``: the counter of edges handled (None:
    the design counts none). ``also``: more counters whose differences each row gives under
    their names. Returns ``rows`` (per iteration: ``iteration``, ``cycles``,
    ``end_cycle``, ``edges``, ``edges_per_cycle``, ``memory_reads``, ``memory_writes``),
    ``finish`` (the same for the cycles after the last snapshot) and ``total_cycles``;
    the rows' and the finish's cycles add up to ``total_cycles``."""
    rows = []
    previous = dict.fromkeys(counters, 0)
    for snapshot in snapshots:
        row = _difference(snapshot["counters"], previous, edges, cycles, also)
        rows.append({"iteration": snapshot["iteration"], **row,
                     "end_cycle": snapshot["counters"][cycles]})
        previous = snapshot["counters"]
    return {"rows": rows, "finish": _difference(counters, previous, edges, cycles, also),
            "total_cycles": counters[cycles]}


def _difference(now: dict, before: dict, edges: str | None, cycles: str,
                also: tuple[str, ...]) -> dict:
    spent = now[cycles] - before[cycles]
    handled = now[edges] - before[edges] if edges else None
    return {"cycles": spent, "edges": handled,
            "edges_per_cycle": handled / spent if handled is not None and spent else None,
            "memory_reads": now["memory_reads"] - before["memory_reads"],
            "memory_writes": now["memory_writes"] - before["memory_writes"],
            **{name: now[name] - before[name] for name in also}}
