"""Parameters of the DepGraph accelerator."""

import dataclasses
import hashlib

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two
from .layouts import MAX_ENGINES, WALK_BITS, edges_per_line
from .program import gas_of, hub_index_refusal
from .walk_scanner import MAX_LEVELS


__all__ = ["DepGraphConfig", "EDGE_FORMATS"]

# ``DepGraphConfig.edge_format``: compact (the weight only when the program reads it), or
# always two words.
EDGE_FORMATS = ("csr", "weighted")


@dataclasses.dataclass(frozen=True)
class DepGraphConfig(DesignConfig):
    """Parameters of :class:`hw.depgraph.top.DepGraph`.

    Parameters
    ----------
    algo : str
        The vertex program: a built-in's name (bfs, sssp, cc, pagerank) or
        ``path/to/file.py:ClassName`` (such as examples/programs/widest.py:WidestPath), with
        a GAS form (:mod:`hw.depgraph.program`):
        it chooses Accum (integer min or max, or FP32 sum), EdgeCompute and the initial
        values.
    engines : int
        Engines (HDTL + FIFO edge buffer + processing element), one partition each (the
        paper: 4 cores with DepGraph engines). Four do not fit an ECP5-85k's block RAM; the
        ``ecp5`` preset (``--set preset=ecp5``) has two, of 4 walks without stack lines.
    stack_depth : int
        HDTL stack entries (the paper: 10).
    walks : int
        Walks in flight per engine: HDTLs (walk contexts) sharing the engine's FIFO edge
        buffer, processing element, vertex-store bank and memory ports, so that one walk's
        memory latency overlaps the others' work (issue 17; the golden model's ``walks``).
        A power of two from 1 to 16 (so engines × walks names at most 128 walk slots). The
        default, 16, comes from the sweep of issue 55 (``bench/bench_depgraph_sweep.py``).
    offsets_on_chip : bool
        The vertex-store banks keep each vertex's CSR offsets (loaded with its record) and
        answer them with its fold, so a visit needs one memory latency (its edges) instead
        of two (offsets, then edges). The paper's cores find this vertex data in their caches
        (§III-B); off, the HDTL reads the offsets from memory. Costs a block RAM of 64 bits a
        vertex in each bank.
    kept_lines : int
        Lines of each batch's edges (``edges_per_line`` edges a line) an HDTL keeps for its
        scans, which otherwise read them from memory again (1 to 16; the default from the
        sweep of issue 55).
    stack_lines : bool
        Every level of an HDTL's stack keeps the ``kept_lines`` lines of its entry's batch, so
        a walk resuming an entry after the subtree below it scans without a memory read (the
        paper's 6.1 Kbit stack of 10 entries is about 610 bits an entry: a 64-byte line of
        edges and the entry's three words). Off, an HDTL keeps only its last batch's lines.
        Costs ``stack_depth`` x ``kept_lines`` x 512 bits an HDTL (on by default, from the
        sweep of issue 55).
    leave_max_edges : int
        A vertex of more out-edges than this leaves nothing for its walk: its batch's
        activations go to the circular queue, where every walk of the engine takes them as
        roots, instead of waiting for its one walk's scan to take them one by one (0: no
        limit, the paper's rule; :attr:`golden_leave_max_edges`). With ``hub_index``, 0 lets
        the walks travel the core paths the index learns from. The default, 8, a line of
        weighted edges, is measured in docs/results.md (issue 55).
    update_window : int
        Updates held in front of each vertex-store bank by its update scheduler, which sends
        the oldest whose record the bank is not still writing, so that updates of other
        records fill the cycles a hot record's read-modify-write would leave empty (0 = no
        scheduler: the bank takes its updates in arrival order).
    hub_index : bool
        Build the DDMU and the hub-index learner, and use the shortcuts between hubs; refused
        for a program whose EdgeCompute is not linear (or that the hub index does not build,
        :func:`hw.depgraph.program.hub_index_refusal`).
    track_entries : int
        Hub-index entries of a walk's root that are not yet available (flags N and I) the
        HDTL keeps, to learn them when its walk travels their core path; the DDMU hands out
        at most this many per root.
    pseudo_edge_buffer : int
        PageRank with the hub index: pseudo-edges an engine holds until its walk ends; the
        DDMU uses at most this many shortcuts per root (the fixpoint needs every shortcut paid
        back by its pseudo-edge).
    bank_vertices : int
        Vertex-store records per engine: the largest partition the accelerator takes. The
        default keeps four banks within an ECP5-85k's block RAM.
    edge_format : str
        How an edge is stored in memory (:mod:`hw.depgraph.layouts`). ``csr``, the default:
        the destination id alone (4 bytes, sixteen edges a line) when the program reads no
        weight (BFS, CC, PageRank), or with the weight (8 bytes, eight a line) when it does
        (SSSP); a one-word edge's weight is 1 inside the engine. ``weighted``: always
        (dst, weight), the layout before the compact one, kept to compare with it. The edge
        reader, the scan's line and the kept lines follow (:attr:`edge_words`).
    load_window : int
        Lines the vertex loader requests ahead of the hand-out in each array it reads before
        a run (state, delta, constant, stop bits, offsets): it hands out a record a cycle when
        this covers the memory's latency (about latency / 16 lines).
    edge_fifo_depth : int
        Entries of each FIFO edge buffer (37 entries of 134 bits: about the paper's 4.8 Kbit).
    addr_width : int
        Width of a 64-byte line address.
    memory_outstanding : int
        Reads in flight at most through the memory arbiter (128, Graphicionado's: at 64,
        16 walks an engine on a grid at latency 100 filled it, issue 17).
    stall_injection : int
        Verification only: block links between blocks in about this percentage of cycles.
    watchdog : int
        Simulation only (a run-time input of the simulation top, not in the design's Verilog):
        stop a run whose stream links have not moved for this many cycles and report every
        link's state. 0 = off.
    """

    RUN_SETTINGS = ("stall_injection", "watchdog")
    # ``ecp5``: the default (four engines) needs 276 DP16KD of the ECP5-85k's 208; two
    # engines of the default 8,192-vertex banks are the most that fit (a third would take
    # the block RAM to its last few). The hub index stays off (its DDMU and learner are the
    # default's too). Walks (issue 55, Yosys and nextpnr's packing, BFS): two engines of 16
    # walks with stack lines take 274,336 logic cells of 83,640, of 8 walks without them
    # 100,267; of 4 walks without them 64,273 (76%), 138 DP16KD, 3,254 RAMW.
    PRESETS = {"ecp5": {"engines": "2", "walks": "4", "stack_lines": "false",
                        "kept_lines": "1"}}

    algo: str = "bfs"
    engines: int = 4
    stack_depth: int = 10
    walks: int = 16
    offsets_on_chip: bool = True
    kept_lines: int = 4
    stack_lines: bool = True
    leave_max_edges: int = 8
    update_window: int = 4
    hub_index: bool = False
    track_entries: int = 8
    pseudo_edge_buffer: int = 16
    bank_vertices: int = 8192
    edge_format: str = "csr"
    edge_fifo_depth: int = 37
    load_window: int = 16
    addr_width: int = 26
    memory_outstanding: int = 128
    stall_injection: int = 0
    watchdog: int = 100_000

    def validate(self):
        form = gas_of(self.algo)
        object.__setattr__(self, "_gas", form)     # the definition read now, for the digests
        if self.hub_index and hub_index_refusal(form):
            raise ConfigError(f"hub_index: program {form.name}: {hub_index_refusal(form)}")
        if not 1 <= self.engines <= MAX_ENGINES:
            raise ConfigError(f"engines must be between 1 and {MAX_ENGINES}, not "
                              f"{self.engines}")
        if not is_power_of_two(self.walks) or not 1 <= self.walks <= 1 << WALK_BITS:
            raise ConfigError(f"walks must be a power of two from 1 to {1 << WALK_BITS}, "
                              f"not {self.walks}")
        if not 1 <= self.kept_lines <= 16:
            raise ConfigError(f"kept_lines must be between 1 and 16, not {self.kept_lines}")
        if not 0 <= self.leave_max_edges <= 1 << 20:
            raise ConfigError(f"leave_max_edges must be from 0 (no limit) to 1048576, "
                              f"not {self.leave_max_edges}")
        if self.update_window != 0 and not 2 <= self.update_window <= 16:
            raise ConfigError(f"update_window must be 0 (off) or from 2 to 16, "
                              f"not {self.update_window}")
        if not 1 <= self.track_entries <= 32:
            raise ConfigError(f"track_entries must be between 1 and 32, not {self.track_entries}")
        if not 1 <= self.pseudo_edge_buffer <= 256:
            raise ConfigError(f"pseudo_edge_buffer must be between 1 and 256, "
                              f"not {self.pseudo_edge_buffer}")
        if not 1 <= self.stack_depth <= MAX_LEVELS:
            raise ConfigError(f"stack_depth must be between 1 and {MAX_LEVELS}, "
                              f"not {self.stack_depth}")
        if not is_power_of_two(self.bank_vertices) or not 16 <= self.bank_vertices <= 1 << 20:
            raise ConfigError(f"bank_vertices must be a power of two from 16 to 1048576, "
                              f"not {self.bank_vertices}")
        if self.edge_format not in EDGE_FORMATS:
            raise ConfigError(f"edge_format must be {' or '.join(EDGE_FORMATS)}, "
                              f"not {self.edge_format!r}")
        if not 2 <= self.edge_fifo_depth <= 256:
            raise ConfigError(f"edge_fifo_depth must be between 2 and 256, "
                              f"not {self.edge_fifo_depth}")
        if not 1 <= self.load_window <= 64:
            raise ConfigError(f"load_window must be between 1 and 64, not {self.load_window}")
        if not 16 <= self.addr_width <= 32:
            raise ConfigError(f"addr_width must be between 16 and 32, not {self.addr_width}")
        if not 2 <= self.memory_outstanding <= 1024:
            raise ConfigError(f"memory_outstanding must be between 2 and 1024, "
                              f"not {self.memory_outstanding}")
        if not 0 <= self.watchdog <= 0xFFFF_FFFF:
            raise ConfigError(f"watchdog must be a cycle count from 0 (off) to 4294967295, "
                              f"not {self.watchdog}")
        if not 0 <= self.stall_injection <= 90:
            raise ConfigError(f"stall_injection must be a percentage from 0 to 90, "
                              f"not {self.stall_injection}")

    @property
    def golden_leave_max_edges(self) -> int | None:
        """``leave_max_edges`` as the golden model takes it: None for no limit (0 here)."""
        return self.leave_max_edges or None

    @property
    def memory_channels(self) -> int:
        """One memory port, shared by every client through one arbiter."""
        return 1

    def digest(self) -> str:
        """As :meth:`DesignConfig.digest`, and for a program file, its definition too (the
        file can change under the same name)."""
        return self._with_program(super().digest())

    def run_digest(self) -> str:
        return self._with_program(super().run_digest())

    def _with_program(self, digest: str) -> str:
        if ".py:" not in self.algo:
            return digest
        text = f"{digest}:{self._gas.program!r}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def gas(self):
        """The program's GAS form (:class:`graphgen.programs.gas.GasForm`), as read when the
        configuration was made."""
        return self._gas

    @property
    def is_min(self) -> bool:
        """The datapath's Accum is the integer min (a min or max program), not the FP32 sum."""
        return self.gas.selective

    @property
    def edge_words(self) -> int:
        """Words of an edge in memory: 2 (dst, weight) with ``edge_format`` weighted or a
        program that reads the weight, else 1 (dst). Derived from ``edge_format`` and the
        program, both in :meth:`digest`."""
        return 2 if self.edge_format == "weighted" or self.gas.uses_weight else 1

    @property
    def edges_per_line(self) -> int:
        """Edges of a 64-byte line: 16 of one word, 8 of two."""
        return edges_per_line(self.edge_words)

    @property
    def walk_bits(self) -> int:
        """Bits of a walk's number within its engine (the low bits of its walk slot)."""
        return (self.walks - 1).bit_length()

    @property
    def max_vertices(self) -> int:
        return self.engines * self.bank_vertices

    @property
    def bank_index_width(self) -> int:
        return (self.bank_vertices - 1).bit_length()
