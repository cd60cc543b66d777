"""An analytical SRAM macro model (issue 20, item 2): bits, ports and banks to area and access
energy at a process node. A Liberty file has no RAM, so the ASIC flow keeps deep memories
whole and prices them with this model (:func:`macro_area_um2`).

Area of one bank of ``bits`` bits: ``A = a * X + b * (node / 130 nm) * sqrt(X)`` µm², with
``X = bits * cell`` the bit array (µm²): the first term the array and what grows with it, the
second the periphery along its edges (decoders, sense amplifiers, I/O). ``cell`` is a 6T
bit cell, or an 8T cell with a second (read) port, scaled from 130 nm by ``(node / 130)**2``.

Constants and their sources (read from the files named, at the commits named):

* bit cells at 130 nm: 2.07 µm² (one port: 1.31 × 1.58 µm, SkyWater's
  ``sky130_fd_bd_sram__sram_sp_cell_opt1`` LEF, google/skywater-pdk-libs-sky130_fd_bd_sram
  be33adbc, the cell OpenRAM uses for sky130's single-port macros) and 6.16 µm² (1rw1r:
  3.12 × 1.975 µm, ``sky130_fd_bd_sram__openram_dp_cell``);
* ``a`` = 0.842 and ``b`` = 714 µm, fitted (least relative squares) to the nine OpenRAM sky130
  macros of :data:`PUBLISHED` (VLSIDA/sky130_sram_macros: LEF ``SIZE``, main 965df150 and dev
  b586c523): the model is within 17% of each;
* access energy, from IHP's SG13G2 130 nm foundry SRAM datasheets (IHP-GmbH/IHP-Open-PDK
  5cccb161, ``ihp-sg13g2/libs.ref/sg13g2_sram/doc/``, "Total Typical Power" at 1.2 V, 25 °C,
  in pJ a cycle): ``E = width * (0.424 + 0.0472 * sqrt(words))`` pJ, fitted to their 256x32
  (37.73), 1024x32 (61.88), 1024x64 (118.1) and 2048x64 (156.4) macros, within 5% of those;
  scaled by ``node / 130`` (switched capacitance with feature size, voltage held);
  their 8192x32 macro (235.5 pJ, column-muxed by 4) is 36% above the model.

IHP's foundry macros are denser than OpenRAM's: the model (calibrated on OpenRAM) is 1.05× to
2.2× their area, most for the smallest (:data:`PUBLISHED` lists them; the test prints both).
"""

from __future__ import annotations

import dataclasses
import math


__all__ = ["SRAM_MODEL", "PUBLISHED", "macro_area_um2", "access_energy_pj", "scale_area",
           "Published"]

REFERENCE_NM = 130.0
SRAM_MODEL = {
    "form": "area = a*X + b*(node/130nm)*sqrt(X), X = bits * cell (um^2), per bank",
    "a": 0.842, "b_um": 714.0,
    "cell_um2_130nm": {"1port": 2.07, "2port": 6.16},
    "energy_pj_130nm": "width * (0.424 + 0.0472 * sqrt(words)), scaled by node/130",
    "sources": "sky130 bit cells and OpenRAM sky130 macros (area); IHP SG13G2 datasheets "
               "(energy); see synth/sram_model.py",
}


@dataclasses.dataclass(frozen=True)
class Published:
    name: str
    words: int
    width: int
    ports: int            # 1: one read/write port; 2: one read/write and one read port
    area_um2: float
    source: str
    calibration: bool     # used in the fit


