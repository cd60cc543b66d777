"""Post-synthesis simulation: the ECP5 netlist (``synth.postsynth``) under the cocotb
testbenches, with Yosys's ECP5 cell models, in Verilator.

* the CAM: its own testbench (``sim.tb.test_cam``) on the netlist of ``cam``;
* the Graphicionado pipeline: :class:`NetlistSimTop` is :class:`GraphicionadoSimTop` with the
  synthesized netlist of :class:`~hw.graphicionado.top.GraphicionadoPipeline` (an
  ``Instance`` with the same port names: ``regs__addr``, ``control__start``,
  ``counters__cycles``, ``mem__req__valid``, ...) in place of the pipeline, beside the
  DRAM model; the run and its check against the golden model are
  :func:`sim.graphicionado.run.simulate`'s. The watchdog sees only the
  memory ports (the stream links inside the pipeline are gone in the netlist).
"""

import dataclasses
import json
from pathlib import Path

from amaranth.hdl import ClockSignal, Instance, Module, ResetSignal, Signal, Value
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import Flow, In, Out

from graphgen.designs import get_design
from hw.graphicionado.config import GraphicionadoConfig
from sim.graphicionado.top import GraphicionadoSimTop
from sim.gateware.sim_watch import memory_probes
from sim.harness import run_cocotb
from sim.run_settings import RunSettings
from synth.postsynth import DEFAULT_BUILD_ROOT, PostSynthNetlist, ecp5_cell_models, ecp5_netlist


__all__ = ["NetlistSimTop", "cam_netlist_test", "graphicionado_netlist",
           "simulate_graphicionado_netlist", "RegisteredReadRAM", "outreg_ram_test"]


class NetlistSimTop(GraphicionadoSimTop):
    """:class:`GraphicionadoSimTop` around the ECP5 netlist of the pipeline."""

    def __init__(self, config: GraphicionadoConfig, memory, netlist: PostSynthNetlist,
                 cell_models: list[Path]):
        if config.stall_injection:
            raise ValueError("post-synthesis simulation runs without stall injection")
        self._netlist = netlist
        self._cell_models = list(cell_models)
        super().__init__(config, memory)

    def _place(self, pipeline):
        signature = pipeline.signature
        pipeline._MustUse__silence = True     # for its ports only, never elaborated
        ports = signature.create(path=("pipeline",))
        # Amaranth names a top's ports by their member paths joined with "__"
        # (``control__start``, ``mem__0__req__valid`` for channel 0 of several memory
        # ports); Yosys keeps them, as well as ``clk`` and ``rst``.
        connections = {"i_clk": ClockSignal(), "i_rst": ResetSignal()}
        for path, member, value in signature.flatten(ports):
            name = "__".join(str(part) for part in path)
            direction = "i" if member.flow == Flow.In else "o"
            connections[f"{direction}_{name}"] = Value.cast(value)
        instance = Instance(self._netlist.top, **connections)
        return ports, instance, memory_probes(ports.mem)

    @property
    def extra_sources(self):
        return [*super().extra_sources, self._netlist.path, *self._cell_models]


def cam_netlist_test(config, *, options: dict | None = None, seed: int = 1,
                     simulator: str = "verilator", rewrite=None,
                     build_root: Path = DEFAULT_BUILD_ROOT):
    """The CAM's cocotb testbench on the ECP5 netlist of the CAM; returns ``(SimResult,
    PostSynthNetlist)``."""
    design = get_design("cam")
    netlist = ecp5_netlist(design.verilog(config), design.top(config), rewrite=rewrite,
                           build_root=build_root)
    env = {"GRAPHGEN_CONFIG": json.dumps(config.as_dict()),
           "GRAPHGEN_TEST_OPTIONS": json.dumps({"seed": seed, **(options or {})})}
    result = run_cocotb(netlist.text(), netlist.top, design.testbench, simulator=simulator,
                        seed=seed, env=env,
                        extra_sources=ecp5_cell_models(build_root, simulator))
    return result, netlist


def graphicionado_netlist(config: GraphicionadoConfig, *, rewrite=None,
                          build_root: Path = DEFAULT_BUILD_ROOT) -> PostSynthNetlist:
    """The ECP5 netlist of :class:`GraphicionadoPipeline` alone, as ``graphgen synth`` takes it."""
    design = get_design("graphicionado")
    return ecp5_netlist(design.verilog(config), design.top(config), rewrite=rewrite,
                        build_root=build_root)


def simulate_graphicionado_netlist(graph, config: GraphicionadoConfig, memory=None,
                                   run: RunSettings = RunSettings(), *, rewrite=None,
                                   build_root: Path = DEFAULT_BUILD_ROOT):
    """:func:`sim.graphicionado.run.simulate` (``memory``, ``run``: its own) on the
    pipeline's ECP5 netlist, the netlist and the cell models built under ``build_root``;
    returns ``(GraphicionadoReport, PostSynthNetlist)``."""
    from sim.graphicionado.run import simulate
    netlist = graphicionado_netlist(config, rewrite=rewrite, build_root=build_root)
    models = ecp5_cell_models(build_root, run.simulator)
    report = simulate(graph, config, memory, dataclasses.replace(run, sim_top=(
        lambda cfg, memory: NetlistSimTop(cfg, memory, netlist, models),
        f"ecp5-{netlist.build_dir.parent.name}-{netlist.build_dir.name}")))
    return report, netlist


class RegisteredReadRAM(wiring.Component):
    """A ``depth`` x ``width`` memory with a synchronous read port and a register behind it:
    the shape whose flip-flops ``synth.ecp5_outreg`` moves into the DP16KD's output register.
    Read data appears on the second clock edge after ``raddr``."""

    def __init__(self, depth: int = 512, width: int = 16):
        self.depth, self.width = depth, width
        abits = (depth - 1).bit_length()
        super().__init__({"we": In(1), "waddr": In(abits), "wdata": In(width),
                          "raddr": In(abits), "rdata": Out(width)})

    def elaborate(self, platform):
        m = Module()
        # Without no_rw_check Yosys puts a collision bypass between the RAM and the register.
        m.submodules.mem = mem = memory.Memory(shape=self.width, depth=self.depth, init=[],
                                               attrs={"no_rw_check": 1})
        write, read = mem.write_port(), mem.read_port()
        rdata = Signal(self.width, reset_less=True)
        m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.we),
                     read.addr.eq(self.raddr), self.rdata.eq(rdata)]
        m.d.sync += rdata.eq(read.data)
        return m


def outreg_ram_test(depth: int = 512, width: int = 16, *, cycles: int = 2000, seed: int = 1,
                    simulator: str = "verilator", rewrite=None,
                    build_root: Path = DEFAULT_BUILD_ROOT):
    """The testbench ``sim.tb.test_outreg_ram`` on the ECP5 netlist of a
    :class:`RegisteredReadRAM`; returns ``(SimResult, PostSynthNetlist)``."""
    from sim.harness import emit_verilog
    netlist = ecp5_netlist(emit_verilog(RegisteredReadRAM(depth, width), "outreg_ram"),
                           "outreg_ram", rewrite=rewrite, build_root=build_root)
    env = {"GRAPHGEN_TEST_OPTIONS": json.dumps({"seed": seed, "depth": depth, "width": width,
                                                "cycles": cycles})}
    result = run_cocotb(netlist.text(), netlist.top, "sim.tb.test_outreg_ram",
                        simulator=simulator, seed=seed, env=env,
                        extra_sources=ecp5_cell_models(build_root, simulator))
    return result, netlist
