"""The host's side of a design built as drop-in IP (:class:`~hw.lib.axi.top.AXITop`).

:class:`Driver` runs a graph on a design over any :class:`~graphgen.driver.bus.Bus`: a
per-design adapter (e.g.
:class:`graphgen.driver.graphicionado.GraphicionadoHost`) packs the graph into the memory image
and register values the design expects, the driver writes the image to memory, programs
the registers by name through the design's AXI4-Lite map, starts the run and polls the
control register until DONE. A run that never ends raises :class:`RunTimeout` naming the
counters that stopped moving; a run that ends with ERROR raises :class:`RunError` with the
error-cause registers decoded (which channel, read or write, which response, which byte
address and which region of the image it falls in). Otherwise the adapter reads the answer
back as a NumPy array.
"""

import dataclasses

import numpy as np

from hw.lib.axi.address_map import CONTROL_BITS, ERROR_CAUSE_FIELDS
from hw.lib.axi.signature import AXIResp
from hw.lib.config import ConfigError


__all__ = ["Driver", "HostImage", "RunResult", "ErrorCause", "RunError", "RunTimeout"]

LINE_BYTES = 64


@dataclasses.dataclass
class HostImage:
    """What an adapter lays out for one run: the memory from line 0 (``(n, 16)`` uint32),
    the configuration registers by name, the image's regions (name: first line, lines) and
    whatever the adapter needs to read the answer back (``state``)."""
    lines: np.ndarray
    registers: dict[str, int]
    regions: dict[str, tuple[int, int]]
    state: object = None

    @classmethod
    def of(cls, image) -> "HostImage":
        """From a design's simulation image (``image.dram``, a DRAMImage, and
        ``image.registers``), which stays the ``state``."""
        regions = {name: (region.base_line, region.num_lines)
                   for name, region in image.dram.regions.items()}
        return cls(lines=image.dram.to_lines(), registers=dict(image.registers),
                   regions=regions, state=image)

    def region_of(self, addr: int) -> str | None:
        """The region holding byte address ``addr``, as ``"name, line k"``."""
        line = addr // LINE_BYTES
        for name, (base, count) in self.regions.items():
            if base <= line < base + count:
                return f"{name}, line {line - base}"
        return None


@dataclasses.dataclass(frozen=True)
class ErrorCause:
    """The error-cause registers, decoded: ``bus`` a memory response failed (``write``,
    ``resp``, ``channel``, ``addr`` say which), ``refused`` a START was refused for the
    base register at register address ``index``; neither: the design's own error."""
    bus: bool
    write: bool = False
    resp: int = 0
    channel: int = 0
    addr: int = 0
    refused: bool = False
    index: int = 0

    @classmethod
    def decode(cls, cause: int, addr: int) -> "ErrorCause":
        def field(name):
            low, width = ERROR_CAUSE_FIELDS[name]
            return cause >> low & ((1 << width) - 1)
        return cls(bus=bool(field("valid")), write=bool(field("write")), resp=field("resp"),
                   channel=field("channel"), addr=addr, refused=bool(field("refused")),
                   index=field("index"))

    def describe(self, image: HostImage | None = None, names: dict | None = None) -> str:
        """One line; ``names`` (register address: name) names a refused register."""
        if self.refused:
            name = (names or {}).get(self.index, f"register {self.index}")
            return (f"START refused: base register {name} holds a line past the memory the "
                    f"design reaches")
        if not self.bus:
            return "the design reported an error (no memory response failed)"
        resp = AXIResp(self.resp).name if self.resp in (2, 3) else f"response {self.resp}"
        where = image.region_of(self.addr) if image is not None else None
        return (f"memory channel {self.channel}: a {'write' if self.write else 'read'} burst "
                f"at byte address {self.addr:#x}{f' ({where})' if where else ''} was "
                f"answered {resp}")


class RunError(Exception):
    """The run ended with ERROR; ``cause`` says why."""

    def __init__(self, cause: ErrorCause, image: HostImage | None = None,
                 names: dict | None = None):
        self.cause = cause
        super().__init__(f"the run failed: {cause.describe(image, names)}")


class RunTimeout(Exception):
    """No DONE within the timeout; ``stopped`` and ``moving`` are the counters that did not
    change and did over the last check window, ``counters`` their last values."""

    def __init__(self, cycles: int, counters: dict, stopped: list, moving: list):
        self.counters, self.stopped, self.moving = counters, stopped, moving
        shown = ", ".join(f"{name}={counters[name]}" for name in stopped) or "none"
        super().__init__(f"no DONE after {cycles} cycles; counters that stopped moving: "
                         f"{shown}; still moving: {', '.join(moving) or 'none'}")


@dataclasses.dataclass
class RunResult:
    values: np.ndarray              # the answer, one row per vertex
    counters: dict[str, int]
    cycles: int                     # cycles waited for DONE (a multiple of the poll interval)