PUBLISHED = [
    Published("sky130_sram_1kbyte_1rw1r_32x256_8", 256, 32, 2, 479.78 * 397.5,
              "VLSIDA/sky130_sram_macros 965df150 LEF SIZE 479.78 BY 397.5", True),
    Published("sky130_sram_2kbyte_1rw1r_32x512_8", 512, 32, 2, 683.1 * 416.54,
              "VLSIDA/sky130_sram_macros 965df150 LEF SIZE 683.1 BY 416.54", True),
    Published("sky130_sram_1kbyte_1rw1r_8x1024_8", 1024, 8, 2, 455.3 * 446.46,
              "VLSIDA/sky130_sram_macros 965df150 LEF SIZE 455.3 BY 446.46", True),
    Published("sky130_sram_4kbyte_1rw1r_32x1024_8", 1024, 32, 2, 693.98 * 668.82,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 693.98 BY 668.82", True),
    Published("sky130_sram_8kbyte_1rw1r_32x2048_8", 2048, 32, 2, 1093.82 * 720.5,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 1093.82 BY 720.5", True),
    Published("sky130_sram_1kbyte_1rw_32x256_8", 256, 32, 1, 478.42 * 223.42,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 478.42 BY 223.42", True),
    Published("sky130_sram_2kbyte_1rw_32x512_8", 512, 32, 1, 483.86 * 326.1,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 483.86 BY 326.1", True),
    Published("sky130_sram_4kbyte_1rw_32x1024_8", 1024, 32, 1, 806.86 * 351.26,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 806.86 BY 351.26", True),
    Published("sky130_sram_8kbyte_1rw_64x1024_8", 1024, 64, 1, 830.66 * 541.66,
              "VLSIDA/sky130_sram_macros b586c523 LEF SIZE 830.66 BY 541.66", True),
    Published("RM_IHPSG13_1P_256x32", 256, 32, 1, 49488.50,
              "IHP-Open-PDK 5cccb161 datasheet: 118.78 x 416.64 = 49488.50", False),
    Published("RM_IHPSG13_1P_1024x32", 1024, 32, 1, 140182.69,
              "IHP-Open-PDK 5cccb161 datasheet: 336.46 x 416.64 = 140182.69", False),
    Published("RM_IHPSG13_1P_1024x64", 1024, 64, 1, 263946.14,
              "IHP-Open-PDK 5cccb161 datasheet: 336.46 x 784.48 = 263946.14", False),
    Published("RM_IHPSG13_1P_2048x64", 2048, 64, 1, 491633.62,
              "IHP-Open-PDK 5cccb161 datasheet: 626.70 x 784.48 = 491633.62", False),
    Published("RM_IHPSG13_1P_8192x32", 8192, 32, 1, 939914.93,
              "IHP-Open-PDK 5cccb161 datasheet: 618.30 x 1520.16 = 939914.93", False),
]


def _cell_um2(ports: int, node_nm: float) -> float:
    kind = "1port" if ports <= 1 else "2port"
    return SRAM_MODEL["cell_um2_130nm"][kind] * (node_nm / REFERENCE_NM) ** 2


def macro_area_um2(words: int, width: int, *, ports: int = 1, banks: int = 1,
                   node_nm: float = 180.0) -> float:
    """Area of ``banks`` macros holding ``words`` × ``width`` bits between them; ``ports``:
    1, or 2 for a memory with a second port (more are priced as pairs of 2-port arrays)."""
    if words < 1 or width < 1 or banks < 1 or ports < 1:
        raise ValueError(f"an SRAM needs positive words, width, ports and banks, not "
                         f"{words} x {width}, {ports} ports, {banks} banks")
    copies = 1 if ports <= 2 else math.ceil(ports / 2)
    bits = -(-words // banks) * width
    x = bits * _cell_um2(min(ports, 2), node_nm)
    one = SRAM_MODEL["a"] * x + SRAM_MODEL["b_um"] * (node_nm / REFERENCE_NM) * math.sqrt(x)
    return banks * copies * one


def access_energy_pj(words: int, width: int, *, banks: int = 1,
                     node_nm: float = 180.0) -> float:
    """Energy of one access (one bank active)."""
    rows = -(-words // banks)
    return width * (0.424 + 0.0472 * math.sqrt(rows)) * node_nm / REFERENCE_NM


def scale_area(area_um2: float, from_nm: float, to_nm: float) -> float:
    """Classical (λ²) scaling of an area between nodes: ``(to / from)**2``. Below about 45 nm
    real layouts shrink less than this (wires and SRAM cells stop scaling with the node), so a
    scaled figure is a lower bound there."""
    return area_um2 * (to_nm / from_nm) ** 2
