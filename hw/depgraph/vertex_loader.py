"""Moving the vertex data between memory and the vertex-store banks, before and after a run.

DepGraph's cores find the vertex states in their caches (Zhang et al., HPCA 2021, §III-B);
here each engine's partition lives in an on-chip bank, filled from memory before the run
(state, delta and constant arrays and the H'' bitmap that ``DEP_configure`` points at) and
written back to the state array after it.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.utils import exact_log2
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import (LINE_BYTES, WORDS_PER_LINE, MemoryPortSignature,
                                line_request_layout)
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import STOP_BITS_PER_VERTEX, STOP_WORD_FIELDS, VERTICES_PER_STOP_WORD, LoadRecord
from hw.lib.memory.range_reader import RangeReader


__all__ = ["VertexLoader", "VertexWriter", "BankDump", "banked_layout"]


def banked_layout(shape, banks: int) -> data.StructLayout:
    return data.StructLayout({"item": shape, "bank": range(max(banks, 2))})


class _BankCursor:
    """The bank of vertex ``v`` as v counts up from 0: the partitions are contiguous."""

    def __init__(self, m, bounds, banks, name):
        self.bank = Signal(range(max(banks, 2)), name=f"{name}_bank")
        self._m, self._bounds, self._banks = m, bounds, banks

    def step(self, next_vertex):
        """Move on if ``next_vertex`` is the first of the next bank (call when v advances)."""
        for b in range(self._banks - 1):
            with self._m.If((self.bank == b) & (next_vertex == self._bounds[b])):
                self._m.d.sync += self.bank.eq(b + 1)


class _Countdown:
    """Items left of a run of ``n``, with "one left" kept as a register: the handshakes that
    count with it see a flip-flop, not ``n - 1`` worked out and compared every cycle."""

    def __init__(self, m, name):
        self.left = Signal(32, name=f"{name}_left")
        self.final = Signal(name=f"{name}_final")
        self._m = m

    def step(self):
        self._m.d.sync += [self.left.eq(self.left - 1), self.final.eq(self.left == 2)]

    def restart(self, n):
        """Call after ``step`` in the same cycle: a restart wins."""
        self._m.d.sync += [self.left.eq(n), self.final.eq(n == 1)]


class VertexLoader(wiring.Component):
    """Reads every vertex's state, delta, constant, stop, head and leaf bits and hands out its
    record with the bank that owns it, in id order.

    Parameters
    ----------
    addr_width : int
    banks : int
    offsets : bool
        Also read the CSR offsets, for banks that keep each vertex's edge range
        (``offsets_on_chip``): record v gets lo = offsets[v], hi = offsets[v + 1].
    window : int
        Lines each array's reader requests ahead of the hand-out: a record a cycle needs a
        line of each array every 16 cycles, so about the memory's latency / 16 lines.

    Members
    -------
    start : ``In(1)``; done : ``Out(1)``
    num_vertices : ``In(32)``
    state_base, delta_base, const_base, stop_base : ``In(addr_width)``
    bounds : ``In(32).array(banks - 1)``
        First vertex of banks 1 .. banks - 1.
    records : ``Out(stream.Signature(banked_layout(LoadRecord, banks)))``
    state_mem, delta_mem, const_mem, stop_mem : ``Out(MemoryPortSignature(addr_width))``
    offsets_base : ``In(addr_width)``; offsets_mem : ``Out(MemoryPortSignature(addr_width))``
        With ``offsets``.
    """

    def __init__(self, *, addr_width: int, banks: int, offsets: bool = False,
                 window: int = 4):
        check_int("VertexLoader", "addr_width", addr_width, high=32)
        check_int("VertexLoader", "banks", banks)
        check_int("VertexLoader", "window", window, high=64)
        self._window = window
        self._addr_width = addr_width
        self._banks = banks
        # The arrays read, each a base and a port.
        self.arrays = ("state", "delta", "const", "stop") + (("offsets",) if offsets else ())
        members = {
            "start": In(1), "done": Out(1), "num_vertices": In(32),
            "bounds": In(32).array(max(banks - 1, 1)),
            "records": Out(stream.Signature(banked_layout(LoadRecord, banks))),
        }
        for name in self.arrays:
            members[f"{name}_base"] = In(addr_width)
            members[f"{name}_mem"] = Out(MemoryPortSignature(addr_width))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        readers, items = {}, {}
        for name in self.arrays:
            reader = RangeReader(addr_width=self._addr_width, item_words=1,
                                 window=self._window,
                                 buffered_lines=True, flags_cycle=True)
            m.submodules[f"{name}_reader"] = readers[name] = reader
            wiring.connect(m, reader.mem, wiring.flipped(getattr(self, f"{name}_mem")))
            m.d.comb += [reader.cmd.payload.base.eq(getattr(self, f"{name}_base")),
                         reader.cmd.payload.first.eq(0)]
            # A register slice after each reader, of the word alone (the loader counts the
            # vertices itself): the record is taken only when every array's item is there,
            # and that decision would otherwise run back into each reader's count and line
            # queue in the same cycle.
            m.submodules[f"{name}_slice"] = item_slice = StreamRegisterSlice(32)
            m.d.comb += [item_slice.i.valid.eq(reader.items.valid),
                         item_slice.i.payload.eq(reader.items.payload.data),
                         reader.items.ready.eq(item_slice.i.ready)]
            items[name] = item_slice.o

        running = Signal()
        finished = Signal()             # the last record is in the slice or gone
        vertex = Signal(32)
        cursor = _BankCursor(m, self.bounds, self._banks, "load")
        to_load = _Countdown(m, "load")
        n = self.num_vertices
        in_stop_word = exact_log2(VERTICES_PER_STOP_WORD)  # low id bits: place in a word
        # The commands are taken in the cycle after start, while the readers are idle.
        issue = Signal()
        m.d.sync += issue.eq(self.start & (n != 0))
        for name, reader in readers.items():
            count = {"stop": (n + VERTICES_PER_STOP_WORD - 1) >> in_stop_word,
                     "offsets": n + 1}.get(name, n)
            m.d.comb += [reader.cmd.valid.eq(issue), reader.cmd.payload.count.eq(count)]

        # The records leave through a register slice: the banks' ready, from across the
        # chip, reaches only its flip-flops, and the decision to take a record (every
        # array's item there, the slice not full) stays among the loader's own registers.
        m.submodules.record_slice = record_slice = \
            StreamRegisterSlice(self.records.payload.shape())
        wiring.connect(m, record_slice.o, wiring.flipped(self.records))
        records = record_slice.i
        m.d.comb += self.done.eq(finished & ~self.records.valid)

        words = [items[name] for name in ("state", "delta", "const", "stop")]
        first_stop_bit = vertex[:in_stop_word] << exact_log2(STOP_BITS_PER_VERTEX)
        all_valid = running & words[0].valid & words[1].valid & words[2].valid & words[3].valid
        out = records.payload.item
        if "offsets" in readers:
            all_valid &= self._elaborate_offsets(m, items["offsets"], out, records)
        m.d.comb += [
            records.valid.eq(all_valid),
            out.vertex.eq(vertex),
            out.state.eq(words[0].payload),
            out.delta.eq(words[1].payload),
            out.const.eq(words[2].payload),
            *[getattr(out, field).eq(words[3].payload.bit_select(
                first_stop_bit | STOP_WORD_FIELDS.index(field), 1))
              for field in ("stop", "head", "leaf")],
            records.payload.bank.eq(cursor.bank),
        ]
        taken = records.valid & records.ready
        last = to_load.final
        m.d.comb += [words[k].ready.eq(taken) for k in range(3)]
        m.d.comb += words[3].ready.eq(
            taken & ((vertex[:in_stop_word] == VERTICES_PER_STOP_WORD - 1) | last))
        with m.If(taken):
            m.d.sync += vertex.eq(vertex + 1)
            cursor.step(vertex + 1)
            to_load.step()
            with m.If(last):
                m.d.sync += [running.eq(0), finished.eq(1)]
        with m.If(self.start):
            m.d.sync += [running.eq(n != 0), finished.eq(n == 0), vertex.eq(0),
                         cursor.bank.eq(0)]
            to_load.restart(n)
        return m

    def _elaborate_offsets(self, m, items, out, records):
        """Record v's edge range: offsets[v] is held from the item before (the first item
        only primes it), offsets[v + 1] is the item at the head. Returns whether both are
        there."""
        lo = Signal(32)
        have_lo = Signal()
        m.d.comb += [out.lo.eq(lo), out.hi.eq(items.payload)]
        with m.If(~have_lo):
            m.d.comb += items.ready.eq(1)
            with m.If(items.valid):
                m.d.sync += [lo.eq(items.payload), have_lo.eq(1)]
        with m.Elif(records.valid & records.ready):
            m.d.comb += items.ready.eq(1)
            m.d.sync += lo.eq(items.payload)
        with m.If(self.start):
            m.d.sync += have_lo.eq(0)
        return have_lo & items.valid


class BankDump(wiring.Component):
    """Asks one bank for the states of its partition, in id order, and packs them into the
    state array's lines, each handed out under a byte mask when full or at the partition's
    last vertex (a line shared with the next partition is written by both, each its bytes).

    Members
    -------
    start : ``In(1)``; done : ``Out(1)``
        ``done``: every line has been handed out.
    first, last : ``In(32)``
        The partition, vertices ``first .. last - 1`` (may be empty).
    state_base : ``In(addr_width)``
    request : ``Out(stream.Signature(32))``; state : ``In(stream.Signature(32))``
        Vertex ids to the bank's ``dump`` port, and its answers, in order.
    line : ``Out(stream.Signature(line_request_layout(addr_width)))``
        Line writes.
    """

    def __init__(self, *, addr_width: int):
        check_int("BankDump", "addr_width", addr_width, high=32)
        super().__init__({
            "start": In(1), "done": Out(1), "first": In(32), "last": In(32),
            "state_base": In(addr_width),
            "request": Out(stream.Signature(32)), "state": In(stream.Signature(32)),
            "line": Out(stream.Signature(line_request_layout(addr_width))),
        })

    def elaborate(self, platform):
        m = Module()
        count = self.last - self.first
        asking = Signal()
        asked = Signal(32)
        to_ask = _Countdown(m, "ask")
        # Register slices on the way to the bank and back: the banks sit across the chip,
        # and their ready and valid reach only the slices' flip-flops.
        m.submodules.request_slice = request_slice = StreamRegisterSlice(32)
        wiring.connect(m, request_slice.o, wiring.flipped(self.request))
        requests = request_slice.i
        m.d.comb += [requests.valid.eq(asking), requests.payload.eq(asked)]
        with m.If(requests.valid & requests.ready):
            m.d.sync += asked.eq(asked + 1)
            to_ask.step()
            with m.If(to_ask.final):
                m.d.sync += asking.eq(0)

        written = Signal(32)            # the next vertex to pack
        to_write = _Countdown(m, "write")
        all_written = Signal()
        line = Signal(data.ArrayLayout(32, WORDS_PER_LINE))
        mask = Signal(LINE_BYTES)
        line_address = Signal.like(self.state_base)
        flush = Signal()
        m.submodules.state_slice = state_slice = StreamRegisterSlice(32)
        wiring.connect(m, wiring.flipped(self.state), state_slice.i)
        states = state_slice.o
        m.d.comb += states.ready.eq(~flush)
        slot = written[:4]
        with m.If(states.valid & states.ready):
            m.d.sync += [line[slot].eq(states.payload),
                         mask.eq(mask | (0xF << (slot * 4))),
                         line_address.eq(self.state_base + (written >> 4)),
                         written.eq(written + 1)]
            to_write.step()
            with m.If((slot == WORDS_PER_LINE - 1) | to_write.final):
                m.d.sync += flush.eq(1)
            with m.If(to_write.final):
                m.d.sync += all_written.eq(1)
        m.d.comb += [
            self.line.valid.eq(flush),
            self.line.payload.addr.eq(line_address),
            self.line.payload.write.eq(1),
            self.line.payload.wdata.eq(line),
            self.line.payload.wmask.eq(mask),
        ]
        with m.If(self.line.valid & self.line.ready):
            m.d.sync += [flush.eq(0), mask.eq(0)]
            with m.If(all_written):
                m.d.sync += self.done.eq(1)

        with m.If(self.start):
            m.d.sync += [asking.eq(count != 0), asked.eq(self.first), written.eq(self.first),
                         mask.eq(0), self.done.eq(count == 0), all_written.eq(0)]
            to_ask.restart(count)
            to_write.restart(count)
        return m


class VertexWriter(wiring.Component):
    """Writes every vertex's state back to the state array: a :class:`BankDump` a bank, all
    at once, their lines merged round robin into one memory port (a bank answers a state a
    cycle, and a line holds sixteen, so several banks share the port's line a cycle).

    Parameters
    ----------
    addr_width : int
    banks : int

    Members
    -------
    start : ``In(1)``; done : ``Out(1)``
        ``done``: every line has been handed to the memory port.
    first, last : ``In(32).array(banks)``
        Bank b's partition, vertices ``first[b] .. last[b] - 1``.
    state_base : ``In(addr_width)``
    requests : ``Out(stream.Signature(32)).array(banks)``
        Vertex ids for the banks' ``dump`` ports.
    states : ``In(stream.Signature(32)).array(banks)``
        Their answers.
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, banks: int):
        check_int("VertexWriter", "addr_width", addr_width, high=32)
        check_int("VertexWriter", "banks", banks)
        self._addr_width = addr_width
        self._banks = banks
        super().__init__({
            "start": In(1), "done": Out(1),
            "first": In(32).array(banks), "last": In(32).array(banks),
            "state_base": In(addr_width),
            "requests": Out(stream.Signature(32)).array(banks),
            "states": In(stream.Signature(32)).array(banks),
            "mem": Out(MemoryPortSignature(self._addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.merge = merge = StreamArbiter(
            line_request_layout(self._addr_width), self._banks, registered_grant=True)
        dumps = []
        for b in range(self._banks):
            m.submodules[f"dump{b}"] = dump = BankDump(addr_width=self._addr_width)
            dumps.append(dump)
            m.d.comb += [dump.start.eq(self.start), dump.first.eq(self.first[b]),
                         dump.last.eq(self.last[b]), dump.state_base.eq(self.state_base)]
            wiring.connect(m, dump.request, wiring.flipped(self.requests[b]))
            wiring.connect(m, wiring.flipped(self.states[b]), dump.state)
            wiring.connect(m, dump.line, merge.i[b])
        wiring.connect(m, merge.o, wiring.flipped(self.mem.req))
        done = Signal()
        m.d.comb += self.done.eq(done)
        m.d.sync += done.eq(Cat(d.done for d in dumps).all() & ~self.start)
        return m
