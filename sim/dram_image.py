"""The host side of the simulated DRAM (:class:`sim.gateware.dram_model.SimDRAM`): memory images.

A :class:`DRAMImage` lays out named regions (NumPy arrays, usually of uint32 words, or raw
bytes), each starting on a 64-byte line, writes them as the file the Verilog model loads at
time 0, and reads the regions back from the file it dumps when ``dump`` is pulsed.

Byte and word order: little-endian. Byte ``i`` of a line is bits ``[8*i + 7 : 8*i]`` of the
line, uint32 word ``i`` is bits ``[32*i + 31 : 32*i]``, and a region's bytes are its array's
little-endian bytes from byte 0 of its first line on.

Two file forms, chosen by the path's suffix (``.bin``: binary, anything else: hex):

* hex (``+dram_init=`` / ``+dram_dump=``, ``$readmemh`` / ``$writememh``): one memory line
  per text line, 128 hex digits, most significant first (so word 0 is the *last* 8 digits),
  line 0 first. Verilator's ``$readmemh`` reads only ~20 MB of text a second (a 1 Mi-line
  image is 134 MB: ~7 s).
* binary (``+dram_init_bin=`` / ``+dram_dump_bin=``, ``$fread`` / ``$fwrite("%u")``): the raw
  little-endian image, byte ``i`` of line ``L`` at offset ``64*L + i``; ~1 s for 1 Mi lines.

Lines beyond the file are zero in the model. Reading hex accepts what Verilator's and
Icarus's ``$writememh`` write (Icarus adds ``//`` comment lines) and, more slowly, any
``$readmemh`` file (``@address`` jumps, ``_`` in numbers, short numbers, ``x``/``z`` digits
read as 0). Formatting and parsing are vectorised: about half a second per million lines.
"""

import dataclasses
import re
from pathlib import Path

import numpy as np


__all__ = ["LINE_BYTES", "WORDS_PER_LINE", "Region", "DRAMImage", "lines_to_hex",
           "hex_to_lines", "read_lines", "plusargs"]

LINE_BYTES = 64
WORDS_PER_LINE = LINE_BYTES // 4
HEX_DIGITS = LINE_BYTES * 2

_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