class Driver:
    """A design's registers and memory over ``bus``, by the design's address map (a list of
    :class:`~hw.lib.axi.address_map.MapEntry`, e.g. ``AXITop.address_map``).

    ``memory_bytes``: the memory the design's masters reach (None: not checked); an image
    larger than it is refused before anything is written.
    """

    def __init__(self, bus, address_map, *, memory_bytes: int | None = None):
        self.bus = bus
        self._entries = {entry.name: entry for entry in address_map}
        self.memory_bytes = memory_bytes

    @property
    def registers(self) -> list[str]:
        """The configuration registers' names."""
        return [e.field for e in self._entries.values() if e.kind == "config"]

    @property
    def counter_names(self) -> list[str]:
        return [e.field for e in self._entries.values() if e.kind == "counter"]

    def _offset(self, name: str) -> int:
        for key in (name, f"reg_{name}", f"stat_{name}"):
            if key in self._entries:
                return self._entries[key].offset
        raise KeyError(f"the address map has no register {name!r}")

    def read(self, name: str) -> int:
        """A register by its map name (``control``, ``error_cause``, ...), configuration
        register or counter name."""
        return self.bus.read32(self._offset(name))

    def write(self, name: str, value: int) -> None:
        self.bus.write32(self._offset(name), value)

    def counters(self) -> dict[str, int]:
        return {name: self.read(f"stat_{name}") for name in self.counter_names}

    def status(self) -> dict[str, bool]:
        word = self.read("control")
        return {name: bool(word >> bit & 1) for name, bit in CONTROL_BITS.items()
                if name != "start"}

    def error_cause(self) -> ErrorCause:
        addr = self.read("error_addr_hi") << 32 | self.read("error_addr_lo")
        return ErrorCause.decode(self.read("error_cause"), addr)

    # A run, step by step.
    def load(self, image: HostImage) -> None:
        """Write ``image``'s memory and program its registers."""
        lines = np.ascontiguousarray(image.lines, dtype="<u4")
        size = lines.size * 4
        if self.memory_bytes is not None and size > self.memory_bytes:
            raise ConfigError(f"the image needs {size} bytes of memory, the design reaches "
                              f"{self.memory_bytes}")
        unknown = sorted(set(image.registers) - set(self.registers))
        if unknown:
            raise ConfigError(f"the address map has no registers {unknown}")
        self.bus.write_memory(0, lines.tobytes())
        for name, value in image.registers.items():
            self.write(f"reg_{name}", int(value))

    def start(self) -> None:
        self.write("control", 1 << CONTROL_BITS["start"])

    def wait_ready(self, *, timeout: int = 1_000_000, poll: int = 64) -> int:
        """Poll until BUSY is low (a design may be busy after reset: Graphicionado clears its
        scratchpad); return the cycles waited. A start while busy is not lost, it waits."""
        waited = 0
        while self.status()["busy"] and waited < timeout:
            self.bus.wait(poll)
            waited += poll
        return waited

    def wait_done(self, *, timeout: int = 1_000_000, poll: int = 64, window: int = 4096,
                  image: HostImage | None = None) -> int:
        """Poll every ``poll`` cycles until DONE; return the cycles waited. ERROR with DONE
        raises :class:`RunError`; no DONE within ``timeout`` cycles :class:`RunTimeout`,
        judging the counters over the last ``window`` cycles."""
        waited, mark = 0, 0
        older = previous = self.counters()
        while True:
            state = self.status()
            if state["done"]:
                if state["error"]:
                    names = {e.index: e.field for e in self._entries.values()
                             if e.kind == "config"}
                    raise RunError(self.error_cause(), image, names)
                return waited
            if waited >= timeout:
                now = self.counters()
                # Judged over at least half a window: the last mark may be a poll ago.
                if waited - mark < window // 2:
                    previous = older
                stopped = [name for name in now if now[name] == previous[name]]
                moving = [name for name in now if now[name] != previous[name]]
                raise RunTimeout(waited, now, stopped, moving)
            self.bus.wait(poll)
            waited += poll
            if waited - mark >= window:
                older, previous, mark = previous, self.counters(), waited

    def read_words(self, line: int, count: int) -> np.ndarray:
        """``count`` uint32 words from line ``line``."""
        raw = self.bus.read_memory(line * LINE_BYTES, 4 * count)
        return np.frombuffer(raw, dtype="<u4").astype(np.uint32)

    def run(self, adapter, graph, **options) -> RunResult:
        """Run ``graph`` (``options`` go to the adapter's ``image``; ``timeout``, ``poll``
        and ``window`` to :meth:`wait_done`) and read the answer back."""
        waits = {key: options.pop(key) for key in ("timeout", "poll", "window")
                 if key in options}
        image = adapter.image(graph, **options)
        self.load(image)
        self.wait_ready(**{k: v for k, v in waits.items() if k in ("timeout", "poll")})
        self.start()
        cycles = self.wait_done(image=image, **waits)
        counters = self.counters()
        values = adapter.result(image, counters, self.read_words)
        return RunResult(values=values, counters=counters, cycles=cycles)
