"""The simulation top of a design run through registers (Graphicionado, DepGraph, the BFS
engine, the dynamic graph unit): the design with the simulation-only DRAM model beside it
and a watchdog. Never synthesized; ``graphgen synth`` takes the design alone."""

from amaranth.hdl import Instance, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from sim.gateware.dram_model import SimDRAM
from sim.gateware.sim_memory import SimMemoryConfig
from sim.gateware.sim_watch import (add_design_and_dram, attach_watchdog, elaborated, memory_probes,
                        watch_members, CORE)
from sim.gateware.sram_activity import (COUNTER_WIDTH, add_access_counters, counter_names,
                                        deep_memories)


__all__ = ["RegisterSimTop"]


class RegisterSimTop(wiring.Component):
    """``design`` wired to a :class:`SimDRAM`, with a watchdog.

    Parameters
    ----------
    design : wiring.Component
        With the members of a :class:`~hw.lib.registers.design.RegisterDesign`: ``regs``,
        ``control``, ``counters`` (one output a name of ``counters``), a memory port
        ``mem``, ``link_probes`` and, if ``stalls``, ``stall_seed``.
    name : str
        The design's instance name in the Verilog.

    Members
    -------
    The testbench's flat ports (``sim.tb.test_register_run``), one a signal of the design's
    groups: ``reg_addr``, ``reg_data``, ``reg_write`` (``regs``); ``start``, ``busy``,
    ``done``, ``error`` (``control``; ``error`` also the DRAM's); ``stat_<counter>``
    (``counters.<counter>``). Then the DRAM's ``dump`` and ``dump_done``, the watchdog's ports
    (``watchdog_limit``, ``hang``, ``quiet_cycles``, ``link_valid``, ``link_ready``, one bit
    per name of :attr:`link_names`), ``stall_seed`` when the design injects stalls and the
    accesses of each of the design's SRAM-deep memories (:attr:`sram_memories`,
    :mod:`sim.gateware.sram_activity`), ``sram<k>_reads`` and ``sram<k>_writes``. The
    design takes its reset and inputs one cycle after the top
    (:func:`~sim.gateware.sim_watch.add_behind_registers`).
    """

    def __init__(self, design, *, name: str, counters, memory: SimMemoryConfig,
                 addr_width: int, stalls: bool):
        self._name = name
        self._counters = tuple(counters)
        self._memory = memory
        self._addr_width = addr_width
        self._stalls = stalls
        self._design, self._fragment, self._probes = self._place(design)
        # A netlist in the design's place has no memories to count (None: not counted).
        self._srams = None if isinstance(self._fragment, Instance) else \
            deep_memories(self._fragment, name)
        members = {
            "reg_addr": In(8), "reg_data": In(32), "reg_write": In(1),
            "start": In(1), "busy": Out(1), "done": Out(1), "error": Out(1),
            "dump": In(1), "dump_done": Out(1),
        }
        members.update({f"stat_{counter}": Out(32) for counter in self._counters})
        members.update(watch_members(len(self._probes), stalls))
        members.update({port: Out(COUNTER_WIDTH)
                        for port in counter_names(self._srams or [])})
        super().__init__(members)

    def _place(self, design):
        """What stands in the design's place: an object with its ports, the fragment added
        as submodule ``name`` and the links the watchdog watches. Post-synthesis simulation
        (:mod:`sim.postsynth`) puts a synthesized netlist there."""
        return design, elaborated(design), design.link_probes + memory_probes(design.mem)

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    @property
    def link_names(self) -> list[str]:
        """The watched links, in the bit order of ``link_valid`` and ``link_ready``."""
        return [probe.name for probe in self._probes]

    @property
    def sram_memories(self) -> list[dict] | None:
        """The design's memories whose accesses the top counts, in the order of its
        ``sram<k>_`` ports (empty when it has none of SRAM depth); None for a netlist in the
        design's place, whose memories it cannot see."""
        return None if self._srams is None else [memory.as_dict() for memory in self._srams]

    @property
    def memory_config(self) -> SimMemoryConfig:
        """The simulated DRAM beside the design."""
        return self._memory

    @property
    def memory_clients(self) -> list[str] | None:
        """The design's memory clients in tag order (what the DRAM's ``+dram_traffic``
        counts by), or None when what stands in its place does not name them."""
        return getattr(self._design, "memory_clients", None)

    def elaborate(self, platform):
        m = Module()
        design = self._design
        regs, control = design.regs, design.control
        inputs = [(regs.addr, self.reg_addr), (regs.data, self.reg_data),
                  (regs.write, self.reg_write), (control.start, self.start)]
        if self._stalls:
            inputs.append((design.stall_seed, self.stall_seed))
        dram = add_design_and_dram(m, self, self._fragment, self._name, design, self._memory,
                                   self._addr_width, inputs)
        m.d.comb += [self.error.eq(control.error | dram.error), self.busy.eq(control.busy),
                     self.done.eq(control.done)]
        for counter in self._counters:
            m.d.comb += getattr(self, f"stat_{counter}").eq(getattr(design.counters, counter))
        attach_watchdog(m, self, self._probes, control.busy)
        add_access_counters(m, self, self._srams or [], CORE, control.start, control.busy)
        return m
