"""The board flow (``graphgen board``, ``graphgen run --board``): a design's AXI top in a LiteX
SoC on a board's DRAM, its bitstream, and a graph run on it from the host. LiteX is imported
only here, and only when a board command runs (the ``board`` extra of pyproject.toml)."""

__all__ = ["BOARDS", "CLOCK_MHZ", "MAIN_RAM_BASE", "REGISTERS_BASE", "REGISTERS_BYTES", "SDRAM_BYTES",
           "BOARD_MASTER", "require_litex"]

# Board name: its FPGA and the litex-boards target the SoC is built on.
BOARDS = {
    "ulx3s-85f": {"device": "LFE5U-85F", "package": "CABGA381", "target": "radiona_ulx3s"},
}
# The system clock by default: one the smallest design meets with margin (docs/board.md).
CLOCK_MHZ = 30.0

# The SoC's map (graphgen.board.soc): the design's AXI4-Lite registers, and the SDRAM
# (main_ram), where design byte address a sits at MAIN_RAM_BASE + a.
MAIN_RAM_BASE = 0x4000_0000
REGISTERS_BASE = 0x3000_0000
REGISTERS_BYTES = 0x1000
# The ULX3S's SDRAM as litex-boards describes it (MT48LC16M16: 4 banks x 8192 rows x 512
# columns x 16 bits).
SDRAM_BYTES = 32 * 2**20
# The AXI4 masters' parameters on a board: the SDR SDRAM answers within a few cycles at this
# clock, so 8 bursts in flight, one open burst and two writes waiting for reads serve it; the
# AXI top's defaults (64 read slots, 8 open bursts) fill 61% of the LFE5U-85F's LUTs with the
# smallest design and place at an estimated 12.6 MHz (docs/results.md).
BOARD_MASTER = {"read_outstanding": 8, "write_outstanding": 8, "open_bursts": 1,
                "burst_hold": 0, "write_waiting": 2}


def require_litex() -> None:
    """ConfigError with one line when the ``board`` extra (LiteX, LiteDRAM, litex-boards)
    is not installed."""
    from hw.lib.config import ConfigError
    try:
        import litedram  # noqa: F401
        import litex  # noqa: F401
        import litex_boards  # noqa: F401
        import migen  # noqa: F401
    except ImportError as error:
        raise ConfigError(f"the board flow needs LiteX ({error.name} is missing): "
                          f"pip install -e '.[board]'") from None
