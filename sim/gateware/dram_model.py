"""The simulated DRAM behind the accelerator's memory port, and the layouts of that port.

Graphicionado's pipeline talks to memory through plain request/response streams of 64-byte
lines. In simulation a behavioural Verilog model (``sim/gateware/verilog/graphgen_dram.v``) sits inside
the simulated design: Amaranth's ``Memory`` would write every word of a large memory into the
emitted Verilog, so the DRAM is a small Verilog module, instanced here with
:class:`amaranth.hdl.Instance`, that loads its image with ``$readmemh`` from ``+dram_init=PATH``
at time 0 and writes it back with ``$writememh`` to ``+dram_dump=PATH`` when ``dump`` is
pulsed. :class:`SimDRAM` is simulation-only: it has no synthesizable body.

Word order within a line: little-endian, word ``i`` of a line at bits ``[32*i + 31 : 32*i]``,
byte ``i`` at bits ``[8*i + 7 : 8*i]`` (byte enable ``wmask[i]``), as in
:mod:`hw.lib.memory.port`. :mod:`sim.dram_image` lays out and reads back the image files.

Simulating the Verilog: pass ``SimDRAM.VERILOG_SOURCE`` in ``extra_sources`` of
:func:`sim.harness.run_cocotb`, and absolute paths in the plusargs (``+dram_init=``,
``+dram_dump=``, ``+dram_seed=``): the simulation runs in its build folder.
"""

import dataclasses
from pathlib import Path

from amaranth.hdl import C, Cat, ClockSignal, Instance, Module, ResetSignal, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, mem_port_signature, mem_request_layout, \
    mem_response_layout


MAX_CHANNELS = 16

__all__ = ["MAX_CHANNELS", "DRAMConfig", "DRAMTiming", "SimDRAM", "mem_request_layout",
           "mem_response_layout", "mem_port_signature", "dram_channel_signature", "jitter_sequence",
           "extra_latency_sequence", "VERILOG_SOURCE"]

VERILOG_SOURCE = Path(__file__).resolve().parent / "verilog" / "graphgen_dram.v"


def _xorshift32(state: int) -> int:
    state ^= (state << 13) & 0xFFFF_FFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFF_FFFF
    return state


def extra_latency_sequence(seed: int, jitter: int, tail_percent: int = 0, tail: int = 0):
    """The extra latencies the Verilog model draws for successive reads with
    ``+dram_seed=seed``: 0..``jitter`` uniform, plus ``tail // 2``..``tail`` for the
    ``tail_percent`` % of slow reads. A Python mirror of its xorshift32, for testbenches that
    predict the cycle of every response."""
    state = (seed & 0xFFFF_FFFF) ^ 0x6A09E667 or 0x6A09E667
    while True:
        state = _xorshift32(state)
        extra = state % (jitter + 1) if jitter > 0 else 0
        if tail_percent > 0:
            state = _xorshift32(state)
            if state % 100 < tail_percent:
                extra += tail // 2 + (state // 100) % (tail - tail // 2 + 1)
        yield extra


def jitter_sequence(seed: int, jitter: int):
    """The extra latencies (0..``jitter``) of uniform jitter alone (no tail)."""
    return extra_latency_sequence(seed, jitter)


def _check_latency_and_queue(config):
    """The checks :class:`DRAMTiming` and :class:`DRAMConfig` share."""
    if not 1 <= config.latency <= 1 << 20:
        raise ConfigError(f"latency must be between 1 and {1 << 20}, not {config.latency}")
    if not 0 <= config.jitter <= 1 << 20:
        raise ConfigError(f"jitter must be between 0 and {1 << 20}, not {config.jitter}")
    if not 1 <= config.outstanding <= 4096:
        raise ConfigError(f"outstanding must be between 1 and 4096, "
                          f"not {config.outstanding}")


