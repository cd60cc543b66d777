"""A design's AXI top simulated under cocotb (its Verilog on Verilator or Icarus), as a
:class:`~graphgen.driver.bus.Bus`.

:class:`CocotbBus` reaches the registers through cocotbext-axi's ``AxiLiteMaster`` on the
top's ``s_axil_*`` ports and serves every AXI4 master (``m_axi_*``, or ``m_axi<c>_*`` with
several memory channels) with cocotbext-axi's RAM (``AxiRamRead`` and ``AxiRamWrite``, the
two halves of ``AxiRam``, which answers bursts in order), all of them over one shared memory:
the interconnect a system puts between the masters and its DRAM. ``read_memory`` and
``write_memory`` reach that memory directly (a backdoor, as a host's DMA would), ``wait``
lets the clock run.

The bus is synchronous, as the :class:`~graphgen.driver.driver.Driver` is: the driver runs
in a thread started with ``cocotb.task.bridge`` and every call of the bus hands a coroutine
to the simulator with ``cocotb.task.resume`` and blocks until it is done, so the driver's
code, unchanged, is what a real host runs::

    bus = CocotbBus(dut, memory_bytes=1 << 20, pause=seed)
    await bus.start()
    result = await bridge(Driver(bus, address_map).run)(host, graph, root=0)

A memory access past ``memory_bytes``, or one ``errors(channel, write, addr, length)``
says fails, is answered SLVERR (cocotbext-axi's RAM answers SLVERR for an access that
raises): fault injection for the top's error path.
"""

import random

import cocotb
from cocotb.clock import Clock
from cocotb.task import resume
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiResp
from cocotbext.axi.axi_ram import AxiRamRead, AxiRamWrite
from cocotbext.axi.sparse_memory import SparseMemory

from graphgen.driver.bus import Bus, BusAccessError, _check_word
from hw.lib.config import ConfigError
from sim.tb.common import CLOCK_PERIOD_NS, pause_generator


__all__ = ["CocotbBus", "MemoryFault", "master_prefixes", "CLOCK_PERIOD_NS"]


class MemoryFault(Exception):
    """Raised inside the RAM for an access it must answer SLVERR."""


class _CheckedRead(AxiRamRead):
    def __init__(self, bus, clock, reset, *, mem, check):
        super().__init__(bus, clock, reset, reset_active_level=False, mem=mem)
        self._check = check

    async def _read(self, address, length):
        self._check(False, address, length)
        return self.read(address, length)


class _CheckedWrite(AxiRamWrite):
    def __init__(self, bus, clock, reset, *, mem, check):
        super().__init__(bus, clock, reset, reset_active_level=False, mem=mem)
        self._check = check

    async def _write(self, address, data):
        self._check(True, address, len(data))
        self.write(address, data)


