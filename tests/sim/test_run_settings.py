"""The four designs' hosts share one entry point, ``simulate(graph, config, memory=None,
run=RunSettings())``, and :class:`sim.run_settings.RunSettings` refuses bad settings, and
settings a design does not take, with one line. Nothing here builds or simulates: every
refusal comes before the Verilog is emitted."""

import dataclasses
import inspect

import pytest

import golden
from golden.dyngraph import generate_updates
from hw.bfs.config import BfsConfig
from hw.depgraph.config import DepGraphConfig
from hw.dyngraph.config import DynGraphConfig
from hw.graphicionado.config import GraphicionadoConfig
from hw.lib.config import ConfigError
from sim.bfs import run as bfs_run
from sim.depgraph import run as depgraph_run
from sim.dyngraph import run as dyngraph_run
from sim.gateware.sim_memory import SimMemoryConfig
from sim.graphicionado import run as graphicionado_run
from sim.report import SimReport
from sim.run_settings import COMMON_SETTINGS, DESIGN_SETTINGS, RunSettings

RUNS = {"bfs": (bfs_run, BfsConfig, bfs_run.BfsReport),
        "depgraph": (depgraph_run, DepGraphConfig, depgraph_run.DepGraphReport),
        "dyngraph": (dyngraph_run, DynGraphConfig, dyngraph_run.DynGraphReport),
        "graphicionado": (graphicionado_run, GraphicionadoConfig,
                          graphicionado_run.GraphicionadoReport)}

GRAPH = "grid:rows=3,cols=4"


