"""The on-chip scratchpad (Graphicionado §4.A): VTempProperty and, for frontier algorithms,
the EdgeIDTable, as Amaranth memories; and the apply phase's sequential reader of
VTempProperty (A2), which also resets each entry to the Reduce identity for the next
iteration."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["Scratchpad", "TempPropertyStream", "TempItem", "temp_item", "check_word_width",
           "TEMP_READ_LATENCY", "TEMP_WRITE_LATENCY"]

TempItem = data.StructLayout({"index": 32, "temp": 32})


def check_word_width(owner: str, name: str, width) -> None:
    """Refuse a VTempProperty word width that is not a whole number of 32-bit lanes."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 32 or width % 32:
        raise ConfigError(f"{owner}: {name} must be a whole number of 32-bit lanes, "
                          f"not {width!r}")


def temp_item(word_width: int = 32) -> data.StructLayout:
    """What A2 streams: a VTempProperty word and its vertex id (or, with large properties,
    its flit's number over all the vertices' flits); :data:`TempItem` for 32 bits."""
    return TempItem if word_width == 32 else data.StructLayout({"index": 32,
                                                                "temp": word_width})

# Cycles from a VTempProperty read address to its data: the address register (the route from
# it to block RAMs all over the chip takes most of a cycle, so nothing else is on it), the
# block RAM, the register of each bank (the block RAM's own output register on ECP5), and the
# register after the multiplexer of the banks, which sits by the users: the route from block
# RAMs all over the chip to that multiplexer takes most of a cycle by itself.
TEMP_READ_LATENCY = 4
# Cycles from a VTempProperty write being offered to the cycle its block RAM is written: the
# write port is registered (with the bank decoded), so neither the writers' multiplexer nor
# the decode is on the route to block RAMs all over the chip.
TEMP_WRITE_LATENCY = 1


