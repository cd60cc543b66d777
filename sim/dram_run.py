"""One RTL run of a design beside the simulated DRAM, as the host drives it: the image written
to a run folder, the Verilog built (cached) and simulated by the design's cocotb testbench
(which only configures, starts and waits), and one region of the dumped memory read back.
Shared by :mod:`sim.graphicionado.run` and :mod:`sim.depgraph.run`."""

import dataclasses
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from hw.lib.config import ConfigError
from sim.dram_image import DRAMImage
from sim.harness import SimResult, SimulationError, emit_verilog, run_cocotb
from sim.traffic import MemoryTraffic, read_traffic


__all__ = ["DRAMRun", "RunFailure", "run_with_dram", "run_register_design", "sim_top_for",
           "describe_hang"]


class RunFailure(RuntimeError):
    """The design did not produce a result: it hung, ran out of cycles or raised its error
    flag. Not bad input: ``graphgen`` reports it with exit status 1. The message may span
    several lines (the links' states and the counters)."""


@dataclasses.dataclass
class DRAMRun:
    outcome: dict                   # what the testbench wrote: counters, wall time, ...
    result: SimResult
    words: np.ndarray               # the read-back region, uint32
    image_seconds: float
    readback_seconds: float
    run_dir: Path | None = None     # the run's folder, if kept
    extra: dict = dataclasses.field(default_factory=dict)   # the ``also_read`` regions
    traffic: MemoryTraffic | None = None    # the lines each client moved (sim.traffic)
    # The design's SRAM-deep memories with their counted reads and writes
    # (sim.gateware.sram_activity); None for a top that does not count them.
    sram: list | None = None

    def report_fields(self, golden_seconds: float, simulator: str) -> dict:
        """The :class:`~sim.report.SimReport` fields this run fills in every design's
        report: the wall-clock phases, the simulator, the build cache, the run's folder and
        the iteration snapshots."""
        return {"wall_seconds": {"golden": golden_seconds, "image": self.image_seconds,
                                 "build": self.result.build_seconds,
                                 "simulation": self.result.run_seconds,
                                 "run": self.outcome["run_wall_seconds"],
                                 "readback": self.readback_seconds},
                "simulator": simulator, "build_cached": self.result.cached,
                "run_dir": self.run_dir, "traffic": self.traffic, "sram": self.sram,
                "snapshots": self.outcome.get("iteration_snapshots", []),
                "ready_cycles": self.outcome.get("ready_cycles", 0)}


# The Verilog of each sim top emitted in this process, by name and digest: a test suite runs
# many graphs on one configuration, and emitting a design takes seconds.
_emitted: dict[tuple[str, str], tuple] = {}


def _verilog(make_top, top_name: str, digest: str) -> tuple:
    """The top's Verilog, its extra sources, its links' names, its AXI4-Lite register map
    (empty for a top without one), its memory clients in tag order (None when its tags are
    not clients), its memory channels and the memories whose accesses it counts."""
    key = (top_name, digest)
    if key not in _emitted:
        top = make_top()
        verilog = emit_verilog(top, top_name)
        clients = getattr(top, "memory_clients", None)
        _emitted[key] = (verilog, list(top.extra_sources), list(top.link_names),
                         list(getattr(top, "address_map", [])),
                         None if clients is None else tuple(clients),
                         top.memory_config.channels,
                         getattr(top, "sram_memories", None))
    return _emitted[key]


