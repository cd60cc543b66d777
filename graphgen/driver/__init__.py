"""The host driver of a design built as drop-in IP: :class:`Driver` over a register-and-memory
:class:`Bus` (Amaranth's simulator, the Verilog under cocotb, a LiteX ``RemoteClient``,
memory-mapped files), with a small adapter per design for its memory image and its answer
(docs/driver.md)."""

from graphgen.driver.bus import Bus, BusAccessError, LiteXBus, MmapBus, remote_client
from graphgen.driver.driver import (Driver, ErrorCause, HostImage, RunError, RunResult,
                                    RunTimeout)


__all__ = ["Bus", "BusAccessError", "LiteXBus", "MmapBus", "remote_client", "Driver",
           "ErrorCause", "HostImage", "RunError", "RunResult", "RunTimeout"]