@dataclasses.dataclass(frozen=True)
class DRAMTiming(DesignConfig):
    """The DRAM model's runtime settings, given as plusargs (:meth:`plusargs`), so that one
    build of a design serves every memory setting. See the top of :data:`VERILOG_SOURCE`.

    Parameters
    ----------
    latency : int
        Cycles from a read's acceptance to its response, at least.
    jitter : int
        Extra latency drawn uniformly from 0..``jitter`` per read.
    outstanding : int
        Reads in flight at most, up to the model's queue (:attr:`DRAMConfig.outstanding`).
    tail_percent, tail : int
        Long tail: ``tail_percent`` % of reads (drawn per read) are later still, by a number
        of cycles drawn uniformly from ``tail // 2``..``tail``.
    pushback : int
        Percentage of cycles (drawn per cycle) in which ``req.ready`` is dropped, 0..99.
    bandwidth : int
        Bytes per cycle in 1/256 bytes (fixed point), every request spending a line (64
        bytes); 1..16384 (16384: a line every cycle).
    reorder : bool
        Responses with different tags may overtake each other; with the same tag they keep
        their order.
    """
    latency: int = 100
    jitter: int = 0
    outstanding: int = 64
    tail_percent: int = 0
    tail: int = 0
    pushback: int = 0
    bandwidth: int = LINE_BYTES * 256
    reorder: bool = False

    def validate(self):
        _check_latency_and_queue(self)
        if not 0 <= self.tail_percent <= 100:
            raise ConfigError(f"tail_percent must be between 0 and 100, "
                              f"not {self.tail_percent}")
        if not 0 <= self.tail <= 1 << 20:
            raise ConfigError(f"tail must be between 0 and {1 << 20}, not {self.tail}")
        if not 0 <= self.pushback <= 99:
            raise ConfigError(f"pushback must be between 0 and 99 (percent), "
                              f"not {self.pushback}")
        if not 1 <= self.bandwidth <= LINE_BYTES * 256:
            raise ConfigError(f"bandwidth must be between 1 and {LINE_BYTES * 256} "
                              f"(1/256 bytes a cycle), not {self.bandwidth}")

    def plusargs(self) -> list[str]:
        return [f"+dram_latency={self.latency}", f"+dram_jitter={self.jitter}",
                f"+dram_outstanding={self.outstanding}",
                f"+dram_tail_percent={self.tail_percent}", f"+dram_tail={self.tail}",
                f"+dram_pushback={self.pushback}", f"+dram_bw={self.bandwidth}",
                f"+dram_reorder={int(self.reorder)}"]

    @classmethod
    def from_plusargs(cls, plusargs: dict, config: "DRAMConfig") -> "DRAMTiming":
        """The settings a simulation with ``plusargs`` (cocotb's dict) runs with, the
        parameters of ``config`` standing in for those not given, as in the model."""
        names = {"latency": "dram_latency", "jitter": "dram_jitter",
                 "outstanding": "dram_outstanding", "tail_percent": "dram_tail_percent",
                 "tail": "dram_tail", "pushback": "dram_pushback", "bandwidth": "dram_bw",
                 "reorder": "dram_reorder"}
        values = {"latency": config.latency, "jitter": config.jitter,
                  "outstanding": config.outstanding}
        for field, name in names.items():
            if isinstance(plusargs.get(name), str):
                values[field] = int(plusargs[name])
        values["outstanding"] = min(values["outstanding"], config.outstanding)
        values["reorder"] = bool(values.get("reorder", 0))
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class DRAMConfig(DesignConfig):
    """Parameters of :class:`SimDRAM`.

    Parameters
    ----------
    line_bytes : int
        Bytes per line (fixed: 64).
    depth_lines : int
        Memory size in lines; the model allocates exactly this (64 MiB at the default 1 Mi).
    latency : int
        Cycles from a read's acceptance to its response, at least 1 (the default of
        ``+dram_latency``; :class:`DRAMTiming` holds the runtime settings).
    jitter : int
        Extra latency drawn uniformly from 0..``jitter`` per read (default of
        ``+dram_jitter``).
    outstanding : int
        Size of the model's queue of reads in flight, and the default limit
        (``+dram_outstanding`` sets a lower one). Full read throughput needs
        ``outstanding > latency + jitter``.
    tag_width : int
        Width of the request tag returned with each response (0: no tag field).
    addr_width : int
        Width of a line address; must reach ``depth_lines``.
    channels : int
        Independent channels over one storage (a power of two, 1..16): channel ``c`` serves
        the lines with ``addr % channels == c``, each with its own queue, outstanding limit,
        bandwidth budget, latency draws and pushback (the timing plusargs apply to each).
    """
    line_bytes: int = LINE_BYTES
    depth_lines: int = 1 << 20
    latency: int = 100
    jitter: int = 0
    outstanding: int = 64
    tag_width: int = 8
    addr_width: int = 26
    channels: int = 1

    def validate(self):
        if self.line_bytes != LINE_BYTES:
            raise ConfigError(f"line_bytes must be {LINE_BYTES}, not {self.line_bytes}")
        if not 1 <= self.addr_width <= 58:
            raise ConfigError(f"addr_width must be between 1 and 58, not {self.addr_width}")
        if not 1 <= self.depth_lines <= min(1 << 24, 1 << self.addr_width):
            raise ConfigError(f"depth_lines must be between 1 and "
                              f"{min(1 << 24, 1 << self.addr_width)} (2**addr_width, at most "
                              f"1 GiB of lines), not {self.depth_lines}")
        _check_latency_and_queue(self)
        if not 0 <= self.tag_width <= 32:
            raise ConfigError(f"tag_width must be between 0 and 32, not {self.tag_width}")
        if not (is_power_of_two(self.channels) and 1 <= self.channels <= MAX_CHANNELS):
            raise ConfigError(f"channels must be a power of two from 1 to {MAX_CHANNELS}, "
                              f"not {self.channels}")


