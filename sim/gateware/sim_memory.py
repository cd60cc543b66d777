"""The simulated memory behind an accelerator's port in RTL simulation: the DRAM model's
settings and its wiring to a design's memory port.

Simulation only (the DRAM is a behavioural Verilog module); the synthesized designs keep
plain request/response ports. Every setting but ``depth_lines`` and ``channels`` reaches the
model as a plusarg (:meth:`SimMemoryConfig.plusargs`), so one Verilator build of a design
serves every memory timing.

The memory may have several channels (DDR channels, HBM pseudo-channels) over one storage:
channel ``c`` serves the lines with ``addr % channels == c``, and each channel applies the
timing settings on its own (its own bandwidth budget, latency draws, outstanding limit,
pushback and reordering), so ``bytes_per_cycle`` is a channel's bandwidth and the memory's is
``channels * bytes_per_cycle``.
"""

import dataclasses

from amaranth.hdl import DomainRenamer, Shape

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two
from sim.gateware.dram_model import MAX_CHANNELS, DRAMConfig, DRAMTiming, SimDRAM


__all__ = ["SimMemoryConfig", "PRESETS", "QUEUE_SLOTS", "attach_sim_dram"]

# The DRAM model's queue of reads in flight: the largest ``outstanding``.
QUEUE_SLOTS = 256

# Named memory settings; keys given beside ``preset`` override them.
PRESETS = {
    # Graphicionado (Ham et al., MICRO 2016): 68 GB/s for the whole accelerator at 1 GHz,
    # here 4 channels of 17 bytes a cycle; DRAM latency 100 cycles.
    "paper": {"latency": 100, "bytes_per_cycle": 17, "channels": 4},
    # One of the paper's 8 streams alone: its share, 68 / 8 = 8.5 bytes a cycle, one channel.
    "paper_stream": {"latency": 100, "bytes_per_cycle": 8.5, "channels": 1},
}

LATENCY_DISTRIBUTIONS = ("fixed", "uniform", "tail")