def test_the_four_simulate_functions_have_one_signature():
    for design, (module, config_class, report_class) in RUNS.items():
        signature = inspect.signature(module.simulate)
        assert [(p.name, p.kind, p.default) for p in signature.parameters.values()] == [
            ("graph", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
            ("config", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
            ("memory", inspect.Parameter.POSITIONAL_OR_KEYWORD, None),
            ("run", inspect.Parameter.POSITIONAL_OR_KEYWORD, RunSettings())], design
        parameters = signature.parameters
        assert parameters["graph"].annotation is golden.Graph, design
        assert parameters["config"].annotation is config_class, design
        assert parameters["memory"].annotation == SimMemoryConfig | None, design
        assert parameters["run"].annotation is RunSettings, design
        assert signature.return_annotation is report_class, design


def test_the_reports_share_the_base():
    shared = {field.name for field in dataclasses.fields(SimReport)}
    assert {"graph", "num_vertices", "num_edges", "counters", "first_mismatch",
            "wall_seconds", "simulator", "build_cached", "run_dir"} <= shared
    for design, (_, _, report_class) in RUNS.items():
        assert issubclass(report_class, SimReport), design
        assert not inspect.isabstract(report_class), design
        for name in ("matches", "figures", "cycles"):
            assert isinstance(inspect.getattr_static(report_class, name), property), \
                (design, name)
    with pytest.raises(TypeError, match="abstract"):
        SimReport(graph="", num_vertices=0, num_edges=0, counters={}, first_mismatch=None,
                  wall_seconds={}, simulator="verilator", build_cached=False)


def test_every_setting_belongs_to_a_design_or_to_all():
    names = {field.name for field in dataclasses.fields(RunSettings)}
    taken = set(COMMON_SETTINGS).union(*DESIGN_SETTINGS.values())
    assert taken == names
    assert set(DESIGN_SETTINGS) == set(RUNS)
    # The docstring says which design takes each setting.
    for name in names:
        assert f"``{name}``" in RunSettings.__doc__, name


# (design, a setting it does not take, set away from its default).
FOREIGN = [("bfs", {"iters": 3}), ("bfs", {"slices": 2}), ("bfs", {"batch": 4}),
           ("bfs", {"tolerance": 1e-3}), ("depgraph", {"iters": 3}),
           ("depgraph", {"compact_vertices": 8}), ("dyngraph", {"root": 1}),
           ("dyngraph", {"algo": "bfs"}), ("graphicionado", {"hub_sample_min": 1}),
           ("graphicionado", {"batch": 4})]


@pytest.mark.parametrize("design, setting", FOREIGN,
                         ids=[f"{d}-{next(iter(s))}" for d, s in FOREIGN])
def test_a_setting_the_design_does_not_take_is_refused(design, setting):
    name = next(iter(setting))
    with pytest.raises(ConfigError, match=f"the {design} simulation does not take {name} "):
        RunSettings(**setting).check(design)
    # Before anything is built: simulate refuses it the same way.
    module, config_class, _ = RUNS[design]
    with pytest.raises(ConfigError, match=f"does not take {name} "):
        module.simulate(golden.from_spec(GRAPH), config_class(), None, RunSettings(**setting))


def test_a_setting_left_at_its_default_is_not_refused():
    for design in RUNS:
        assert RunSettings().check(design) == RunSettings()
    # Given, but equal to the default: nothing to refuse.
    assert RunSettings(tolerance=1e-6, compact_vertices=0).check("bfs")


def test_each_design_refuses_a_run_it_cannot_do():
    graph = golden.from_spec(GRAPH)
    with pytest.raises(ConfigError, match="the bfs design runs bfs, not sssp"):
        bfs_run.simulate(graph, BfsConfig(), run=RunSettings(algo="sssp"))
    with pytest.raises(ConfigError, match="configured for bfs, not pagerank"):
        depgraph_run.simulate(graph, DepGraphConfig(algo="bfs", bank_vertices=256),
                              run=RunSettings(algo="pagerank"))
    with pytest.raises(ConfigError, match="configured for bfs, not sssp"):
        graphicionado_run.simulate(graph, GraphicionadoConfig(algo="bfs"),
                                   run=RunSettings(algo="sssp"))
    with pytest.raises(ConfigError, match="needs its operations"):
        dyngraph_run.simulate(graph, DynGraphConfig())
    with pytest.raises(ConfigError, match="root 99 is not a vertex"):
        bfs_run.simulate(graph, BfsConfig(), run=RunSettings(root=99))


BAD = [({"simulator": "questa"}, "simulator must be one of verilator, icarus"),
       ({"seed": 1.5}, "seed must be an integer"),
       ({"max_cycles": 0}, "max_cycles must be an integer from 1"),
       ({"root": -1}, "root must be an integer from 0"),
       ({"root": True}, "root must be an integer from 0"),
       ({"iters": -2}, "iters must be an integer from 0"),
       ({"slices": "2"}, "slices must be an integer"),
       ({"batch": 2.0}, "batch must be an integer"),
       ({"compact_vertices": -1}, "compact_vertices must be an integer from 0"),
       ({"hub_sample_min": 0}, "hub_sample_min must be an integer from 1"),
       ({"tolerance": 0}, "tolerance must be a positive number"),
       ({"hub_lam": -0.1}, "hub_lam must be a positive number"),
       ({"cf": {"gamma": 0.01, "K": 8}}, "cf takes gamma, lam, seed, init_scale, not K"),
       ({"sim_top": ("not a function", "digest")}, "sim_top must be"),
       ({"overlay": [1, 2]}, "overlay must map region names to words, not list")]


@pytest.mark.parametrize("settings, message", BAD, ids=[next(iter(s)) for s, _ in BAD])
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ConfigError, match=message) as error:
        RunSettings(**settings)
    assert "\n" not in str(error.value)


def test_good_settings_are_kept():
    updates = generate_updates("mix:ops=10,seed=1", golden.from_spec(GRAPH), 16)
    run = RunSettings(updates=updates, batch=4, compact_vertices=12, seed=7, keep=True)
    assert run.check("dyngraph") is run
    assert dataclasses.replace(run, batch=None).batch is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.seed = 2
    assert RunSettings(algo="cf", iters=2, cf={"gamma": 0.01},
                       sim_top=(lambda config, memory: None, "x")).check("graphicionado")
