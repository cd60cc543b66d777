"""Parameters of the Graphicionado pipeline."""

import dataclasses

from graphgen.programs import Float32
from hw.lib.config import ConfigError, DesignConfig, is_power_of_two
from .algorithms import algorithm_of


__all__ = ["GraphicionadoConfig"]


@dataclasses.dataclass(frozen=True)
class GraphicionadoConfig(DesignConfig):
    """Parameters of :class:`hw.graphicionado.top.GraphicionadoPipeline`.

    Parameters
    ----------
    algo : str
        The vertex program the custom compute modules are built from: a built-in's name
        (``graphgen.programs.PROGRAMS``: bfs, sssp, cc, pagerank, cf) or
        ``path/to/file.py:ClassName`` (:func:`graphgen.programs.load_program`, e.g.
        ``examples/programs/widest.py:WidestPath``); see
        :mod:`hw.graphicionado.algorithms` for what the pipeline builds.
    property_bytes : int
        Bytes of a vertex property: 4 (one word) for bfs, sssp, cc and pagerank; for cf 4K
        (K features), a power of two from 4 to 128, or 0 for the paper's 128 (K = 32).
        Properties wider than the 32-byte datapath travel as packets of 32-byte flits
        (§IV.E); the scratchpad holds a flit per word.
    streams_src, streams_dst : int
        Source-oriented (P1–P3) and destination-oriented (P4–P9, apply) streams, n and m of
        §V.A, powers of two from 1 to 16, joined by a crossbar. Source stream s owns the
        vertices whose low log2(n) bits are s, destination stream d those whose low log2(m)
        bits are d.
    voq_depth : int
        Edges each virtual output queue of the crossbar holds (with large properties, that
        many packets: ``voq_depth * flits`` flits, :attr:`voq_entries`).
    edge_readers : int
        Edge Read units per source stream (§V.B, 1 to 8). Frontier algorithms: each active
        vertex goes to the reader with the fewest queued jobs, their edges are merged round
        robin. Full edge access: every source vertex is broadcast to all readers, reader k
        reads the edges whose destination id is k modulo the readers, and each reader feeds
        the crossbar directly (n × edge_readers crossbar inputs).
    dst_prop_readers : int
        Random Vertex Reads of the destination property (P4) per destination stream, 1 to 8
        (§V.C: each edge to the one holding the fewest; with ``dst_property_read``).
    max_vertices : int
        Scratchpad size in vertices, over all destination streams (VTempProperty: each
        destination stream holds ``ceil(max_vertices / m)``; the EdgeIDTable is sized by
        ``table_vertices``). A graph with more vertices runs in slices of at most this many
        destinations (``max_slices``).
    table_vertices : int
        Source vertices the EdgeIDTable covers, the graph's limit for frontier algorithms
        (0: ``max_vertices``): each source stream's table has ``ceil(table_vertices / n /
        coarsening) + 1`` entries. A sliced graph has more vertices than the scratchpad, and
        every slice's table indexes all of them: coarsening keeps the table small (§VI.C).
    max_slices : int
        Graph slicing (§VI.A): the most slices a run may use, 1 to 64. Each iteration runs
        the processing and apply phases once per slice, slice s holding the destinations
        ``s * S .. (s + 1) * S - 1`` (S, the ``slice_vertices`` register, a multiple of
        16 × max(n, m)). Full edge access keeps each slice's edge ranges in registers
        (``max_slices`` sets of them); frontier algorithms reload the EdgeIDTable per slice.
    addr_width : int
        Width of a 64-byte line address (26 bits: 4 GiB).
    prefetch_lines : int
        Lines the Sequential Vertex Reads fetch ahead; K times that for VProperty of K words
        (:attr:`property_prefetch_lines`). 8 (128 one-word vertices) covers a 100-cycle
        latency; the paper's N = 4 holds the apply phase's VProperty read (A1) to about a
        vertex in two cycles there.
    edge_prefetch_lines : int
        Lines Edge Read fetches ahead. At four edges a line it must cover the memory latency
        (100 cycles → 25 lines) for one edge per cycle.
    edge_jobs : int
        Source vertices Edge Read's request side may run ahead of its hand-out side: the
        random first line of each is requested that far in advance.
    fifo_depth : int
        Depth of the FIFOs between stages (the paper: 4–8).
    cam_entries, cam_ways : int
        The atomic-update CAM (the paper: 16 entries, 4 ways).
    atomic_window : int
        Updates Atomic Update's P6 chooses from: 1, the paper's in-order stage; 2, an update
        is issued past one that waits on the CAM for another vertex (each vertex's updates
        keep their order, so its Reduce order too).
    coarsening : int
        Vertices per EdgeIDTable entry (§6.C); 1 = a full table.
    edge_format : str
        How an edge is stored in memory. ``coo``, the paper's: four words (srcid, dstid,
        weight, reserved), 16 bytes, four edges a line; Edge Read finds a source's edges by
        their srcid. ``csr`` (the default, a quarter or half of the paper's memory traffic
        for edges): the destination id alone (4 bytes, 16 edges a line), or with
        the weight (8 bytes, 8 a line) when the program reads one; the source is the one the
        EdgeIDTable entry (frontier programs) or the edge counts in VConst (full edge access)
        say the edge belongs to. With a coarsened EdgeIDTable (frontier programs,
        ``coarsening`` N > 1) an entry spans N sources, so the top log2(N) bits of the dstid
        word hold the source's place in its group (:attr:`edge_tag_bits`), which Edge Read
        compares as the paper's layout compares the srcid.
    memory_outstanding : int
        Reads in flight at most per memory channel (its arbiter); with several channels also
        per memory client (the lines of its reorder buffer).
    memory_channels : int
        Memory ports (channels, a power of two, 1..16), lines interleaved across them by the
        low bits of their address (:class:`hw.lib.memory.interconnect.MemoryInterconnect`); the
        simulated memory must have as many channels (``--mem channels=N``).
    symmetric : bool
        The symmetric-graph optimisation (§IV.D), for cf and the scalar full-edge programs
        (pagerank): the graph is undirected and stored with each edge once, from the larger
        id to the smaller, and Process_Edge turns one read of edge (u, v) into the update
        packet of v and that of u (err · p[u] and err · p[v]; p[u]/deg(u) and p[v]/deg(v);
        a self-loop updates once). A scalar program's update of u reads v's VProperty and
        VConst, which v's destination stream keeps on chip (:attr:`scratchpad_properties`).
        With several destination streams the update
        of u goes to u's stream through a second crossbar, the update network. With
        ``max_slices`` > 1, extended graph slicing (§VI.B): N partitions of consecutive ids
        and their N(N+1)/2 slices (N(N+1)/2 <= max_slices), each destination stream's
        scratchpad split in two regions, a partition in each, the second written back and
        loaded between slices.
    update_paths : int
        With ``symmetric``: 2, the paper's duplicated P5–P9, Process_Edge's lane-wise part,
        Atomic Update and the scratchpad each twice, so that an edge's two update packets are
        made and reduced in the same cycles, each path owning half of the stream's
        scratchpad (its even or odd entries); 1, both packets through one path, one after
        the other. Without ``symmetric`` there is one path.
    spill_overlap : bool
        With extended slicing (§VI.B): region B's write-back after a slice and the next
        slice's load into it run together, each word loaded once the write-back has read it
        (:class:`ScratchpadSpill`), and the first column's clear is left to the write-back's
        identity; off, one after the other.
    process_overlap : bool
        With extended slicing: a slice's processing starts with its region's load or clear,
        not after it; its sources' vertices and edges are read, and wait at P3 until the
        region is ready (two memory latencies of the pipeline's ramp hide behind the load);
        off, processing starts once the region is ready.
    spill_prefetch_lines : int
        With extended slicing: lines region B's load reads ahead. 128 keeps a line a cycle
        coming over a 100-cycle latency (the lines are buffered on chip as they arrive).
    dst_property_read : bool
        Insert the optional stage P4 (figure 5): read each edge's destination property,
        VProperty[dst], from memory, one line per edge, for Process_Edge. Frontier programs
        only, required by those whose Process_Edge reads ``dst_prop``. Up to ``memory_outstanding`` edges wait
        in it for their lines.
    stall_injection : int
        Verification only: block the links between stages in about this percentage of
        cycles (random), so every FIFO sees backpressure and idle cycles. 0 = off.
    watchdog : int
        Simulation only (a run-time input of the simulation top, not in the design's Verilog):
        stop a run whose stream links have not moved for this many cycles and report every
        link's state. 0 = off.

    Presets (``preset=NAME``, :attr:`PRESETS`): ``ecp5``, the ECP5-85k's configuration: 2 × 2
    streams, ``max_vertices`` 32768 (the rest the defaults), for the one-word algorithms
    (bfs, sssp, cc, pagerank; cf's 128-byte properties make even its 1 × 1 pipeline half
    the chip's logic). Its place and route is measured with pagerank.
    """

    RUN_SETTINGS = ("stall_injection", "watchdog")
    # The ECP5-85k (issue 51): the default's 64K-vertex scratchpad and EdgeIDTable take 392
    # of its 208 DP16KD; 2 x 2 streams with 32K vertices leave room for any one-word
    # algorithm (the scratchpads 64 DP16KD, BFS's EdgeIDTables about as many again).
    PRESETS = {"ecp5": {"streams_src": "2", "streams_dst": "2", "max_vertices": "32768"}}

    algo: str = "bfs"
    property_bytes: int = 0
    streams_src: int = 1
    streams_dst: int = 1
    voq_depth: int = 4
    edge_readers: int = 1
    dst_prop_readers: int = 1
    max_vertices: int = 65536
    table_vertices: int = 0
    max_slices: int = 1
    addr_width: int = 26
    prefetch_lines: int = 8
    edge_prefetch_lines: int = 32
    edge_jobs: int = 16
    fifo_depth: int = 4
    cam_entries: int = 16
    cam_ways: int = 4
    atomic_window: int = 2
    coarsening: int = 1
    edge_format: str = "csr"
    memory_outstanding: int = 128
    memory_channels: int = 1
    symmetric: bool = False
    update_paths: int = 2
    spill_overlap: bool = True
    process_overlap: bool = True
    spill_prefetch_lines: int = 128
    dst_property_read: bool = False
    stall_injection: int = 0
    watchdog: int = 100_000

    def validate(self):
        algorithm_of(self.algo)
        if self.algorithm.large_property:
            if self.property_bytes and (not is_power_of_two(self.property_bytes) or
                                        not 4 <= self.property_bytes <= 128):
                raise ConfigError(f"property_bytes must be a power of two from 4 to 128 "
                                  f"(or 0: 128), not {self.property_bytes}")
        elif self.property_bytes not in (0, 4):
            raise ConfigError(f"property_bytes: {self.algo} has one-word properties (4 bytes),"
                              f" not {self.property_bytes}")
        if not 2 <= self.max_vertices <= 1 << 24:
            raise ConfigError(f"max_vertices must be between 2 and 16777216, "
                              f"not {self.max_vertices}")
        for name in ("streams_src", "streams_dst"):
            value = getattr(self, name)
            if not is_power_of_two(value) or value > 16:
                raise ConfigError(f"{name} must be a power of two from 1 to 16, not {value}")
        for name in ("edge_readers", "dst_prop_readers"):
            if not 1 <= getattr(self, name) <= 8:
                raise ConfigError(f"{name} must be between 1 and 8, not {getattr(self, name)}")
        if self.dst_prop_readers > 1 and not self.dst_property_read:
            raise ConfigError("dst_prop_readers needs dst_property_read (stage P4)")
        if self.table_vertices and not 2 <= self.table_vertices <= 1 << 28:
            raise ConfigError(f"table_vertices must be 0 (max_vertices) or between 2 and "
                              f"268435456, not {self.table_vertices}")
        if not 1 <= self.max_slices <= 255:
            raise ConfigError(f"max_slices must be between 1 and 255, not {self.max_slices}")
        if self.atomic_window not in (1, 2):
            raise ConfigError(f"atomic_window must be 1 or 2, not {self.atomic_window}")
        if not 2 <= self.voq_depth <= 64:
            raise ConfigError(f"voq_depth must be between 2 and 64, not {self.voq_depth}")
        if self.destination_slice_vertices < 2:
            raise ConfigError(f"max_vertices {self.max_vertices} over {self.streams_dst} "
                              f"destination streams leaves scratchpad slices of fewer than 2 "
                              f"vertices")
        if not 16 <= self.addr_width <= 32:
            raise ConfigError(f"addr_width must be between 16 and 32, not {self.addr_width}")
        for name in ("prefetch_lines", "edge_prefetch_lines", "spill_prefetch_lines",
                     "edge_jobs", "fifo_depth"):
            if not 1 <= getattr(self, name) <= 256:
                raise ConfigError(f"{name} must be between 1 and 256, not {getattr(self, name)}")
        if not is_power_of_two(self.coarsening) or self.coarsening > self.edge_table_vertices:
            raise ConfigError(f"coarsening must be a power of two not above table_vertices "
                              f"(max_vertices unless set), "
                              f"not {self.coarsening}")
        if self.edge_format not in ("coo", "csr"):
            raise ConfigError(f"edge_format must be coo or csr, not {self.edge_format!r}")
        if self.edge_tag_bits and self.edge_table_vertices > 1 << (32 - self.edge_tag_bits):
            raise ConfigError(f"edge_format csr with coarsening {self.coarsening} keeps "
                              f"{self.edge_tag_bits} bits of each dstid word for the source's "
                              f"place in its EdgeIDTable group: table_vertices "
                              f"{self.edge_table_vertices} do not fit the other "
                              f"{32 - self.edge_tag_bits}")
        if not 2 <= self.memory_outstanding <= 1024:
            raise ConfigError(f"memory_outstanding must be between 2 and 1024, "
                              f"not {self.memory_outstanding}")
        if not (is_power_of_two(self.memory_channels) and 1 <= self.memory_channels <= 16):
            raise ConfigError(f"memory_channels must be a power of two from 1 to 16, "
                              f"not {self.memory_channels}")
        if self.program.uses_dst_prop and not self.algorithm.large_property and \
                not self.dst_property_read:
            raise ConfigError(f"{self.algo}'s Process_Edge reads dst_prop: set "
                              f"dst_property_read (stage P4)")
        if self.dst_property_read and self.algorithm.full_edge_access:
            raise ConfigError(f"dst_property_read: the full-edge-access pipeline ({self.algo}) "
                              f"drops P4, the destination-property read (Graphicionado §4.B)")
        if self.symmetric and not self.algorithm.large_property:
            self._check_symmetric_scalar()
        if self.update_paths not in (1, 2) or isinstance(self.update_paths, bool):
            raise ConfigError(f"update_paths must be 1 or 2, not {self.update_paths!r}")
        if self.update_network and self.paths == 2 and self.streams_dst > 8:
            raise ConfigError(f"update_paths 2 over {self.streams_dst} destination streams: "
                              f"the update network has a port per path and stream, 16 at "
                              f"most (8 streams); set update_paths=1")
        if self.symmetric and self.algorithm.large_property:
            from .flit_process_edge import process_edge_flits
            process_edge_flits(self.program, 1, symmetric=True, owner="symmetric: ")
        if self.extended_slicing and self.destination_slice_vertices < 32:
            raise ConfigError(f"symmetric with max_slices > 1 (extended slicing, §VI.B) "
                              f"splits each destination stream's scratchpad in two regions "
                              f"of 16 or more vertices: max_vertices {self.max_vertices} is "
                              f"too small for {self.streams_dst} streams")
        if not 0 <= self.watchdog <= 0xFFFF_FFFF:
            raise ConfigError(f"watchdog must be a cycle count from 0 (off) to 4294967295, "
                              f"not {self.watchdog}")
        if not 0 <= self.stall_injection <= 90:
            raise ConfigError(f"stall_injection must be a percentage from 0 to 90, "
                              f"not {self.stall_injection}")
        from hw.lib.cam import CAMConfig
        CAMConfig(entries=self.cam_entries, ways=self.cam_ways, id_width=self.index_width + 1)
        from hw.graphicionado.registers import registers
        if len(registers(self)) > 256:
            raise ConfigError(f"{len(registers(self))} registers, more than the register "
                              f"file's 256: full edge access has max_slices x partitions x "
                              f"edge_readers + 1 edge ranges ({self.max_slices} x "
                              f"{self.partitions} x {self.edge_readers} + 1)")

    @property
    def algorithm(self):
        return algorithm_of(self.algo)

    @property
    def program(self):
        """The :class:`graphgen.programs.Program` the pipeline runs."""
        return algorithm_of(self.algo).program

    @property
    def edge_words(self) -> int:
        """Words of an edge in memory: 4 for ``coo``; for ``csr`` 2 (dstid, weight) when the
        program reads the weight, else 1."""
        if self.edge_format == "coo":
            return 4
        return 2 if self.program.uses_weight else 1

    @property
    def edge_tag_bits(self) -> int:
        """Bits of a compact edge's dstid word that hold ``(srcid >> log2(streams_src)) mod
        coarsening``: log2(``coarsening``) for a frontier program with ``edge_format`` csr
        (its EdgeIDTable entries span that many sources), else 0."""
        if self.edge_format == "coo" or not self.algorithm.frontier:
            return 0
        return self.coarsening.bit_length() - 1

    @property
    def property_words(self) -> int:
        """K: words of a vertex property."""
        if not self.algorithm.large_property:
            return 1
        return (self.property_bytes or 128) // 4

    @property
    def lanes(self) -> int:
        """Words of a flit: the property's, up to the 32-byte datapath's 8."""
        return min(self.property_words, 8)

    @property
    def flits(self) -> int:
        """Flits of a property (1 for one-word properties)."""
        return self.property_words // self.lanes

    @property
    def property_prefetch_lines(self) -> int:
        """Lines the sequential reads of VProperty fetch ahead: ``prefetch_lines`` for
        one-word properties; K times that for K-word ones (up to 256), so they run as many
        vertices ahead of their consumer (§IV.C's N lines of 16 properties each)."""
        return min(256, self.prefetch_lines * self.property_words)

    @property
    def edge_payload(self):
        """What crosses the crossbar: :data:`SourcedEdge`, or with large properties a flit
        of an edge packet (:func:`edge_flit`)."""
        from .layouts import SourcedEdge, edge_flit
        if self.algorithm.large_property:
            return edge_flit(self.lanes, self.flits, dst_prop=False)
        return SourcedEdge

    @property
    def voq_entries(self) -> int:
        """Words of each virtual output queue: ``voq_depth`` edges, of ``flits`` flits each
        (a queue that holds a single packet blocks its input while its output serves
        another input's packet)."""
        return self.voq_depth * self.flits

    @property
    def packet_last(self):
        """The crossbar's ``packet_last``: whether an edge flit ends its packet (None
        without large properties: every edge is one word)."""
        if not self.algorithm.large_property:
            return None
        last = self.flits - 1
        return lambda flit: flit.flit == last

    def _check_symmetric_scalar(self):
        """The symmetric-graph optimisation for a scalar program (PageRank): built for
        full-edge Float32 programs reduced by ``fadd``, with both update paths and no
        slicing, since each destination stream keeps its vertices' VProperty and VConst on
        chip (:attr:`scratchpad_properties`)."""
        program = self.program
        why = None
        if program.mode != "all":
            why = "full-edge (mode \"all\") programs"
        elif program.prop is not Float32 or program.reduce != "fadd":
            why = "Float32 properties reduced by fadd (the paired source updates add them)"
        elif self.update_paths != 2:
            why = "update_paths=2 (the duplicated P5-P9)"
        elif self.max_slices != 1:
            why = "max_slices=1 (extended slicing keeps VTempProperty regions only)"
        if why:
            raise ConfigError(f"symmetric: the symmetric-graph optimisation (§IV.D) of a "
                              f"scalar program ({self.algo}) is built for {why}")

    @property
    def scratchpad_properties(self) -> bool:
        """Symmetric scalar programs: each destination stream keeps VProperty and VConst of
        its vertices on chip, loaded before each processing phase, so that an edge's update
        of its source reads the destination's operands there (§VI.B: with the symmetric
        optimisation the scratchpad holds both ends' vertex properties)."""
        return self.symmetric and not self.algorithm.large_property

    @property
    def update_network(self) -> bool:
        """The symmetric-graph optimisation over several destination streams: update packets
        cross a second crossbar to the stream that owns their vertex (§IV.D)."""
        return self.symmetric and self.streams_dst > 1

    @property
    def paths(self) -> int:
        """Update paths (P5–P9) of a destination stream: ``update_paths`` with ``symmetric``,
        else 1."""
        return self.update_paths if self.symmetric else 1

    @property
    def extended_slicing(self) -> bool:
        """Extended graph slicing for symmetric graphs (§VI.B): ``symmetric`` with
        ``max_slices`` > 1. The scratchpad holds two partitions, regions A and B."""
        return self.symmetric and self.max_slices > 1

    @property
    def region_vertices(self) -> int:
        """Extended slicing: scratchpad entries of each region of a destination stream (the
        second, B, starts there)."""
        return self.destination_slice_vertices // 2

    @property
    def index_width(self) -> int:
        return (self.max_vertices - 1).bit_length()

    @property
    def table_entries(self) -> int:
        """EdgeIDTable entries of one source stream (0: no table, full edge access)."""
        return self.source_table_entries

    @property
    def partitions(self) -> int:
        """L = max(n, m): the vertices' partitions in memory (§V.A; see
        :mod:`hw.graphicionado.partition_walk`)."""
        return max(self.streams_src, self.streams_dst)

    @property
    def source_outputs(self) -> int:
        """Crossbar inputs per source stream: one per edge reader for full edge access."""
        return self.edge_readers if self.algorithm.full_edge_access else 1

    @property
    def const_words(self) -> int:
        """Words of a VConst item: the constant and an edge count per edge reader (full edge
        access), rounded up to a power of two."""
        return 1 << self.edge_readers.bit_length()

    @property
    def source_segments(self) -> int:
        """Partitions one source stream owns."""
        return self.partitions // self.streams_src

    @property
    def destination_segments(self) -> int:
        """Partitions one destination stream owns."""
        return self.partitions // self.streams_dst

    @property
    def destination_slice_vertices(self) -> int:
        """VTempProperty entries of one destination stream's scratchpad slice."""
        return -(-self.max_vertices // self.streams_dst)

    @property
    def source_table_entries(self) -> int:
        """EdgeIDTable entries of one source stream (0 for full edge access)."""
        if self.algorithm.full_edge_access:
            return 0
        return -(-self.edge_table_vertices // (self.streams_src * self.coarsening)) + 1

    @property
    def edge_table_vertices(self) -> int:
        """Source vertices the EdgeIDTable covers (``table_vertices``, or ``max_vertices``)."""
        return self.table_vertices or self.max_vertices
