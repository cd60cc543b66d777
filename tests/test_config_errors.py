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
    from hw.graphicionado.sequential_vertex_write import SequentialVertexWrite
    from hw.lib.arith.fp32_vector import FP32Lanes, FP32TreeSum
    from hw.graphicionado.large_random_vertex_read import LargeRandomVertexRead
    from hw.graphicionado.packet_source_merge import PacketSourceMerge
    from hw.graphicionado.scratchpad import TempPropertyStream
    from hw.lib.stream.arbiter import StreamArbiter
    from hw.lib.stream.fifo import StreamFIFO
    from hw.lib.registers.file import RegisterFile
    from hw.lib.stream.round_robin import RoundRobin
    byte = unsigned(8)
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
        "svw-item-words": (lambda: SequentialVertexWrite(item_words=3, addr_width=26),
                           "item_words"),
        "edge-id-coarsening": (lambda: EdgeIDRead(table_addr_width=10, coarsening=3),
                               "coarsening"),
        "svr-item-words": (lambda: SequentialVertexRead(item_words=5, addr_width=26),
                           "item_words"),
        "svr-prefetch": (lambda: SequentialVertexRead(item_words=1, addr_width=26,
                                                      prefetch_lines=0), "prefetch_lines"),
        "rvr-outstanding": (lambda: RandomVertexRead(addr_width=26, outstanding=0),
                            "outstanding"),
        "process-edge-algo": (lambda: ProcessEdge(algo="dfs", unit=None), "algo"),
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
        "depgraph-update-window": (lambda: DepGraphConfig(update_window=1), "update_window"),
        "depgraph-walks-many": (lambda: DepGraphConfig(walks=32), "walks"),
        "depgraph-walk-slots": (lambda: DepGraphConfig(engines=8, walks=16, kept_lines=0),
                                "kept_lines"),
        "pe-walk-bits": (lambda: ProcessingElement(algo="bfs", engine=0, walk_bits=5),
                         "walk_bits"),
        "scanner-kept": (lambda: WalkScanner(addr_width=26, kept_lines=0), "kept_lines"),
        "merge-count": (lambda: OrderedMerge(8, 8, 0, outstanding=2), "count"),
        "merge-outstanding": (lambda: OrderedMerge(8, 8, 2, outstanding=0), "outstanding"),
        "edge-buffer-depth": (lambda: FIFOEdgeBuffer(depth=0), "depth"),
        "pe-algo": (lambda: ProcessingElement(algo="dfs", engine=0), "algo"),
        "pe-engine": (lambda: ProcessingElement(algo="bfs", engine=-1), "engine"),
        "hdtl-stack": (lambda: HDTL(addr_width=26, stack_depth=0), "stack_depth"),
        "hdtl-algo": (lambda: HDTL(addr_width=26, stack_depth=4, algo="dfs"), "algo"),
        "hdtl-track": (lambda: HDTL(addr_width=26, stack_depth=4, track_entries=0),
                       "track_entries"),
        "learner-algo": (lambda: HubIndexLearner(algo="dfs", addr_width=26), "algo"),
        "range-reader-words": (lambda: RangeReader(addr_width=26, item_words=6), "item_words"),
        "mutated-slice-bug": (lambda: MutatedRegisterSlice(byte, "no_such_bug"), "bug"),
        "range-reader-window": (lambda: RangeReader(addr_width=26, item_words=2, window=0),
                                "window"),
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
    script = ("import sys\nfrom tests.test_config_errors import _cases, check\n"
              "problems = [p for p in map(check, _cases()) if p]\n"
              "print('\\n'.join(problems)); sys.exit(1 if problems else 0)\n")
    result = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True,
                            text=True, cwd=Path(__file__).parent.parent)
    assert result.returncode == 0, result.stdout + result.stderr