@dataclasses.dataclass(frozen=True)
class Region:
    """A named region of the image: where it starts and what it holds."""
    name: str
    base_line: int
    num_bytes: int
    dtype: np.dtype            # uint8 for raw bytes
    shape: tuple

    @property
    def num_words(self) -> int:
        """uint32 words covered (the last one partly, for a byte count not a multiple of 4)."""
        return -(-self.num_bytes // 4)

    @property
    def num_lines(self) -> int:
        return -(-self.num_bytes // LINE_BYTES)

    @property
    def end_line(self) -> int:
        return self.base_line + self.num_lines

    @property
    def base_byte(self) -> int:
        return self.base_line * LINE_BYTES


class DRAMImage:
    """Named regions laid out at line addresses, written as a ``$readmemh`` file.

    Parameters
    ----------
    depth_lines : int or None
        Size of the simulated memory in lines; regions beyond it are refused.
    """

    def __init__(self, depth_lines: int | None = None):
        self.depth_lines = depth_lines
        self._regions: dict[str, Region] = {}
        self._data: dict[str, np.ndarray] = {}   # name → raw little-endian bytes (uint8)

    # Layout ---------------------------------------------------------------------------------

    def add(self, name: str, data, *, align_lines: int = 1) -> int:
        """Place ``data`` on the first line, a multiple of ``align_lines``, after every region
        placed so far; returns its base line."""
        base = max((region.end_line for region in self._regions.values()), default=0)
        base = -(-base // align_lines) * align_lines
        return self.place(name, data, base_line=base)

    def place(self, name: str, data, *, base_line: int) -> int:
        """Place ``data`` (a NumPy array of any dtype, a sequence of uint32 words, or bytes) at
        line ``base_line``; returns ``base_line``."""
        if name in self._regions:
            raise ValueError(f"region {name!r} is already placed")
        if base_line < 0:
            raise ValueError(f"region {name!r}: negative base line {base_line}")
        if isinstance(data, (bytes, bytearray, memoryview)):
            array = np.frombuffer(bytes(data), dtype=np.uint8)
        else:
            array = np.asarray(data)
            if array.dtype == object or array.dtype.kind not in "biuf":
                array = np.asarray(data, dtype=np.uint32)
            if array.dtype.kind in "iu" and array.dtype.itemsize == 8 and \
                    not isinstance(data, np.ndarray):
                array = array.astype(np.uint32)     # a list of Python ints: uint32 words
        array = np.ascontiguousarray(array)
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        # A copy: the caller may change its array after placing it (a golden model run on
        # the state it laid out), and the image must keep what was placed.
        raw = little.reshape(-1).view(np.uint8).copy()
        region = Region(name, base_line, raw.size, array.dtype, array.shape)
        if self.depth_lines is not None and region.end_line > self.depth_lines:
            raise ValueError(f"region {name!r} ends at line {region.end_line}, beyond the "
                             f"{self.depth_lines} lines of the memory")
        for other in self._regions.values():
            if region.base_line < other.end_line and other.base_line < region.end_line \
                    and region.num_bytes and other.num_bytes:
                raise ValueError(f"region {name!r} (lines {region.base_line}.."
                                 f"{region.end_line - 1}) overlaps {other.name!r} (lines "
                                 f"{other.base_line}..{other.end_line - 1})")
        self._regions[name] = region
        self._data[name] = raw
        return base_line

    def overwrite(self, name: str, words) -> None:
        """Replace the first words of region ``name`` by ``words`` (uint32; they must fit)."""
        words = np.ascontiguousarray(words, dtype="<u4").view(np.uint8)
        raw = self._data[name]
        if words.size > raw.size:
            raise ValueError(f"{words.size // 4} words do not fit region {name!r} "
                             f"({raw.size // 4} words)")
        raw[:words.size] = words

    def region(self, name: str) -> tuple[int, int]:
        """``(base_line, num_words)`` of region ``name``."""
        region = self._regions[name]
        return region.base_line, region.num_words

    @property
    def regions(self) -> dict[str, Region]:
        return dict(self._regions)

    @property
    def total_lines(self) -> int:
        """Lines up to the end of the last region."""
        return max((region.end_line for region in self._regions.values()), default=0)

    # Writing --------------------------------------------------------------------------------

    def to_lines(self, num_lines: int | None = None) -> np.ndarray:
        """The image as a ``(num_lines, 16)`` uint32 array (zeros between regions)."""
        num_lines = self.total_lines if num_lines is None else num_lines
        image = np.zeros(num_lines * LINE_BYTES, dtype=np.uint8)
        for name, region in self._regions.items():
            start = region.base_byte
            if start + region.num_bytes > image.size:
                raise ValueError(f"region {name!r} does not fit in {num_lines} lines")
            image[start:start + region.num_bytes] = self._data[name]
        return image.view("<u4").reshape(num_lines, WORDS_PER_LINE)

    def write_hex(self, path, *, num_lines: int | None = None) -> Path:
        """Write the ``$readmemh`` file of the image (``total_lines`` lines unless given)."""
        path = Path(path)
        path.write_bytes(lines_to_hex(self.to_lines(num_lines)))
        return path

    def write_bin(self, path, *, num_lines: int | None = None) -> Path:
        """Write the binary image for ``+dram_init_bin=`` (``total_lines`` lines unless
        given)."""
        path = Path(path)
        self.to_lines(num_lines).astype("<u4", copy=False).tofile(path)
        return path

    def write(self, path, *, num_lines: int | None = None) -> Path:
        """Binary if ``path`` ends in ``.bin``, else hex."""
        return (self.write_bin if Path(path).suffix == ".bin" else self.write_hex)(
            path, num_lines=num_lines)

    # Reading --------------------------------------------------------------------------------

    def read_dump(self, source) -> dict[str, np.ndarray]:
        """Every region, read back from a dump (a path, hex or ``.bin``, or a lines array),
        with its dtype and shape (raw-byte regions as uint8 arrays)."""
        if isinstance(source, np.ndarray):
            return {name: self.region_from_lines(source, name) for name in self._regions}
        lines = read_lines(source)      # ours: the regions may be views of it
        return {name: self.region_from_lines(lines, name, copy=False) for name in self._regions}

    def read_region(self, source, name: str) -> np.ndarray:
        lines = source if isinstance(source, np.ndarray) else read_lines(source)
        return self.region_from_lines(lines, name)

    def region_from_lines(self, lines: np.ndarray, name: str, *, copy: bool = True) \
            -> np.ndarray:
        """Region ``name`` out of ``lines``: a copy, or with ``copy=False`` possibly a view."""
        region = self._regions[name]
        raw = _bytes_of(lines, region.base_byte, region.num_bytes)
        little = region.dtype.newbyteorder("<")
        array = raw.view(little).astype(region.dtype, copy=False).reshape(region.shape)
        return array.copy() if copy else array

    @staticmethod
    def read_hex_lines(path, *, min_lines: int = 0) -> np.ndarray:
        """A ``$readmemh``/``$writememh`` file as a ``(lines, 16)`` uint32 array (at least
        ``min_lines`` lines, zero-padded)."""
        return hex_to_lines(Path(path).read_bytes(), min_lines=min_lines)

    @staticmethod
    def read_bin_lines(path, *, min_lines: int = 0) -> np.ndarray:
        """A binary image (``+dram_dump_bin``) as a ``(lines, 16)`` uint32 array."""
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size % LINE_BYTES:
            raise ValueError(f"{path}: {raw.size} bytes is not a whole number of lines")
        return _pad(raw.view("<u4").astype(np.uint32).reshape(-1, WORDS_PER_LINE), min_lines)

    @classmethod
    def read_hex_words(cls, path, *, base_line: int, count: int) -> np.ndarray:
        """``count`` uint32 words from line ``base_line`` of a dump file (hex, or binary if
        the path ends in ``.bin``)."""
        lines = read_lines(path, min_lines=base_line + -(-count // WORDS_PER_LINE))
        return lines[base_line:].reshape(-1)[:count].copy()

    read_words = read_hex_words


def read_lines(path, *, min_lines: int = 0) -> np.ndarray:
    """A dump or image file as ``(lines, 16)`` uint32: binary if it ends in ``.bin``."""
    if Path(path).suffix == ".bin":
        return DRAMImage.read_bin_lines(path, min_lines=min_lines)
    return DRAMImage.read_hex_lines(path, min_lines=min_lines)


def plusargs(init=None, dump=None, seed: int | None = None) -> list[str]:
    """The model's plusargs for these files (made absolute; ``.bin`` selects the binary
    form): e.g. ``plusargs("run/init.bin", "run/dump.hex", seed=3)``."""
    args = []
    if init is not None:
        kind = "dram_init_bin" if Path(init).suffix == ".bin" else "dram_init"
        args.append(f"+{kind}={Path(init).resolve()}")
    if dump is not None:
        kind = "dram_dump_bin" if Path(dump).suffix == ".bin" else "dram_dump"
        args.append(f"+{kind}={Path(dump).resolve()}")
    if seed is not None:
        args.append(f"+dram_seed={seed}")
    return args


def _pad(lines: np.ndarray, min_lines: int) -> np.ndarray:
    if lines.shape[0] >= min_lines:
        return lines
    return np.concatenate([lines, np.zeros((min_lines - lines.shape[0], WORDS_PER_LINE),
                                           dtype=np.uint32)])


def _bytes_of(lines: np.ndarray, start: int, count: int) -> np.ndarray:
    """Bytes ``start .. start + count`` of the lines: a view where the lines hold them all,
    else a zero-padded copy."""
    flat = np.ascontiguousarray(lines, dtype="<u4").reshape(-1).view(np.uint8)
    if start + count <= flat.size:
        return flat[start:start + count]
    out = np.zeros(count, dtype=np.uint8)
    available = max(0, min(count, flat.size - start))
    out[:available] = flat[start:start + available]
    return out


def lines_to_hex(lines: np.ndarray) -> bytes:
    """``(N, 16)`` uint32 lines → the text of a ``$readmemh`` file."""
    lines = np.ascontiguousarray(lines, dtype="<u4").reshape(-1, WORDS_PER_LINE)
    if not lines.shape[0]:
        return b""
    # As in _parse_regular: all the bytes reversed, then the lines, not each line's bytes.
    reversed_bytes = lines.view(np.uint8).reshape(-1)[::-1].reshape(-1, LINE_BYTES)
    msb_first = np.ascontiguousarray(reversed_bytes[::-1])
    return memoryview(msb_first).cast("B").hex("\n", LINE_BYTES).encode("ascii") + b"\n"


def hex_to_lines(text: bytes, *, min_lines: int = 0) -> np.ndarray:
    """The text of a ``$readmemh``/``$writememh`` file → ``(N, 16)`` uint32 lines."""
    if b"/" in text:
        text = _COMMENT.sub(b"", text)
    lines = _parse_regular(text)
    if lines is None:
        lines = _parse_general(text)
    return _pad(lines, min_lines)


def _parse_regular(text: bytes) -> np.ndarray | None:
    """Fast path: every word is exactly 128 hex digits, one per line. None if not."""
    if b"@" in text or b"_" in text:
        return None
    stride = HEX_DIGITS + 1
    if len(text) % stride == 0 and \
            (np.frombuffer(text, dtype=np.uint8)[HEX_DIGITS::stride] == 10).all():
        count = len(text) // stride                # the form both simulators write
    else:
        text = text.strip()
        if not text:
            return np.zeros((0, WORDS_PER_LINE), dtype=np.uint32)
        count = len(text.split())
    try:
        raw = bytes.fromhex(text.decode("ascii"))   # skips whitespace
    except ValueError:
        return None                                 # x/z digits, ...: general path
    if len(raw) != count * LINE_BYTES:
        return None                                 # some words are not 128 digits long
    # Reversing all the bytes, then the order of the lines, is two fast passes; reversing
    # the bytes within each line is one slow strided pass.
    reversed_lines = np.frombuffer(raw, dtype=np.uint8)[::-1].reshape(count, LINE_BYTES)
    return np.ascontiguousarray(reversed_lines[::-1]).view("<u4").reshape(count, WORDS_PER_LINE)


def _parse_general(text: bytes) -> np.ndarray:
    """Any ``$readmemh`` file: ``@address`` (in lines, hex), ``_``, short numbers, x/z → 0."""
    values: dict[int, int] = {}
    address = 0
    for token in text.split():
        token = token.decode()
        if token.startswith("@"):
            address = int(token[1:], 16)
            continue
        digits = token.replace("_", "").lower()
        digits = re.sub(r"[xz?]", "0", digits)
        values[address] = int(digits, 16)
        address += 1
    count = max(values, default=-1) + 1
    raw = bytearray(count * LINE_BYTES)
    for index, value in values.items():
        raw[index * LINE_BYTES:(index + 1) * LINE_BYTES] = \
            (value & ((1 << (8 * LINE_BYTES)) - 1)).to_bytes(LINE_BYTES, "little")
    return np.frombuffer(bytes(raw), dtype="<u4").reshape(count, WORDS_PER_LINE).astype(np.uint32)
