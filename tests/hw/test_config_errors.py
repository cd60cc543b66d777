# amaranth: UnusedElaboratable=no
"""Every hardware block refuses a bad parameter with :class:`hw.lib.config.ConfigError` and one
line, whether or not Python runs with assertions (``python -O``). (The blocks refused are
never elaborated: the comment above keeps Amaranth from warning about each.)"""

import subprocess
import sys
from pathlib import Path

import pytest
from amaranth.hdl import unsigned

from hw.lib.config import ConfigError
from tests.support import REPO_ROOT
from tests.support.examples import spec_of


def _cases():
    from hw.lib.cam import AtomicUpdateCAM
    from hw.depgraph.circular_queue import CircularQueue
    from hw.depgraph.config import DepGraphConfig
    from hw.depgraph.walk_scanner import WalkScanner
    from hw.lib.stream.ordered_merge import OrderedMerge
    from hw.depgraph.ddmu import DDMU
    from hw.depgraph.ddmu_with_learner import DDMUWithLearner
    from hw.depgraph.engine import Engine
    from hw.depgraph.fifo_edge_buffer import FIFOEdgeBuffer
    from hw.depgraph.hdtl import HDTL
    from hw.depgraph.hub_index_learner import HubIndexLearner
    from hw.depgraph.processing_element import ProcessingElement
    from hw.lib.memory.range_reader import RangeReader
    from hw.depgraph.update_network import UpdateNetwork
    from tests.formal.harnesses.stream_order import MutatedRegisterSlice
    from hw.graphicionado.edge_id_read import EdgeIDRead
    from hw.graphicionado.top import GraphicionadoPipeline
    from hw.graphicionado.process_edge import ProcessEdge
    from hw.graphicionado.random_vertex_read import RandomVertexRead
    from hw.graphicionado.scratchpad import Scratchpad
    from hw.graphicionado.sequential_vertex_read import SequentialVertexRead
    from hw.lib.arith.fp32_vector import FP32Lanes, FP32TreeSum
    from hw.graphicionado.large_random_vertex_read import LargeRandomVertexRead
    from hw.graphicionado.packet_source_merge import PacketSourceMerge
    from hw.graphicionado.scratchpad import TempPropertyStream
    from hw.lib.stream.arbiter import StreamArbiter
    from hw.lib.stream.fifo import StreamFIFO
    from hw.lib.registers.file import RegisterFile
    from hw.lib.stream.round_robin import RoundRobin
    from hw.bfs.bin_writer import BinWriter
    from hw.bfs.config import BfsConfig
    from hw.bfs.discovery_writer import DiscoveryWriter
    from hw.bfs.hub_pass import HubPass
    from hw.bfs.level_log import LevelLog
    from hw.bfs.queue_reader import QueueReader
    from hw.bfs.top import BfsEngine
    from hw.bfs.top_down_check import TopDownCheck
    from hw.depgraph.bank_outputs import BankOutputs
    from hw.depgraph.op_picker import OpPicker
    from hw.depgraph.record_update import RecordUpdate
    from hw.depgraph.top import DepGraph
    from hw.depgraph.vertex_loader import VertexLoader, VertexWriter
    from hw.depgraph.vertex_store import VertexStoreBank
    from hw.dyngraph.bucket_hash import BucketHash
    from hw.dyngraph.compact_walk import CompactWalk
    from hw.dyngraph.layouts import SlabCtx, TableCtx
    from hw.dyngraph.lock_issue import LockIssue
    from hw.dyngraph.op_issue import OpIssue
    from hw.dyngraph.pool_sweep import PoolSweep
    from hw.dyngraph.retire import Retire
    from hw.dyngraph.run_control import RunControl as DynRunControl
    from hw.dyngraph.slab_compactor import SlabCompactor
    from hw.dyngraph.slab_compare import SlabCompare
    from hw.dyngraph.top import UpdateUnit
    from hw.dyngraph.vertex_table import VertexTable
    from hw.graphicionado.apply import Apply
    from hw.graphicionado.cf_datapath import CFDatapath
    from hw.graphicionado.config import GraphicionadoConfig
    from hw.graphicionado.scratchpad_spill import ScratchpadSpill
    from hw.graphicionado.source_stream import SourceStream
    from hw.lib.arith.fp32 import FP32Adder
    from hw.lib.arith.fp32_vector import FP32PairSum
    from hw.lib.arith.integer import Minimum
    from hw.lib.memory.port import MemoryPortSignature
    from hw.lib.registers.design import RegisterDesign
    from hw.lib.registers.signatures import CountersSignature
    from hw.lib.stream.crossbar import VirtualOutputQueues
    from hw.lib.stream.ordered_merge import MemoryPortMerge
    from hw.bfs.expand_dispatch import ExpandDispatch
    from hw.bfs.hub_cache import HubCache
    from hw.bfs.search_lines import SearchLines
    from hw.depgraph.probe_port import ProbePort
    from hw.dyngraph.slab_port import SlabPort
    from hw.dyngraph.slab_ports import SlabPorts
    from hw.graphicionado.parallel_edge_read import ParallelEdgeRead
    from hw.graphicionado.parallel_random_vertex_read import ParallelRandomVertexRead
    from hw.graphicionado.source_merge import SourceMerge
    from hw.lib.memory.arbiter import MemoryArbiter
    from hw.lib.memory.interconnect import ReorderBuffer
    from hw.lib.memory.line_writer import SequentialLineWriter
    from hw.lib.memory.range_streamer import RangeStreamer
    from hw.lib.memory.word_lookup import WordLookup
    from hw.lib.stream.lowest_occupancy import LowestOccupancyDispatch
    from hw.lib.stream.select import StreamDemux
    from hw.bfs.level_controller import LevelController
    from hw.dyngraph.slab_allocator import SlabAllocator
    from hw.dyngraph.vertex_ops import VertexOps
    from hw.graphicionado.atomic_update import AtomicUpdate
    from hw.graphicionado.destination_stream import DestinationStream
    from hw.graphicionado.edge_read import EdgeRead
    from hw.graphicionado.phase_controller import PhaseController
    from hw.lib.arith.integer import SaturatingAdd
    from hw.lib.cam import CAMConfig
    from hw.lib.stream.register_slice import StreamRegisterSlice
    byte = unsigned(8)
    cam = CAMConfig(entries=16, ways=4, id_width=8)
    return {
        "cam-config": (lambda: AtomicUpdateCAM({"entries": 16}), "needs a CAMConfig"),
        "fifo-depth": (lambda: StreamFIFO(byte, 0), "depth"),
        "arbiter-count": (lambda: StreamArbiter(byte, 0), "count"),
        "arbiter-last": (lambda: StreamArbiter(byte, 2, last=3), "last"),
        "round-robin-count": (lambda: RoundRobin(0), "count"),
        "round-robin-first": (lambda: RoundRobin(3, first=3), "first"),
        "lanes-op": (lambda: FP32Lanes("div", 8), "op"),
        "lanes-count": (lambda: FP32Lanes("add", 0), "lanes"),
        "tree-lanes": (lambda: FP32TreeSum(6), "lanes"),
        "packet-merge-lanes": (lambda: PacketSourceMerge(lanes=3, flits=4), "lanes"),
        "large-p4-lanes": (lambda: LargeRandomVertexRead(addr_width=26, lanes=32, flits=1),
                           "lanes"),
        "temp-stream-flits": (lambda: TempPropertyStream(index_width=8, flits=3), "flits"),
        "line-writer-item-words": (lambda: SequentialLineWriter(item_words=3, addr_width=26),
                                   "item_words"),
        "edge-id-coarsening": (lambda: EdgeIDRead(table_addr_width=10, coarsening=3),
                               "coarsening"),
        "svr-item-words": (lambda: SequentialVertexRead(item_words=5, addr_width=26),
                           "item_words"),
        "svr-prefetch": (lambda: SequentialVertexRead(item_words=1, addr_width=26,
                                                      prefetch_lines=0), "prefetch_lines"),
        "rvr-outstanding": (lambda: RandomVertexRead(addr_width=26, outstanding=0),
                            "outstanding"),
        "process-edge-program": (lambda: ProcessEdge(program="dfs"), "program"),
        "scratchpad-vertices": (lambda: Scratchpad(vertices=1, table_entries=4), "vertices"),
        "scratchpad-table": (lambda: Scratchpad(vertices=8, table_entries=-1), "table_entries"),
        "scratchpad-bank": (lambda: Scratchpad(vertices=8, table_entries=4, bank_words=12),
                            "bank_words"),
        "pipeline-config": (lambda: GraphicionadoPipeline(DepGraphConfig()),
                            "needs a GraphicionadoConfig"),
        "register-file": (lambda: RegisterFile(()), "distinct names"),
        "update-network-banks": (lambda: UpdateNetwork(sources=2, banks=0), "banks"),
        "update-network-queue": (lambda: UpdateNetwork(sources=2, banks=2, queue_depth=1),
                                 "queue_depth"),
        "ddmu-learner-algo": (lambda: DDMUWithLearner(algo="dfs", addr_width=26), "algo"),
        "ddmu-learner-loans": (lambda: DDMUWithLearner(algo="bfs", addr_width=26, loans=4),
                               "loans"),
        "ddmu-algo": (lambda: DDMU(algo="dfs", addr_width=26), "algo"),
        "ddmu-candidates": (lambda: DDMU(algo="bfs", addr_width=26, candidates=0),
                            "candidates"),
        "ddmu-loans": (lambda: DDMU(algo="pagerank", addr_width=26, loans=0), "loans"),
        "queue-lines": (lambda: CircularQueue(addr_width=26, lines=1), "lines"),
        "queue-prefetch": (lambda: CircularQueue(addr_width=26, lines=4, prefetch_lines=0),
                           "prefetch_lines"),
        "engine-index": (lambda: Engine(DepGraphConfig(engines=2), 2), "index"),
        "depgraph-walks": (lambda: DepGraphConfig(walks=3), "walks"),
        "depgraph-algo": (lambda: DepGraphConfig(algo="cf"), "algo cf: program cf has no "
                                                             "DepGraph GAS form"),
        "depgraph-hub-nonlinear": (lambda: DepGraphConfig(
            algo=spec_of("widest"), hub_index=True),
                                   "hub_index: program widest"),
        "depgraph-update-window": (lambda: DepGraphConfig(update_window=1), "update_window"),
        "depgraph-walks-many": (lambda: DepGraphConfig(walks=32), "walks"),
        "depgraph-walk-slots": (lambda: DepGraphConfig(engines=8, walks=16, kept_lines=0),
                                "kept_lines"),
        "pe-walk-bits": (lambda: ProcessingElement(algo="bfs", engine=0, walk_bits=5),
                         "walk_bits"),
        "scanner-kept": (lambda: WalkScanner(addr_width=26, kept_lines=0), "kept_lines"),
        "scanner-edge-words": (lambda: WalkScanner(addr_width=26, edge_words=4), "edge_words"),
        "depgraph-edge-format": (lambda: DepGraphConfig(edge_format="coo"), "edge_format"),
        "merge-count": (lambda: OrderedMerge(8, 8, 0, outstanding=2), "count"),
        "merge-outstanding": (lambda: OrderedMerge(8, 8, 2, outstanding=0), "outstanding"),
        "edge-buffer-depth": (lambda: FIFOEdgeBuffer(depth=0), "depth"),
        "pe-algo": (lambda: ProcessingElement(algo="dfs", engine=0), "algo"),
        "pe-engine": (lambda: ProcessingElement(algo="bfs", engine=-1), "engine"),
        "hdtl-stack": (lambda: HDTL(addr_width=26, stack_depth=0), "stack_depth"),
        "hdtl-algo": (lambda: HDTL(addr_width=26, stack_depth=4, algo="dfs"), "algo"),
        "hdtl-track": (lambda: HDTL(addr_width=26, stack_depth=4, track_entries=0),
                       "track_entries"),
        "hdtl-edge-words": (lambda: HDTL(addr_width=26, stack_depth=4, edge_words=3),
                            "edge_words"),
        "hdtl-edge-words-weight": (lambda: HDTL(addr_width=26, stack_depth=4, algo="sssp",
                                                edge_words=1), "reads the edge weight"),
        "learner-algo": (lambda: HubIndexLearner(algo="dfs", addr_width=26), "algo"),
        "range-reader-words": (lambda: RangeReader(addr_width=26, item_words=6), "item_words"),
        "mutated-slice-bug": (lambda: MutatedRegisterSlice(byte, "no_such_bug"), "bug"),
        "range-reader-window": (lambda: RangeReader(addr_width=26, item_words=2, window=0),
                                "window"),
        "bin-writer-lane": (lambda: BinWriter(addr_width=16, lane=2, lanes=2), "lane"),
        "discovery-writer-addr": (lambda: DiscoveryWriter(addr_width=0), "addr_width"),
        "hub-pass-tau": (lambda: HubPass(tau=-1), "tau"),
        "level-log-addr": (lambda: LevelLog(addr_width=40), "addr_width"),
        "queue-reader-window": (lambda: QueueReader(addr_width=16, lanes=2, window=0), "window"),
        "top-down-outstanding": (lambda: TopDownCheck(addr_width=16, outstanding=0),
                                 "outstanding"),
        "bfs-config": (lambda: BfsEngine(DepGraphConfig()), "needs a BfsConfig"),
        "bank-outputs-depth": (lambda: BankOutputs(depth=0), "depth"),
        "op-picker-stages": (lambda: OpPicker(index_width=3, stages=1), "stages"),
        "record-update-engine": (lambda: RecordUpdate(engine=64, walk_bits=2, identity=0),
                                 "engine"),
        "depgraph-config": (lambda: DepGraph(BfsConfig()), "needs a DepGraphConfig"),
        "vertex-loader-banks": (lambda: VertexLoader(addr_width=16, banks=0), "banks"),
        "vertex-writer-addr": (lambda: VertexWriter(addr_width=0, banks=2), "addr_width"),
        "vertex-store-words": (lambda: VertexStoreBank(algo="bfs", words=6, engine=0), "words"),
        "bucket-hash-bits": (lambda: BucketHash(slab_index_bits=32), "slab_index_bits"),
        "compact-walk-bits": (lambda: CompactWalk(slab_index_bits=0), "slab_index_bits"),
        "lock-issue-waiting": (lambda: LockIssue(slots=4, waiting=0), "waiting"),
        "op-issue-group": (lambda: OpIssue(sweep_group=0), "sweep_group"),
        "pool-sweep-group": (lambda: PoolSweep(group=0), "group"),
        "retire-addr": (lambda: Retire(addr_width=0), "addr_width"),
        "dyn-run-control-addr": (lambda: DynRunControl(addr_width="26"), "addr_width"),
        "compactor-window": (lambda: SlabCompactor(addr_width=16, slab_index_bits=16,
                                                   read_window=0), "read_window"),
        "slab-compare-key": (lambda: SlabCompare(ctx_shape=SlabCtx, key_of=None), "key_of"),
        "update-unit-config": (lambda: UpdateUnit(BfsConfig()), "needs a DynGraphConfig"),
        "vertex-table-depth": (lambda: VertexTable(addr_width=16, ctx_shape=TableCtx, depth=0),
                               "depth"),
        "apply-program": (lambda: Apply(program="pagerank"), "program"),
        "cf-datapath-config": (lambda: CFDatapath(GraphicionadoConfig()),
                               "needs a CFDatapathConfig"),
        "spill-flits": (lambda: ScratchpadSpill(index_width=8, flits=3), "flits"),
        "spill-word-width": (lambda: ScratchpadSpill(index_width=8, word_width=96),
                             "word_width"),
        "source-stream-index": (lambda: SourceStream(GraphicionadoConfig(), 1), "index"),
        "fp32-tag": (lambda: FP32Adder(tag_width=-1), "tag_width"),
        "tree-tag": (lambda: FP32TreeSum(4, tag_width=-1), "tag_width"),
        "pair-sum-tag": (lambda: FP32PairSum(tag_width=1.5), "tag_width"),
        "minimum-tag": (lambda: Minimum(tag_width=-1), "tag_width"),
        "mem-port-addr": (lambda: MemoryPortSignature(0), "addr_width"),
        "register-design-config": (lambda: RegisterDesign({"addr_width": 26}, registers=(),
                                                          counters=()),
                                   "needs a DesignConfig"),
        "counters-signature-names": (lambda: CountersSignature(("cycles", "cycles")),
                                     "distinct identifiers"),
        "voq-outputs": (lambda: VirtualOutputQueues(byte, outputs=3, route=lambda p: p,
                                                    depth=2), "outputs"),
        "port-merge-count": (lambda: MemoryPortMerge(addr_width=16, count=0, outstanding=4),
                             "count"),
        "rvr-partitions": (lambda: RandomVertexRead(addr_width=26, partitions=3), "partitions"),
        "parallel-rvr-partitions": (lambda: ParallelRandomVertexRead(readers=2, addr_width=26,
                                                                     partitions=6),
                                    "partitions"),
        "parallel-edge-prefetch": (lambda: ParallelEdgeRead(readers=2, addr_width=26,
                                                            prefetch_lines=0),
                                   "prefetch_lines"),
        "source-merge-depth": (lambda: SourceMerge(depth="4"), "depth"),
        "packet-merge-depth": (lambda: PacketSourceMerge(lanes=2, flits=2, depth=0), "depth"),
        "edge-id-shift": (lambda: EdgeIDRead(table_addr_width=10, id_shift=-1), "id_shift"),
        "large-p4-addr": (lambda: LargeRandomVertexRead(addr_width=0, lanes=4, flits=1),
                          "addr_width"),
        "svr-index-shift": (lambda: SequentialVertexRead(item_words=1, addr_width=26,
                                                         index_shift=-1), "index_shift"),
        "temp-stream-index": (lambda: TempPropertyStream(index_width=0), "index_width"),
        "expand-queue": (lambda: ExpandDispatch(lanes=2, queue_depth=0), "queue_depth"),
        "hub-cache-ctx": (lambda: HubCache(entries=4, ctx_width=-1), "ctx_width"),
        "search-lines-ctx": (lambda: SearchLines(slots=2, ctx_width=-1), "ctx_width"),
        "ddmu-learner-candidates": (lambda: DDMUWithLearner(algo="bfs", addr_width=26,
                                                            candidates=0), "candidates"),
        "ddmu-addr": (lambda: DDMU(algo="bfs", addr_width=0), "addr_width"),
        "hdtl-kept": (lambda: HDTL(addr_width=26, stack_depth=4, kept_lines=0), "kept_lines"),
        "learner-addr": (lambda: HubIndexLearner(algo="bfs", addr_width=0), "addr_width"),
        "queue-addr": (lambda: CircularQueue(addr_width=0, lines=4), "addr_width"),
        "scanner-addr": (lambda: WalkScanner(addr_width=0), "addr_width"),
        "probe-port-index": (lambda: ProbePort(index_width=0), "index_width"),
        "slab-ports-depth": (lambda: SlabPorts(ports=2, addr_width=26, depth=0), "depth"),
        "slab-port-addr": (lambda: SlabPort(addr_width=0, ctx_shape=SlabCtx), "addr_width"),
        "range-reader-addr": (lambda: RangeReader(addr_width=0, item_words=1), "addr_width"),
        "range-streamer-ctx": (lambda: RangeStreamer(addr_width=26, ctx_width=-1), "ctx_width"),
        "word-lookup-ctx": (lambda: WordLookup(addr_width=26, ctx_width=-1), "ctx_width"),
        "line-writer-addr": (lambda: SequentialLineWriter(addr_width=0, item_words=1),
                             "addr_width"),
        "line-writer-marked": (lambda: SequentialLineWriter(addr_width=26, item_words=1,
                                                            marked=1), "marked"),
        "reorder-addr": (lambda: ReorderBuffer(channels=2, addr_width=0, depth=4),
                         "addr_width"),
        "arbiter-addr": (lambda: MemoryArbiter(ports=2, addr_width=0), "addr_width"),
        "lowest-occupancy-level": (lambda: LowestOccupancyDispatch(byte, 2, level_width=0),
                                   "level_width"),
        "demux-route": (lambda: StreamDemux(byte, 2, route=3), "route"),
        "level-controller-addr": (lambda: LevelController(addr_width=33, lanes=2,
                                                          direction="auto", gamma_percent=30),
                                  "addr_width"),
        "level-controller-lanes": (lambda: LevelController(addr_width=16, lanes=0,
                                                           direction="auto", gamma_percent=30),
                                   "lanes"),
        "level-controller-direction": (lambda: LevelController(
            addr_width=16, lanes=2, direction="sideways", gamma_percent=30), "direction"),
        "level-controller-gamma": (lambda: LevelController(addr_width=16, lanes=2,
                                                           direction="auto", gamma_percent=101),
                                   "gamma_percent"),
        "edge-read-addr": (lambda: EdgeRead(addr_width=0), "addr_width"),
        "edge-read-prefetch": (lambda: EdgeRead(addr_width=16, prefetch_lines=0),
                               "prefetch_lines"),
        "edge-read-jobs": (lambda: EdgeRead(addr_width=16, job_depth=2.5), "job_depth"),
        "edge-read-words": (lambda: EdgeRead(addr_width=16, edge_words=3), "edge_words"),
        "edge-format": (lambda: GraphicionadoConfig(edge_format="adjacency"), "edge_format"),
        "edge-format-coarsened": (lambda: GraphicionadoConfig(
            algo="bfs", edge_format="csr", coarsening=32, table_vertices=1 << 28),
            "do not fit the other 27"),
        "edge-read-tag": (lambda: EdgeRead(addr_width=16, tag_bits=2), "no tag"),
        "phase-controller-config": (lambda: PhaseController(DepGraphConfig()),
                                    "needs a GraphicionadoConfig"),
        "destination-stream-config": (lambda: DestinationStream(BfsConfig(), 0),
                                      "needs a GraphicionadoConfig"),
        "destination-stream-index": (lambda: DestinationStream(
            GraphicionadoConfig(), GraphicionadoConfig().streams_dst), "index"),
        "atomic-update-unit": (lambda: AtomicUpdate(reduce_unit=None, cam=cam, index_width=8),
                               "reduce_unit"),
        "atomic-update-cam": (lambda: AtomicUpdate(reduce_unit=SaturatingAdd(tag_width=8),
                                                   cam={"entries": 16}, index_width=8),
                              "needs a CAMConfig"),
        "atomic-update-index": (lambda: AtomicUpdate(reduce_unit=SaturatingAdd(tag_width=8),
                                                     cam=cam, index_width=0), "index_width"),
        "vertex-ops-bits": (lambda: VertexOps(slab_index_bits=32, group=4), "slab_index_bits"),
        "vertex-ops-group": (lambda: VertexOps(slab_index_bits=16, group=0), "group"),
        "slab-allocator-addr": (lambda: SlabAllocator(addr_width=33), "addr_width"),
        "register-slice-skid": (lambda: StreamRegisterSlice(byte, skid="no"), "skid"),
    }