def run_with_dram(make_top, top_name: str, test_module: str, dram: DRAMImage,
                  run_spec: dict, *, depth_lines: int, digest: str, read_region: str,
                  simulator: str, seed: int, build_root: Path, error_text: str,
                  watchdog: int = 100_000, trace: Path | None = None,
                  keep: bool = False, plusargs: list[str] = (),
                  also_read: tuple[str, ...] = ()) -> DRAMRun:
    """Simulate the sim top ``make_top()`` builds (one with ``extra_sources``) on ``dram``;
    ``run_spec`` is the testbench's ``GRAPHGEN_RUN`` without its ``result_path``, or a
    function of the top's register map (its ``address_map``, an AXI top's) giving it. ``digest``
    stands for every parameter of the top: it is built and emitted once per process for each
    digest. ``seed`` seeds the DRAM's randomness and the design's stall throttles;
    ``watchdog`` is the hang limit in cycles (0: off). Raises :class:`RunFailure` when the
    design hangs, runs out of cycles or raises its error flag (``error_text`` says what that
    means). ``trace``: an FST file to dump the run's waveform to. The run's folder (the
    memory images, the cocotb run) is deleted afterwards unless ``keep`` or the simulator
    gave no results (the error names its log). ``plusargs`` go to the simulation beside the
    DRAM image's (the DRAM's timing: :meth:`sim.gateware.sim_memory.SimMemoryConfig.plusargs`).
    ``also_read`` names more regions to read back (``DRAMRun.extra``)."""
    if dram.total_lines > depth_lines:
        raise ConfigError(f"the graph needs {dram.total_lines} lines of simulated DRAM "
                          f"but it holds {depth_lines} (set --mem depth_lines=N)")
    verilog, extra_sources, link_names, address_map, clients, channels, srams = _verilog(
        make_top, top_name, digest)
    if callable(run_spec):
        run_spec = run_spec(address_map)
    start = time.perf_counter()
    runs = Path(build_root) / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{digest}-", dir=runs))
    kept = keep
    try:
        # Binary images: $fread/$fwrite are an order of magnitude faster than $readmemh here.
        init_path, dump_path = run_dir / "dram_init.bin", run_dir / "dram_dump.bin"
        traffic_path = run_dir / "dram_traffic.txt"
        dram.write_bin(init_path)
        image_seconds = time.perf_counter() - start
        result_path = run_dir / "result.json"
        spec = {**run_spec, "result_path": str(result_path.resolve()),
                "link_names": link_names, "watchdog": watchdog, "stall_seed": seed,
                "sram_counters": len(srams or [])}
        try:
            result = run_cocotb(verilog, top_name, test_module, simulator=simulator,
                                extra_sources=extra_sources, seed=seed,
                                env={"GRAPHGEN_RUN": json.dumps(spec)},
                                build_root=build_root, run_root=run_dir, keep=True,
                                plusargs=[f"+dram_init_bin={init_path.resolve()}",
                                          f"+dram_dump_bin={dump_path.resolve()}",
                                          f"+dram_traffic={traffic_path.resolve()}",
                                          f"+dram_seed={seed}", *plusargs], trace=trace)
        except SimulationError:
            kept = keep or any(run_dir.glob("run-*"))    # a simulator run's log to read
            raise
        outcome = json.loads(result_path.read_text()) if result_path.exists() else None
        if outcome is None or not result.passed:
            raise SimulationError(f"the RTL run did not complete: {result.summary()}")
        if outcome["hang"]:
            raise RunFailure(describe_hang(outcome, watchdog))
        if not outcome["finished"]:
            raise RunFailure(f"no result after {run_spec['max_cycles']} cycles (the watchdog "
                             f"saw links moving)\n" + _counter_lines(outcome))
        if outcome.get("memory_protocol_error"):
            raise RunFailure("the memory side failed: an AXI slave adapter took a burst it "
                             "does not serve, or a line past the DRAM's depth was asked for\n"
                             + _counter_lines(outcome))
        if outcome["error"]:
            raise RunFailure(f"the design raised its error flag: {error_text}\n" +
                             _counter_lines(outcome))
        start = time.perf_counter()
        base, count = dram.region(read_region)
        words = DRAMImage.read_hex_words(dump_path, base_line=base, count=count)
        traffic = _traffic(traffic_path, clients, channels)
        sram = None if srams is None else [
            dict(memory, reads=counts["reads"], writes=counts["writes"])
            for memory, counts in zip(srams, outcome.get("sram", []))]
        extra = {}
        for name in also_read:
            base, count = dram.region(name)
            extra[name] = DRAMImage.read_hex_words(dump_path, base_line=base, count=count)
    except RunFailure as failure:
        if keep:
            raise RunFailure(f"{failure}\n  kept {run_dir}") from None
        raise
    finally:
        if not kept:
            shutil.rmtree(run_dir, ignore_errors=True)
    result.run_dir = run_dir if keep else None
    return DRAMRun(outcome, result, words, image_seconds, time.perf_counter() - start,
                   run_dir if keep else None, extra, traffic, sram)


def _traffic(path: Path, clients, channels: int) -> MemoryTraffic:
    """The DRAM's count of the lines each tag moved; with ``clients`` None (the tags are an
    AXI master's IDs) every tag of a channel counts as one client, ``bus``."""
    traffic = read_traffic(path, clients or (), channels)
    return traffic if clients is not None else traffic.as_one_client("bus")


def memory_for(config, memory, what: str):
    """The simulated memory of a run: ``memory``, or the default one with as many channels as
    ``config.memory_channels``; refused, with one line, when the channels differ (``what``:
    the design, as the message names it)."""
    from sim.gateware.sim_memory import SimMemoryConfig
    memory = memory or SimMemoryConfig(channels=config.memory_channels)
    if memory.channels != config.memory_channels:
        raise ConfigError(f"{what} has memory_channels={config.memory_channels} but the "
                          f"simulated memory has channels={memory.channels}; they must be "
                          f"equal")
    return memory


def sim_top_for(sim_top, config, memory, run, top_name: str):
    """``(make_top, top_name, top_digest)`` of a run of the design whose internal-port sim
    top is the class ``sim_top`` (a :class:`~sim.gateware.register_top.RegisterSimTop` with
    a static ``parts(config)``): on ``run.bus`` ``native`` that top, on ``axi`` the design
    through its AXI top (:class:`sim.gateware.axi_sim_top.AXISimTop`) with ``run.axi``'s
    parameters, named ``<top_name>`` with ``_axi`` before ``_sim``."""
    if run.bus == "native":
        return (lambda: sim_top(config, memory)), top_name, None
    from sim.gateware.axi_sim_top import AXISimTop
    axi = dict(sorted((run.axi or {}).items()))
    return ((lambda: AXISimTop(**sim_top.parts(config), memory=memory, axi=axi)),
            top_name.removesuffix("_sim") + "_axi_sim",
            "axi-" + "-".join(f"{key}{value}" for key, value in axi.items()))


