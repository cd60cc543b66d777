"""The combinational-path budget that is to keep the designs at 100 MHz on the ECP5-85k, and
the ceilings that keep each design from drifting further from it (issue 51).

Place and route takes from ten minutes to over an hour a design; :mod:`synth.comb_depth`
estimates the longest combinational path of a Yosys ``synth_ecp5`` netlist in seconds.
``make soak`` maps each design's smallest configuration (``tests/tools/test_synth_designs.py``;
two to five minutes of Yosys each, past make test's budget: ``tests/budget.py``) and fails when its longest path's estimate exceeds the design's :data:`CEILING_NS`, naming the
path and the blocks it crosses, so a change that puts logic back on a long valid/ready chain is
caught before anyone routes it.

The estimate is optimistic: it counts cells and nets, not where nextpnr puts them. Measured
against routed builds (``docs/results.md``), nextpnr's critical path was 1.3-2 times the
estimate (DepGraph with two engines: 8.8 ns estimated, 11.8-13.5 ns routed; the BFS engine:
22.6 ns estimated, 45 ns routed), so 100 MHz needs an estimate of about :data:`BUDGET_NS`
at least. The ecp5 presets routed 2-3 times their estimate, each on one net of large
fan-out spread over the chip, which the estimate charges like any other net: DepGraph's, 8.2
ns estimated, routed at 18.6 ns (a bank's read address to its block RAMs); Graphicionado's
(PageRank), 9.5 ns, at 14.7 ns (a line register's clock enable); the BFS engine's, 8.7 ns, at
25.3 ns (a select into a 512-bit multiplexer). :func:`synth.comb_depth.wide_nets` lists such
nets; the designs now split them over register copies and lanes (:mod:`hw.lib.fanout`), and a
failing check names the widest nets beside the paths. No design has been routed at 100 MHz
yet: each design's ceiling is the estimate it has today (after the register slices of issue
51), above the budget. Lower a ceiling when a change shortens the design's paths; a ceiling at or under
:data:`BUDGET_NS` is the goal, and a place and route the proof.
"""

from .comb_depth import CombPath, longest_paths

__all__ = ["BUDGET_NS", "BUDGET_REASON", "CEILING_NS", "over"]

BUDGET_NS = 6.5
BUDGET_REASON = ("100 MHz is 10 ns; routed ECP5 builds took 1.3-2x the estimate of their "
                 "longest path, so 10 ns / 1.5")

# The smallest configuration's longest path today, estimated (ns), with 0.3 ns for the
# estimate's spread between netlists of equal logic (Yosys and ABC9 place cells differently
# when names change).
CEILING_NS = {
    "graphicionado": 8.2,       # 7.9: Atomic Update's CAM probe into its hit bit (7.5 to
                                # 7.9 for the same logic as the netlist around it changes);
                                # a table read's hand-out 7.5; Edge Read's, the memory
                                # response routing 7.3
    "depgraph": 8.2,            # 7.9: engine 0's root buffer level into its queue's tail
    "bfs": 8.7,                 # 8.4: the frontier generator's next offer (a lane's hits
                                # after its lowest), the hub cache's insert compare, the
                                # status lookups' queue counts
    "dyngraph": 10.7,           # 10.4 on main after the merge with the lanes: the
                                # compactor's edges into its index's records valid enable;
                                # 9.8 on the helper's branch: the in-flight count
                                # (drained) through the
                                # batch boundary into the operation reader's slice; the lock
                                # stage's choice on the CAM's free-way register 9.8; the
                                # lock's remove into those registers, Reciprocal's leading one
                                # 9.5
}


def over(design: dict, ceiling: float, count: int = 5) -> list[CombPath]:
    """The longest paths (up to ``count``, distinct first and last blocks) of the Yosys netlist
    ``design`` whose estimate exceeds ``ceiling`` ns; empty when the netlist keeps within it."""
    return [path for path in longest_paths(design, count) if path.ns > ceiling]
