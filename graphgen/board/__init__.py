"""The board flow (``graphgen board``, ``graphgen run --board``): a design's AXI top in a LiteX
SoC on a board's DRAM, its bitstream, and a graph run on it from the host. LiteX is imported
only here, and only when a board command runs (the ``board`` extra of pyproject.toml)."""

__all__ = ["BOARDS", "CLOCK_MHZ", "MAIN_RAM_BASE", "REGISTERS_BASE", "REGISTERS_BYTES", "SDRAM_BYTES",
           "require_litex"]

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
