"""A DepGraph run: the vertex store loaded, the engines run until nothing is left anywhere,
the states written back (the host's ``DEP_configure`` then start, Zhang et al., HPCA 2021,
§III-B)."""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


__all__ = ["RunControl"]


class RunControl(wiring.Component):
    """The run's three phases (load, run, write-back) and their cycle counts: what follows
    the host's ``DEP_configure`` and start (§III-B).

    ``start`` starts the vertex loader and resets the engines (the top wires it to them);
    the load ends when the loader is done and the vertex store has been idle for two
    cycles; the engines are then enabled until ``quiet`` has held for two cycles, no earlier
    than the fifth run cycle (both quiet samples must have seen the engines enabled, and
    ``quiet`` comes through a register in the top; the 32-bit compare is kept off the path
    to the writer's start as a flag); then the writer
    starts, and ``done`` rises when it is done and the memory is idle.

    The idle checks are registered: a block that hands work to another shows it busy in the
    cycle after at the latest, so two quiet cycles in a row mean nothing is left.

    Members
    -------
    start : ``In(1)``
    busy : ``Out(1)``
        From ``start`` until ``done`` (``start``'s cycle included).
    done : ``Out(1)``
        The states are written back; held until the next ``start``.
    loader_done : ``In(1)``; store_idle : ``In(1)``
        The loader sent every record; no bank is writing one, no link holds one.
    enable : ``Out(1)``
        The engines run.
    quiet : ``In(1)``
        No engine, walk, network queue, hub-index block or link has work left.
    write_start : ``Out(1)``
        The writer's start, in the last cycle of the run phase.
    written : ``In(1)``
        The writer is done and the memory idle.
    cycles, load_cycles, run_cycles, write_cycles : ``Out(32)``
        The run's cycles (``busy``) and each phase's, restarted by ``start``.
    """

    def __init__(self):
        super().__init__({
            "start": In(1), "busy": Out(1), "done": Out(1),
            "loader_done": In(1), "store_idle": In(1), "enable": Out(1),
            "quiet": In(1), "write_start": Out(1), "written": In(1),
            "cycles": Out(32), "load_cycles": Out(32), "run_cycles": Out(32),
            "write_cycles": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        quiet, quiet_before = Signal(), Signal()
        loaded, loaded_before = Signal(), Signal()
        m.d.sync += [quiet.eq(self.quiet), quiet_before.eq(quiet),
                     loaded.eq(self.store_idle), loaded_before.eq(loaded)]
        settled = Signal()      # run_cycles > 4
        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.done.eq(0), self.enable.eq(0), settled.eq(0),
                                 self.load_cycles.eq(0), self.run_cycles.eq(0),
                                 self.write_cycles.eq(0)]
                    m.next = "LOAD"
            with m.State("LOAD"):
                m.d.sync += self.load_cycles.eq(self.load_cycles + 1)
                with m.If(self.loader_done & loaded & loaded_before):
                    m.d.sync += self.enable.eq(1)
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.sync += self.run_cycles.eq(self.run_cycles + 1)
                with m.If(self.run_cycles == 4):
                    m.d.sync += settled.eq(1)
                with m.If(quiet & quiet_before & settled):
                    m.d.sync += self.enable.eq(0)
                    m.d.comb += self.write_start.eq(1)
                    m.next = "WRITE"
            with m.State("WRITE"):
                m.d.sync += self.write_cycles.eq(self.write_cycles + 1)
                with m.If(self.written):
                    m.d.sync += self.done.eq(1)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(self.start | ~fsm.ongoing("IDLE"))
        with m.If(self.start & fsm.ongoing("IDLE")):
            m.d.sync += self.cycles.eq(1)
        with m.Elif(self.busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        return m
