"""The crossbar switch between Graphicionado's parallel streams (Ham et al., MICRO 2016, §V.A):
the source-oriented halves of the pipeline (P1–P3) hand each edge to the destination-oriented
half (P4–P9) that owns its destination vertex, through virtual output queues, so an output
that is busy never blocks edges bound for another."""

from amaranth.hdl import Cat, Const, Module, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["VirtualOutputQueues", "Crossbar"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _at_least_two(bits):
    """Whether two or more of ``bits`` are set."""
    seen, two = Const(0), Const(0)
    for bit in bits:
        seen, two = seen | bit, two | (seen & bit)
    return two


class VirtualOutputQueues(wiring.Component):
    """One input's queues, one per output: a word goes into the queue of the output ``route``
    names, and the input waits only while that queue is full.

    Parameters
    ----------
    payload_shape : shape-like
    outputs : int
    route : callable
        Payload to a value whose low ``ceil(log2(outputs))`` bits name the output.
    depth : int
        Entries of each queue.

    Members
    -------
    i : ``In(stream.Signature(payload_shape))``
    o : ``Out(stream.Signature(payload_shape)).array(outputs)``
        Queue ``j``, in arrival order.
    occupancy : ``Out(range(outputs * depth + 1))``
        Words in all queues.
    """

    def __init__(self, payload_shape, *, outputs: int, route, depth: int):
        check_int("VirtualOutputQueues", "outputs", outputs, high=16, power_of_two=True)
        check_int("VirtualOutputQueues", "depth", depth)
        if not callable(route):
            raise ConfigError(f"VirtualOutputQueues: route must be a callable from payload to "
                              f"output number, not {route!r}")
        self._shape = payload_shape
        self._outputs = outputs
        self._route = route
        self._depth = depth
        super().__init__({
            "i": In(stream.Signature(payload_shape)),
            "o": Out(stream.Signature(payload_shape)).array(outputs),
            "occupancy": Out(range(outputs * depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        target = Signal(range(self._outputs))
        # Assignment keeps the low bits of whatever width the route gives.
        m.d.comb += target.eq(Value.cast(self._route(self.i.payload)))
        queues = [StreamFIFO(self._shape, self._depth) for _ in range(self._outputs)]
        for j, queue in enumerate(queues):
            m.submodules[f"queue{j}"] = queue
            wiring.connect(m, queue.o, wiring.flipped(self.o[j]))
            m.d.comb += [queue.i.payload.eq(self.i.payload),
                         queue.i.valid.eq(self.i.valid & (target == j))]
        m.d.comb += [
            self.i.ready.eq(Cat(queue.i.ready for queue in queues).bit_select(target, 1)),
            self.occupancy.eq(sum(queue.level for queue in queues)),
        ]
        return m


class Crossbar(wiring.Component):
    """``inputs`` streams to ``outputs`` streams, each word to the output its ``route`` names
    (Graphicionado §V.A, with virtual output queues). Input ``k`` has a queue per output and
    waits only while the queue for its word's output is full; each output takes one word a
    cycle from its queues, round robin over the inputs (:class:`StreamArbiter`, which keeps an
    offer until it is taken). Words of one input to one output leave in arrival order. No
    register stage: an output offers the head of a queue.

    Parameters
    ----------
    payload_shape : shape-like
    inputs : int
        1 to 128 (a Graphicionado source stream has one per parallel edge reader with full
        edge access).
    outputs : int
        A power of two, 1 to 16.
    route : callable
        Payload (a :class:`data.View` or :class:`Value` of ``payload_shape``) to a value whose
        low ``ceil(log2(outputs))`` bits name the output (the low bits of an edge's dst).
    voq_depth : int
        Entries of each of the ``inputs * outputs`` queues, at least 2.
    packet_last : callable or None
        Payload to a bit: the word ends its packet. With it, the words are flits of packets
        (a large property's, §IV.E) and the outputs switch wormhole-style: an output that
        takes a packet's first flit from an input takes only that input's flits until the
        packet's last (:class:`StreamArbiter` with ``last``). A packet's flits share a route.

    Members
    -------
    i : ``In(stream.Signature(payload_shape)).array(inputs)``
    o : ``Out(stream.Signature(payload_shape)).array(outputs)``
    busy : ``Out(1)``
        A word is held in a queue.
    stalls : ``Out(inputs)``
        Bit ``k``: input ``k`` offers a word that is not taken this cycle.
    contention : ``Out(outputs)``
        Bit ``j``: more than one input's queue holds a word for output ``j``.
    occupancy : ``Out(range(inputs * outputs * voq_depth + 1))``
        Words in all queues, one cycle late (registered).
    """

    def __init__(self, payload_shape, *, inputs: int, outputs: int, route,
                 voq_depth: int = 4, packet_last=None):
        if not _is_int(inputs) or not 1 <= inputs <= 128:
            raise ConfigError(f"Crossbar: inputs must be a whole number from 1 to 128, "
                              f"not {inputs!r}")
        if not _is_int(outputs) or not is_power_of_two(outputs) or outputs > 16:
            raise ConfigError(f"Crossbar: outputs must be a power of two from 1 to 16, "
                              f"not {outputs!r}")
        if not _is_int(voq_depth) or voq_depth < 2:
            raise ConfigError(f"Crossbar: voq_depth must be an integer of at least 2, "
                              f"not {voq_depth!r}")
        if not callable(route):
            raise ConfigError(f"Crossbar: route must be a callable from payload to output "
                              f"number, not {route!r}")
        self._shape = payload_shape
        self._inputs = inputs
        self._outputs = outputs
        self._route = route
        self._voq_depth = voq_depth
        self._packet_last = packet_last
        super().__init__({
            "i": In(stream.Signature(payload_shape)).array(inputs),
            "o": Out(stream.Signature(payload_shape)).array(outputs),
            "busy": Out(1),
            "stalls": Out(inputs),
            "contention": Out(outputs),
            "occupancy": Out(range(inputs * outputs * voq_depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        voqs = []
        for k in range(self._inputs):
            m.submodules[f"voq{k}"] = voq = VirtualOutputQueues(
                self._shape, outputs=self._outputs, route=self._route, depth=self._voq_depth)
            wiring.connect(m, wiring.flipped(self.i[k]), voq.i)
            voqs.append(voq)
        for j in range(self._outputs):
            m.submodules[f"arbiter{j}"] = arbiter = StreamArbiter(self._shape, self._inputs,
                                                                  last=self._packet_last)
            for k, voq in enumerate(voqs):
                wiring.connect(m, voq.o[j], arbiter.i[k])
            wiring.connect(m, arbiter.o, wiring.flipped(self.o[j]))
            m.d.comb += self.contention[j].eq(_at_least_two(voq.o[j].valid for voq in voqs))
        m.d.comb += [
            self.busy.eq(Cat(queue.valid for voq in voqs for queue in voq.o).any()),
            self.stalls.eq(Cat(port.valid & ~port.ready for port in self.i)),
        ]
        # Registered: a sum of inputs * outputs levels is a deep adder.
        m.d.sync += self.occupancy.eq(sum(voq.occupancy for voq in voqs))
        return m