class Scratchpad(wiring.Component):
    """VTempProperty and, for frontier algorithms, the EdgeIDTable.

    VTempProperty is ``vertices`` words in banks of at most ``bank_words``, with one write
    port and one read port that answers :data:`TEMP_READ_LATENCY` cycles after the address.
    A read address offered in cycle r reads the block RAM in cycle r + 1, that of its bank
    only (the others keep their outputs). A write offered in
    cycle w is made in cycle w + :data:`TEMP_WRITE_LATENCY`: reads of the block RAM up to
    that cycle do not see it, and the data of a read of the block RAM in the cycle the write
    is made, to the same vertex, is undefined (the simulation model returns the old value).
    The users never use such data: Atomic Update replaces it by the value being written, the
    apply phase resets an entry a cycle after reading it. So the banks tell synthesis that
    collisions need no care (Yosys's ``no_rw_check``); without it Yosys keeps the old value
    by delaying every write a cycle and putting a bypass multiplexer, fed by that delayed
    write, between each block RAM and its output register.

    A large scratchpad spans block RAMs across the whole chip: each bank's output is
    registered in its block RAM, and the chip-wide multiplexer of the banks is registered
    before anything else is done with the data.

    The EdgeIDTable has ``table_entries`` words with two read ports (entry and entry + 1, one
    cycle) and a write port for loading; ``table_entries = 0`` leaves it out (full edge
    access).

    Parameters
    ----------
    vertices, table_entries : int
        ``vertices``: VTempProperty words (a vertex's flits each take one with large
        properties).
    bank_words : int
        Words per VTempProperty bank; the default is one ECP5 block RAM deep at width 1.
    word_width : int
        Bits of a VTempProperty word: 32, or a flit of a large property (§IV.E).
    """

    def __init__(self, *, vertices: int, table_entries: int, bank_words: int = 16384,
                 word_width: int = 32):
        check_word_width("Scratchpad", "word_width", word_width)
        if vertices < 2 and not (vertices == 0 and table_entries):
            raise ConfigError(f"Scratchpad: vertices must be at least 2, not {vertices!r}")
        if table_entries < 0:
            raise ConfigError("Scratchpad: table_entries must not be negative, not "
                              f"{table_entries!r}")
        if bank_words < 2 or not is_power_of_two(bank_words):
            raise ConfigError("Scratchpad: bank_words must be a power of two from 2, not "
                              f"{bank_words!r}")
        self._vertices = vertices
        self._word_width = word_width
        self._table_entries = table_entries
        self._bank_words = min(bank_words, 1 << (vertices - 1).bit_length())
        index_width = (vertices - 1).bit_length()
        table_width = max(1, (table_entries - 1).bit_length())
        self.index_width = index_width
        self.table_width = table_width
        self.temp_entries = vertices
        super().__init__({
            "temp_read_addr": In(index_width), "temp_read_data": Out(word_width),
            "temp_write_addr": In(index_width), "temp_write_data": In(word_width),
            "temp_write_en": In(1),
            "table_addr": In(table_width), "table_next_addr": In(table_width),
            "table_en": In(1), "table_data": Out(32), "table_next_data": Out(32),
            "table_write_addr": In(table_width), "table_write_data": In(32),
            "table_write_en": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        if self._vertices:
            self._elaborate_temp(m)
        if self._table_entries:
            m.submodules.table = table = memory.Memory(shape=32, depth=self._table_entries,
                                                       init=[])
            table_write = table.write_port()
            entry, next_entry = table.read_port(), table.read_port()
            m.d.comb += [
                table_write.addr.eq(self.table_write_addr),
                table_write.data.eq(self.table_write_data),
                table_write.en.eq(self.table_write_en),
                entry.addr.eq(self.table_addr), next_entry.addr.eq(self.table_next_addr),
                entry.en.eq(self.table_en), next_entry.en.eq(self.table_en),
                self.table_data.eq(entry.data), self.table_next_data.eq(next_entry.data),
            ]
        return m

    def _elaborate_temp(self, m):
        bank_bits = self._bank_words.bit_length() - 1
        bank_count = -(-self._vertices // self._bank_words)
        read_addr = Signal(len(self.temp_read_addr), reset_less=True)
        m.d.sync += read_addr.eq(self.temp_read_addr)
        select = Signal(range(bank_count))
        select_early = Signal(range(bank_count))
        m.d.sync += [select_early.eq(read_addr >> bank_bits), select.eq(select_early)]
        write_addr = Signal(len(self.temp_write_addr), reset_less=True)
        width = self._word_width
        write_data = Signal(width, reset_less=True)
        write_en = Signal(bank_count)
        m.d.sync += [write_addr.eq(self.temp_write_addr), write_data.eq(self.temp_write_data),
                     write_en.eq(Cat(self.temp_write_en &
                                     ((self.temp_write_addr >> bank_bits) == index)
                                     for index in range(bank_count)))]
        # Only the bank the address falls in reads (an SRAM read costs its energy whether
        # used or not); the enable is a flip-flop per bank beside the address register.
        bank_read = Signal(bank_count, init=1, reset_less=True)
        m.d.sync += bank_read.eq(Cat((self.temp_read_addr >> bank_bits) == index
                                     for index in range(bank_count)))
        outputs = []
        for index in range(bank_count):
            depth = min(self._bank_words, self._vertices - index * self._bank_words)
            bank = memory.Memory(shape=width, depth=depth, init=[], attrs={"no_rw_check": 1})
            m.submodules[f"temp{index}"] = bank
            write, read = bank.write_port(), bank.read_port()
            m.d.comb += [
                write.addr.eq(write_addr), write.data.eq(write_data),
                write.en.eq(write_en[index]),
                read.addr.eq(read_addr[:bank_bits]), read.en.eq(bank_read[index]),
            ]
            output = Signal(width, name=f"temp{index}_data", reset_less=True)
            m.d.sync += output.eq(read.data)
            outputs.append(output)
        # A bank's output register has nothing else on its input, so it can be the block
        # RAM's output register.
        data = Signal(width, reset_less=True)
        with m.Switch(select):
            for index, output in enumerate(outputs):
                with m.Case(index):
                    m.d.sync += data.eq(output)
        m.d.comb += self.temp_read_data.eq(data)


class TempPropertyStream(wiring.Component):
    """A2: streams ``count`` entries of VTempProperty from ``first``, ``stride`` apart, and
    writes ``identity`` behind itself.

    Parameters
    ----------
    index_width : int
        Scratchpad address width.
    stride : int
        Entries between two consecutive reads (a power of two): a destination stream's slice
        interleaves the ``stride`` vertex partitions it applies one after another (§V.A).
    id_shift, id_low : int
        An entry at address ``a`` is vertex ``(a << id_shift) | id_low``: the slice of
        destination stream ``id_low`` of ``1 << id_shift`` (0, 0: a whole scratchpad).
    flits : int
        Words per vertex, a power of two: a large property's flits (§IV.E), at consecutive
        addresses. ``first`` and ``count`` count vertices, the stream gives each flit.
    word_width : int
        Bits of a word: 32, or a flit's.

    Members
    -------
    start : ``In(1)``; first : ``In(32)``; count : ``In(32)``
    identity : ``In(32)``
        Written to every lane of each word read.
    id_base : ``In(32)``
        Added to every vertex id: the first vertex of the graph slice the scratchpad holds
        (§VI.A; 0 unsliced).
    busy : ``Out(1)``
    o : ``Out(stream.Signature(temp_item(word_width)))``
        ``index`` is the vertex id, with large properties ``id * flits + flit``.
    read_addr : ``Out``; read_data : ``In(word_width)``
    write_addr, write_data, write_en : ``Out``
    """

    def __init__(self, *, index_width: int, stride: int = 1, id_shift: int = 0,
                 id_low: int = 0, flits: int = 1, word_width: int = 32):
        check_int("TempPropertyStream", "index_width", index_width)
        check_word_width("TempPropertyStream", "word_width", word_width)
        if not is_power_of_two(stride):
            raise ConfigError(f"TempPropertyStream: stride must be a power of two, not {stride!r}")
        if not is_power_of_two(flits):
            raise ConfigError(f"TempPropertyStream: flits must be a power of two, not {flits!r}")
        if not 0 <= id_low < 1 << id_shift:
            raise ConfigError(f"TempPropertyStream: id_low must be below {1 << id_shift}, "
                              f"not {id_low!r}")
        self._index_width = index_width
        self._stride = stride
        self._id_shift = id_shift
        self._id_low = id_low
        self._flit_bits = flits.bit_length() - 1
        self._word_width = word_width
        super().__init__({
            "start": In(1), "first": In(32), "count": In(32), "identity": In(32),
            "id_base": In(32), "busy": Out(1),
            "o": Out(stream.Signature(temp_item(word_width))),
            "read_addr": Out(index_width), "read_data": In(word_width),
            "write_addr": Out(index_width), "write_data": Out(word_width), "write_en": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        layout = temp_item(self._word_width)
        m.submodules.queue = queue = StreamFIFO(layout, 6)
        fb = self._flit_bits
        next_index = Signal(32)
        flit = Signal(max(1, fb))
        left = Signal(32)
        read_valid = Signal()
        read_index = Signal(32)     # the scratchpad address: vertex << fb | flit
        # (valid, index) of each read in flight, delayed to meet the scratchpad's data.
        valid, index = read_valid, read_index
        in_flight = [read_valid]
        for stage in range(TEMP_READ_LATENCY - 1):
            next_valid = Signal(name=f"data{stage}_valid")
            next_index_reg = Signal(32, name=f"data{stage}_index")
            m.d.sync += [next_valid.eq(valid), next_index_reg.eq(index)]
            valid, index = next_valid, next_index_reg
            in_flight.append(valid)
        data_valid, data_index, data = valid, index, self.read_data

        # Issue a read only when the queue has room for it and for those in flight.
        issue = (left != 0) & (queue.level + sum(in_flight) < 6)
        address = (next_index << fb) | flit[:fb] if fb else next_index
        m.d.comb += self.read_addr.eq(address)
        m.d.sync += [read_valid.eq(issue), read_index.eq(address)]
        last_flit = (flit == (1 << fb) - 1) if fb else 1
        with m.If(issue):
            with m.If(last_flit):
                m.d.sync += [next_index.eq(next_index + self._stride), left.eq(left - 1),
                             flit.eq(0)]
            with m.Else():
                m.d.sync += flit.eq(flit + 1)
        vertex = (((data_index >> fb) << self._id_shift) | self._id_low) + self.id_base
        lanes = self._word_width // 32
        m.d.comb += [
            queue.i.valid.eq(data_valid),
            queue.i.payload.index.eq((vertex << fb) | (data_index[:fb] if fb else 0)),
            queue.i.payload.temp.eq(data),
            # The entry just read is reset a cycle later, never at the address being read.
            self.write_en.eq(read_valid),
            self.write_addr.eq(read_index),
            self.write_data.eq(self.identity.replicate(lanes)),
            self.busy.eq(any_busy(left, in_flight, queue.o.valid)),
        ]
        wiring.connect(m, queue.o, wiring.flipped(self.o))
        with m.If(self.start):
            m.d.sync += [next_index.eq(self.first), left.eq(self.count), flit.eq(0)]
        return m