def run_register_design(make_top, top_name: str, config, memory, dram: DRAMImage,
                        registers: dict[str, int], register_names, counters, *,
                        max_cycles: int, watchdog: int | None = None,
                        top_digest: str | None = None, iteration_counter: str | None = None,
                        bus: str = "native", **options) -> DRAMRun:
    """:func:`run_with_dram` for a design run through registers
    (:class:`sim.gateware.register_top.RegisterSimTop`): ``registers`` (name to value) written at
    the addresses of ``register_names``, ``counters`` read at the end; the build keyed by the
    configuration's and the memory's digests, and ``top_digest`` when the top adds something
    of its own (a synthesized netlist, the AXI top's parameters). ``watchdog``: the hang
    limit, if not the configuration's. ``iteration_counter``: the counter (one of
    ``counters``) that marks an iteration's end; the outcome's ``iteration_snapshots`` then
    holds the counters at each of its changes (:func:`sim.iterations.per_iteration` makes
    figures of them). ``bus``: ``native``, or ``axi`` for a top from :func:`sim_top_for`
    reached over AXI4-Lite (``sim.tb.test_axi_run``: the registers and counters at their
    offsets in its register map; no iteration snapshots)."""
    if bus == "axi":
        def spec(address_map):
            offsets = {(entry.kind, entry.field): entry.offset for entry in address_map}
            control = next(entry.offset for entry in address_map if entry.kind == "control")
            return {"registers": [[offsets["config", name], value]
                                  for name, value in registers.items()],
                    "counters": [[name, offsets["counter", name]] for name in counters],
                    "control": control, "max_cycles": max_cycles}
        test_module, run_spec = "sim.tb.test_axi_run", spec
    else:
        addresses = {name: address for address, name in enumerate(register_names)}
        test_module = "sim.tb.test_register_run"
        run_spec = {"registers": [[addresses[name], value]
                                  for name, value in registers.items()],
                    "counters": list(counters), "max_cycles": max_cycles,
                    "iteration_counter": iteration_counter}
    return run_with_dram(make_top, top_name, test_module, dram, run_spec,
                         depth_lines=memory.depth_lines,
                         digest="-".join(filter(None, [config.run_digest(), memory.build_digest(),
                                                       top_digest])),
                         plusargs=memory.plusargs(),
                         watchdog=config.watchdog if watchdog is None else watchdog, **options)


IDLE_HANG = "none waiting on a sink (every link idle: a stage waits for input that never comes)"


def describe_hang(outcome: dict, watchdog: int) -> str:
    """What a hung run looked like: the stalled stages, each link's handshake, the counters.

    A link showing ``valid`` but not ``ready`` waits on its sink; the stalled stage is such a
    sink that is not itself waiting to hand a word on over another stalled link."""
    links = outcome["links"]
    blocked = [link["link"] for link in links if link["valid"] and not link["ready"]]
    sources = {_block(_ends(name)[0]) for name in blocked}
    culprits = {_block(_ends(name)[1]) for name in blocked} - sources
    # A stream as a whole (``dst0``, the crossbar's sink) is no culprit when a stage inside
    # it is waiting too.
    culprits = sorted(c for c in culprits
                      if not any(other.startswith(c + ".") for other in sources | culprits))
    lines = [f"the design hung: no stream link moved for {watchdog} cycles "
             f"(stopped at cycle {outcome['sim_cycles']}); stalled stage: "
             f"{', '.join(culprits) if culprits else IDLE_HANG}"]
    lines += [f"  {link['link']:<40} valid={int(link['valid'])} ready={int(link['ready'])}"
              + ("  <- waits on its sink" if link["link"] in blocked else "")
              for link in links]
    return "\n".join(lines) + "\n" + _counter_lines(outcome)


def _ends(name: str) -> tuple[str, str]:
    """A link's source and sink blocks. A Graphicionado stream's links carry its name
    (``dst0.fifo_p3->process_edge``): both ends are in that stream."""
    source, sink = name.split("->")[0], name.split("->")[-1]
    stream_ = re.match(r"(src|dst)\d+\.", name)
    if stream_ and not sink.startswith(stream_.group(0)) and \
            sink not in ("crossbar", "interconnect"):
        sink = stream_.group(0) + sink
    return source, sink


def _block(end: str) -> str:
    """The block at one end of a link name: ``engine0.hdtl.edges`` -> ``engine0.hdtl``."""
    parts = end.split(".")
    return ".".join(parts[:2]) if re.match(r"(engine|src|dst)\d+$", parts[0]) and \
        len(parts) > 1 else parts[0]


def _counter_lines(outcome: dict) -> str:
    counters = outcome.get("counters", {})
    return "  counters: " + ", ".join(f"{name} {value}" for name, value in counters.items())