class SimDRAM(wiring.Component):
    """Simulation-only DRAM: an instance of the Verilog model ``graphgen_dram``.

    Requests are taken one per cycle at most. A write takes effect at acceptance (bytes with
    ``wmask`` set) and has no response. A read captures the line at acceptance and returns it
    ``latency`` cycles later at the earliest (plus a jitter of 0..``jitter`` cycles and the
    long tail drawn per read from ``+dram_seed``), in request order, or with
    ``+dram_reorder=1`` in any order across tags and in request order within one tag; a
    response holds while ``resp.ready`` is low. ``req.ready`` is low while the outstanding
    limit is reached, the bandwidth budget is short of a line, or pushback drops it; it
    depends on no input. The timing settings are plusargs (:class:`DRAMTiming`), the
    parameters giving their defaults; the exact timing is described at the top of
    :attr:`VERILOG_SOURCE`.

    Parameters
    ----------
    config : :class:`DRAMConfig`

    With ``config.channels > 1`` the model has that many channels over one storage, each
    timed as above on its own (:attr:`DRAMConfig.channels`); their ports are ``channels[c]``
    instead of ``req`` and ``resp``.

    Members
    -------
    req : ``In(stream.Signature(mem_request_layout(addr_width, tag_width)))``
    resp : ``Out(stream.Signature(mem_response_layout(tag_width)))``
        One response per read; in request order unless ``+dram_reorder=1``. (One channel.)
    channels : ``Out(dram_channel_signature(addr_width, tag_width)).array(channels)``
        With several channels, in place of ``req`` and ``resp``: channel ``c``'s ``req`` and
        ``resp``.
    dump : ``In(1)``
        Sampled high at a clock edge: write the memory to ``+dram_dump=PATH``.
    dump_done : ``Out(1)``
        High for one cycle, one edge after the edge that took the dump (the file is complete).
    stat_reads, stat_writes : ``Out(32)``
        Requests accepted since reset.
    error : ``Out(1)``
        A request addressed a line at or beyond ``depth_lines`` (read as zero, write dropped).
    """

    VERILOG_SOURCE: Path = VERILOG_SOURCE

    def __init__(self, config: DRAMConfig = DRAMConfig()):
        if not isinstance(config, DRAMConfig):
            raise ConfigError(f"SimDRAM takes a DRAMConfig, not {type(config).__name__}")
        self._config = config
        channel = dram_channel_signature(config.addr_width, config.tag_width)
        ports = (dict(channel.members) if config.channels == 1 else
                 {"channels": Out(channel).array(config.channels)})
        super().__init__({
            **ports,
            "dump": In(1),
            "dump_done": Out(1),
            "stat_reads": Out(32),
            "stat_writes": Out(32),
            "error": Out(1),
        })

    @property
    def config(self) -> DRAMConfig:
        return self._config

    @property
    def extra_sources(self) -> list[Path]:
        return [self.VERILOG_SOURCE]

    @property
    def channel_ports(self) -> list:
        """Every channel's ports (objects with ``req`` and ``resp``), channel 0 first."""
        return [self] if self._config.channels == 1 else list(self.channels)

    def elaborate(self, platform):
        cfg = self._config
        m = Module()
        ports = self.channel_ports
        tagged = cfg.tag_width > 0
        tag_bits = max(cfg.tag_width, 1)
        # The model's ports hold every channel's signals side by side, channel 0 lowest.
        wires = {name: Signal(width * cfg.channels, name=f"dram_{name}") for name, width in (
            ("req_valid", 1), ("req_ready", 1), ("req_addr", cfg.addr_width), ("req_write", 1),
            ("req_wdata", LINE_BITS), ("req_wmask", LINE_BYTES), ("req_tag", tag_bits),
            ("resp_valid", 1), ("resp_ready", 1), ("resp_rdata", LINE_BITS),
            ("resp_tag", tag_bits))}
        m.d.comb += [
            wires["req_valid"].eq(Cat(port.req.valid for port in ports)),
            wires["req_addr"].eq(Cat(port.req.payload.addr for port in ports)),
            wires["req_write"].eq(Cat(port.req.payload.write for port in ports)),
            wires["req_wdata"].eq(Cat(port.req.payload.wdata for port in ports)),
            wires["req_wmask"].eq(Cat(port.req.payload.wmask for port in ports)),
            wires["req_tag"].eq(Cat((port.req.payload.tag if tagged else C(0, 1))
                                    for port in ports)),
            wires["resp_ready"].eq(Cat(port.resp.ready for port in ports)),
        ]
        for c, port in enumerate(ports):
            m.d.comb += [
                port.req.ready.eq(wires["req_ready"][c]),
                port.resp.valid.eq(wires["resp_valid"][c]),
                port.resp.payload.rdata.eq(wires["resp_rdata"].word_select(c, LINE_BITS)),
            ]
            if tagged:
                m.d.comb += port.resp.payload.tag.eq(wires["resp_tag"].word_select(c, tag_bits))
        m.submodules.dram = Instance(
            "graphgen_dram",
            p_LINE_BITS=LINE_BITS,
            p_ADDR_BITS=cfg.addr_width,
            p_DEPTH_LINES=cfg.depth_lines,
            p_LATENCY=cfg.latency,
            p_JITTER=cfg.jitter,
            p_OUTSTANDING=cfg.outstanding,
            p_TAG_BITS=tag_bits,
            p_CHANNELS=cfg.channels,
            i_clk=ClockSignal(),
            i_rst=ResetSignal(),
            **{("o_" if name in ("req_ready", "resp_valid", "resp_rdata", "resp_tag")
                else "i_") + name: wire for name, wire in wires.items()},
            i_dump=self.dump,
            o_dump_done=self.dump_done,
            o_stat_reads=self.stat_reads,
            o_stat_writes=self.stat_writes,
            o_error=self.error,
        )
        return m


def dram_channel_signature(addr_width: int, tag_width: int) -> wiring.Signature:
    """One channel of :class:`SimDRAM`, seen from the DRAM: ``req`` in, ``resp`` out."""
    return wiring.Signature({
        "req": In(stream.Signature(mem_request_layout(addr_width, tag_width))),
        "resp": Out(stream.Signature(mem_response_layout(tag_width))),
    })
