"""The network between DepGraph's processing elements and the vertex-store banks (Zhang et al.,
HPCA 2021, §III-B: a core's update of a vertex another core owns goes to that core; here the
update goes to the bank of the partition that holds the vertex).

Each source's update is routed by comparing its vertex with the partition bounds, in a
register stage of its own; each bank takes one update per cycle from the sources routed to
it, round robin, through a small queue registered at its output.
"""

from amaranth.hdl import Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.round_robin import RoundRobin
from .layouts import VertexUpdate


__all__ = ["UpdateNetwork"]


class UpdateNetwork(wiring.Component):
    """``sources`` update streams in, one stream per bank out.

    Parameters
    ----------
    sources, banks : int
    queue_depth : int
        Entries of each bank's input queue.

    Members
    -------
    bounds : ``In(32).array(banks - 1)``
        First vertex of banks 1 .. banks - 1 (bank 0 starts at vertex 0), increasing.
    i : ``In(stream.Signature(VertexUpdate)).array(sources)``
    o : ``Out(stream.Signature(VertexUpdate)).array(banks)``
    busy : ``Out(1)``
        An update is inside.
    """

    def __init__(self, *, sources: int, banks: int, queue_depth: int = 4):
        if sources < 1 or banks < 1:
            raise ConfigError("UpdateNetwork: sources and banks must be at least 1, not "
                              f"{sources!r} and {banks!r}")
        if queue_depth < 2:
            raise ConfigError(f"UpdateNetwork: queue_depth must be at least 2, not {queue_depth!r}")
        self._sources = sources
        self._banks = banks
        self._queue_depth = queue_depth
        super().__init__({
            "bounds": In(32).array(max(banks - 1, 1)),
            "i": In(stream.Signature(VertexUpdate)).array(sources),
            "o": Out(stream.Signature(VertexUpdate)).array(banks),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n_src, n_bank = self._sources, self._banks
        routed_layout = data.StructLayout({"update": VertexUpdate, "bank": range(n_bank)})

        heads, levels = [], []
        for index, source in enumerate(self.i):
            stage = StreamFIFO(routed_layout, 2)
            m.submodules[f"route{index}"] = stage
            vertex = source.payload.vertex
            bank = sum((vertex >= self.bounds[b]) for b in range(n_bank - 1)) \
                if n_bank > 1 else 0
            m.d.comb += [
                stage.i.valid.eq(source.valid),
                source.ready.eq(stage.i.ready),
                stage.i.payload.update.eq(source.payload),
                stage.i.payload.bank.eq(bank),
            ]
            heads.append(stage.o)
            levels.append(stage.level)

        readies = [[] for _ in range(n_src)]
        for b, out in enumerate(self.o):
            # Registered at its output: the bank's update scheduler compares the head with
            # its whole window in the cycle it arrives.
            queue = StreamFIFO(VertexUpdate, self._queue_depth, buffered=True)
            m.submodules[f"bank{b}"] = queue
            wiring.connect(m, queue.o, wiring.flipped(out))
            levels.append(queue.level)
            wants = Cat(h.valid & (h.payload.bank == b) for h in heads)
            m.submodules[f"bank{b}_turn"] = turn = RoundRobin(n_src)
            grant = turn.grant
            m.d.comb += [turn.requests.eq(wants),
                         turn.served.eq(grant & queue.i.ready.replicate(n_src))]
            for s, head in enumerate(heads):
                with m.If(grant[s]):
                    m.d.comb += queue.i.payload.eq(head.payload.update)
                readies[s].append(grant[s] & queue.i.ready)
            m.d.comb += queue.i.valid.eq(wants.any())
        for s, head in enumerate(heads):
            m.d.comb += head.ready.eq(Cat(readies[s]).any())
        m.d.comb += self.busy.eq(any_busy(levels))
        return m