class CocotbBus(Bus):
    """The AXI top ``dut`` (a cocotb handle of the top level) with its memory.

    Parameters
    ----------
    dut :
        The top level: ``aclk``, ``aresetn``, ``s_axil_*`` and ``m_axi_*`` (or
        ``m_axi0_*``, ``m_axi1_*``, ...), as ``graphgen verilog --bus axi`` emits it.
    memory_bytes : int
        The memory behind the masters, from byte address 0; an access past it is
        answered SLVERR, and :meth:`read_memory`/:meth:`write_memory` past it raise
        :class:`~graphgen.driver.bus.BusAccessError`.
    pause : int or None
        Seed of random back-pressure on all five channels of every AXI4 port and on the
        AXI4-Lite port (None: none): each channel pauses a cycle with probability
        ``pause_probability``.
    errors : callable or None
        ``errors(channel, write, addr, length) -> bool``: True answers that access (a read
        beat or a write's bytes at byte address ``addr``) SLVERR. May be changed between
        runs.
    """

    def __init__(self, dut, *, memory_bytes: int, pause: int | None = None,
                 pause_probability: float = 0.3, errors=None):
        if memory_bytes <= 0 or memory_bytes % 64:
            raise ConfigError(f"CocotbBus: memory_bytes must be a positive multiple of 64, "
                              f"not {memory_bytes}")
        self.dut = dut
        self.memory_bytes = memory_bytes
        self.errors = errors
        self.faults = []                    # (channel, write, addr) of each SLVERR answered
        self.mem = SparseMemory(memory_bytes)
        clock, reset = dut.aclk, dut.aresetn
        self.host = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), clock, reset,
                                  reset_active_level=False)
        self.prefixes = master_prefixes(dut)
        self.reads, self.writes = [], []
        for c, prefix in enumerate(self.prefixes):
            axi = AxiBus.from_prefix(dut, prefix)
            self.reads.append(_CheckedRead(axi.read, clock, reset, mem=self.mem,
                                           check=self._checker(c)))
            self.writes.append(_CheckedWrite(axi.write, clock, reset, mem=self.mem,
                                             check=self._checker(c)))
        if pause is not None:
            rng = random.Random(pause)
            for channel in self.channels():
                channel.set_pause_generator(pause_generator(rng, pause_probability))

    def channels(self) -> list:
        """Every channel model: the AXI4-Lite master's five, then each port's five."""
        ends = [self.host.write_if, self.host.read_if,
                *(end for pair in zip(self.writes, self.reads) for end in pair)]
        return [getattr(end, name) for end in ends
                for name in ("aw_channel", "w_channel", "b_channel", "ar_channel",
                             "r_channel") if hasattr(end, name)]

    def _checker(self, channel):
        def check(write, addr, length):
            if addr + length > self.memory_bytes or \
                    self.errors is not None and self.errors(channel, write, addr, length):
                self.faults.append((channel, write, addr))
                raise MemoryFault(f"{'write' if write else 'read'} at {addr:#x}")
        return check

    async def start(self, reset_cycles: int = 8):
        """Start ``aclk`` and hold ``aresetn`` low ``reset_cycles`` cycles (a coroutine, for
        the testbench, before the driver's thread starts)."""
        dut = self.dut
        cocotb.start_soon(Clock(dut.aclk, CLOCK_PERIOD_NS, unit="ns").start())
        dut.aresetn.value = 0
        await ClockCycles(dut.aclk, reset_cycles)
        dut.aresetn.value = 1
        await RisingEdge(dut.aclk)

    async def _read32(self, offset):
        answer = await self.host.read(offset, 4)
        return int.from_bytes(answer.data, "little"), answer.resp

    async def _write32(self, offset, value):
        answer = await self.host.write(offset, value.to_bytes(4, "little"))
        return answer.resp

    async def _wait(self, cycles):
        await ClockCycles(self.dut.aclk, cycles)

    def read32(self, offset):
        _check_word(offset)
        value, resp = resume(self._read32)(offset)
        if resp != AxiResp.OKAY:
            raise BusAccessError(f"register read at {offset:#x} answered {resp.name}")
        return value

    def write32(self, offset, value):
        _check_word(offset, value)
        resp = resume(self._write32)(offset, value)
        if resp != AxiResp.OKAY:
            raise BusAccessError(f"register write at {offset:#x} answered {resp.name}")

    def wait(self, cycles):
        if cycles > 0:
            resume(self._wait)(cycles)

    def _check_range(self, addr, count):
        if addr < 0 or addr + count > self.memory_bytes:
            raise BusAccessError(f"memory bytes {addr:#x}..{addr + count:#x} are outside "
                                 f"the {self.memory_bytes:#x} bytes of the memory")

    def read_memory(self, addr, count):
        self._check_range(addr, count)
        return bytes(self.mem[addr:addr + count]) if count > 0 else b""

    def write_memory(self, addr, data):
        data = bytes(data)
        self._check_range(addr, len(data))
        if data:
            self.mem[addr:addr + len(data)] = data


def master_prefixes(dut) -> list[str]:
    """The top's AXI4 master prefixes: ``m_axi``, or ``m_axi0``, ``m_axi1``, ..."""
    if hasattr(dut, "m_axi_awvalid"):
        return ["m_axi"]
    prefixes = []
    while hasattr(dut, f"m_axi{len(prefixes)}_awvalid"):
        prefixes.append(f"m_axi{len(prefixes)}")
    if not prefixes:
        raise ConfigError(f"{dut._name} has no AXI4 master (m_axi_* ports)")
    return prefixes