@dataclasses.dataclass(frozen=True)
class SimMemoryConfig(DesignConfig):
    """The simulated DRAM: 64-byte lines, at most one request and one response per cycle.

    Parameters
    ----------
    preset : str
        ``""`` or a name of :data:`PRESETS` (``paper``: the paper's 68 bytes a cycle as 4
        channels of 17; ``paper_stream``: one stream's share, 8.5 bytes a cycle, one
        channel). :meth:`from_overrides` starts from the preset's values; the name is kept
        for the reports.
    latency : int
        Cycles from a read request to its data (default 100).
    latency_dist : str
        ``fixed`` (every read ``latency``), ``uniform`` (``latency`` + 0..``jitter``) or
        ``tail``: ``latency`` + 0..``jitter`` for most reads, and for ``tail_percent`` % of
        them (drawn per read) ``tail // 2``..``tail`` cycles more, uniformly.
    jitter : int
        The uniform part's range (``uniform`` and ``tail`` only).
    tail_percent : int
        Share of slow reads in percent (``tail`` only).
    tail : int
        A slow read's extra latency is ``tail // 2``..``tail`` (``tail`` only).
    outstanding : int
        Reads in flight at most per channel, 1..:data:`QUEUE_SLOTS`; below the arbiter's
        limit the memory pushes back.
    pushback : int
        Percentage of cycles in which the memory refuses requests at random (``+dram_seed``).
    reorder : bool
        Responses with different tags (different clients of the arbiter) may overtake each
        other; those with one tag keep their order.
    depth_lines : int
        Size of the simulated memory in 64-byte lines (a parameter of the build).
    bytes_per_cycle : float
        Bandwidth PER CHANNEL: every request (a 64-byte line, read or written) spends 64
        bytes of the channel's budget, refilled by this many bytes a cycle (64: a line every
        cycle); a multiple of 1/256. The memory's total is ``channels`` times this.
    channels : int
        Channels (a power of two, 1..16), lines interleaved across them by their low address
        bits; every setting above applies to each channel on its own. A design connects one
        memory port per channel (a parameter of the build).
    """
    preset: str = ""
    latency: int = 100
    latency_dist: str = "fixed"
    jitter: int = 0
    tail_percent: int = 5
    tail: int = 1000
    outstanding: int = 128
    pushback: int = 0
    reorder: bool = False
    depth_lines: int = 1 << 21
    bytes_per_cycle: float = 64.0
    channels: int = 1

    def __post_init__(self):
        if isinstance(self.bytes_per_cycle, int) and not isinstance(self.bytes_per_cycle, bool):
            object.__setattr__(self, "bytes_per_cycle", float(self.bytes_per_cycle))
        super().__post_init__()

    def validate(self):
        if self.preset and self.preset not in PRESETS:
            raise ConfigError(f"unknown memory preset {self.preset!r}; valid: "
                              f"{', '.join(PRESETS)}")
        if self.latency_dist not in LATENCY_DISTRIBUTIONS:
            raise ConfigError(f"latency_dist must be one of {', '.join(LATENCY_DISTRIBUTIONS)}, "
                              f"not {self.latency_dist!r}")
        if self.latency_dist == "fixed" and self.jitter:
            raise ConfigError("jitter needs latency_dist=uniform or latency_dist=tail")
        if not 1 <= self.outstanding <= QUEUE_SLOTS:
            raise ConfigError(f"outstanding must be between 1 and {QUEUE_SLOTS}, "
                              f"not {self.outstanding}")
        if not 1 / 256 <= self.bytes_per_cycle <= 64:
            raise ConfigError(f"bytes_per_cycle must be between 1/256 and 64, "
                              f"not {self.bytes_per_cycle}")
        if self.bytes_per_cycle * 256 != round(self.bytes_per_cycle * 256):
            raise ConfigError(f"bytes_per_cycle must be a multiple of 1/256, "
                              f"not {self.bytes_per_cycle}")
        if not (is_power_of_two(self.channels) and 1 <= self.channels <= MAX_CHANNELS):
            raise ConfigError(f"channels must be a power of two from 1 to {MAX_CHANNELS}, "
                              f"not {self.channels}")
        if self.depth_lines > 1 << 22:
            raise ConfigError(f"depth_lines above {1 << 22} (256 MiB) is not supported, "
                              f"not {self.depth_lines}")
        DRAMConfig(depth_lines=self.depth_lines, tag_width=0, addr_width=26)
        self.timing()

    @classmethod
    def from_overrides(cls, overrides: dict[str, str]) -> "SimMemoryConfig":
        """``key=value`` strings, ``preset=NAME`` first applied and the other keys over it."""
        preset = overrides.get("preset", "")
        if preset not in ("", *PRESETS):
            raise ConfigError(f"unknown memory preset {preset!r}; valid: {', '.join(PRESETS)}")
        values = {key: str(value) for key, value in PRESETS.get(preset, {}).items()}
        return super().from_overrides({**values, **overrides})

    def timing(self) -> DRAMTiming:
        """The model's runtime settings."""
        return DRAMTiming(
            latency=self.latency,
            jitter=self.jitter if self.latency_dist != "fixed" else 0,
            outstanding=self.outstanding,
            tail_percent=self.tail_percent if self.latency_dist == "tail" else 0,
            tail=self.tail if self.latency_dist == "tail" else 0,
            pushback=self.pushback,
            bandwidth=round(self.bytes_per_cycle * 256),
            reorder=self.reorder)

    def plusargs(self) -> list[str]:
        """The plusargs giving the model these settings (``+dram_seed`` apart)."""
        return self.timing().plusargs()

    def build_digest(self) -> str:
        """A hash of what the emitted Verilog depends on (the memory's size and channels)."""
        return DRAMConfig(depth_lines=self.depth_lines, tag_width=0, addr_width=26,
                          channels=self.channels).digest()

    @property
    def total_bytes_per_cycle(self) -> float:
        """The bandwidth of every channel together."""
        return self.bytes_per_cycle * self.channels


def attach_sim_dram(m, ports, memory: SimMemoryConfig, addr_width: int, *,
                    domain: str = "sync") -> SimDRAM:
    """Add a :class:`SimDRAM` to module ``m`` serving the design's memory ``ports``: one port
    (a :func:`hw.lib.memory.port.mem_port_signature`, tagged or not, seen from the design) or a
    list of them, port ``c`` on channel ``c``; as many as ``memory.channels``. The DRAM has
    ``memory.depth_lines`` lines; its timing comes from the plusargs of ``memory.plusargs()``
    given to the simulation; it runs on clock domain ``domain``. Returns the DRAM, whose
    ``dump``, ``dump_done`` and ``error`` the caller wires."""
    ports = list(ports) if isinstance(ports, (list, tuple)) or hasattr(ports, "__len__") \
        else [ports]
    if len(ports) != memory.channels:
        raise ConfigError(f"the design has {len(ports)} memory port(s) but the simulated "
                          f"memory has channels={memory.channels}; they must be equal")
    fields = ports[0].req.payload.shape().members
    tag_width = Shape.cast(fields["tag"]).width if "tag" in fields else 0
    dram = SimDRAM(DRAMConfig(
        depth_lines=memory.depth_lines, outstanding=QUEUE_SLOTS, tag_width=tag_width,
        addr_width=addr_width, channels=memory.channels))
    m.submodules.dram = DomainRenamer(domain)(dram) if domain != "sync" else dram
    for port, channel in zip(ports, dram.channel_ports):
        m.d.comb += [
            channel.req.valid.eq(port.req.valid),
            port.req.ready.eq(channel.req.ready),
            channel.req.payload.eq(port.req.payload),
            port.resp.valid.eq(channel.resp.valid),
            port.resp.payload.eq(channel.resp.payload),
            channel.resp.ready.eq(port.resp.ready),
        ]
    return dram