def check(name: str) -> str:
    """Construct case ``name``; the empty string if it raised the expected ConfigError."""
    make, fragment = _cases()[name]
    try:
        make()
    except ConfigError as error:
        message = str(error)
        if "\n" in message or fragment not in message:
            return f"{name}: unexpected message {message!r}"
        return ""
    except Exception as error:
        return f"{name}: {type(error).__name__} instead of ConfigError: {error}"
    return f"{name}: accepted"


@pytest.mark.parametrize("name", list(_cases()))
def test_bad_parameter_raises_config_error(name):
    assert check(name) == ""


def test_bad_parameters_raise_without_assertions():
    script = ("import sys\nfrom tests.hw.test_config_errors import _cases, check\n"
              "problems = [p for p in map(check, _cases()) if p]\n"
              "print('\\n'.join(problems)); sys.exit(1 if problems else 0)\n")
    result = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True,
                            text=True, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_preset_starts_a_configuration_that_sets_change():
    """``preset=NAME`` gives the preset's parameters, a ``key=value`` beside it wins, and an
    unknown preset is a ConfigError naming the known ones."""
    import dataclasses
    from typing import ClassVar
    from hw.lib.config import DesignConfig

    @dataclasses.dataclass(frozen=True)
    class Small(DesignConfig):
        PRESETS: ClassVar[dict] = {"ecp5": {"lanes": "2", "depth": "64"}}
        lanes: int = 8
        depth: int = 512

    assert Small.from_overrides({}) == Small()
    assert Small.from_overrides({"preset": "ecp5"}) == Small(lanes=2, depth=64)
    assert Small.from_overrides({"preset": "ecp5", "depth": "32"}) == Small(lanes=2, depth=32)
    with pytest.raises(ConfigError, match="unknown preset 'asic' for Small; presets: ecp5"):
        Small.from_overrides({"preset": "asic"})
