"""``graphgen golden --model M``: DepGraph's execution models from the command line.

Runs one of the golden models DepGraph (Zhang et al., HPCA 2021) is measured with, on the same
delta GAS algorithm (:mod:`golden.depgraph.gas`), and reports its vertex updates:

* ``depgraph`` -- the dependency-driven engines (:func:`golden.depgraph.run_depgraph`);
* ``sync`` -- the bulk-synchronous frontier push (:func:`golden.depgraph.run_sync_baseline`);
* ``ligra`` -- the paper's baseline Ligra-o, asynchronous with T threads
  (:func:`golden.depgraph.run_ligra_baseline`);
* ``bfs`` -- the BFS engine's model (Enterprise's direction-optimising BFS with the hub
  cache, :func:`golden.bfs.run_bfs`): levels, parents and its counters per level.

``--set`` takes the model's parameters; a key the model does not have is refused.
"""

from __future__ import annotations

import math

from hw.lib.config import ConfigError, parse_value

__all__ = ["MODELS", "model_settings", "run_model", "model_figures", "settings_help"]

MODELS = ("depgraph", "sync", "ligra", "bfs")

def _integer(key, text):
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"--set {key}={text}: not an integer") from None


def _number(key, text):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--set {key}={text}: not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"--set {key}={text}: not a finite number")
    return value


def _switch(key, text):
    try:
        return parse_value(bool, key, text)         # the words every --set takes for a bool
    except ConfigError:
        raise ValueError(f"--set {key}={text}: expected on or off") from None


def _direction(key, text):
    if text not in ("auto", "topdown", "bottomup"):
        raise ValueError(f"--set {key}={text}: expected auto, topdown or bottomup")
    return text


def _limit(key, text):
    """An integer, or none/off for no limit."""
    return None if text.lower() in ("none", "off") else _integer(key, text)


def _indegree_limit(key, text):
    return "auto" if text.lower() == "auto" else _limit(key, text)


_KEYS = {
    "depgraph": {"engines": _integer, "stack_depth": _integer, "hub_index": _switch,
                 "lam": _number, "beta": _number, "tolerance": _number, "seed": _integer,
                 "queue_capacity": _integer, "max_path_len": _integer,
                 "walk_max_indegree": _indegree_limit, "walks": _integer,
                 "hub_sample_min": _integer, "leave_max_edges": _limit},
    "sync": {"tolerance": _number, "max_iters": _integer},
    "ligra": {"threads": _integer, "visibility": _integer, "tolerance": _number,
              "max_iters": _integer},
    "bfs": {"lanes": _integer, "direction": _direction, "tau": _integer,
            "gamma_percent": _number, "tail_beta": _integer, "hub_cache": _switch,
            "hub_cache_entries": _integer, "middle_degree": _integer,
            "large_degree": _integer, "extreme_degree": _integer},
}


def settings_help() -> str:
    """The ``--set`` keys of each model, for the command line's help."""
    return "; ".join(f"{model}: {', '.join(keys)}" for model, keys in _KEYS.items())


def model_settings(model: str, algo: str, sets: dict[str, str]) -> dict:
    """The keyword arguments of ``model``'s run from ``--set`` pairs (ValueError if bad)."""
    if model not in MODELS:
        raise ValueError(f"--model must be one of {', '.join(MODELS)}, not {model!r}")
    if model == "bfs" and algo != "bfs":
        raise ValueError(f"--model bfs runs bfs, not {algo}")
    gas = None
    if model != "bfs":
        from golden.depgraph.gas import get_algorithm
        gas = get_algorithm(algo)        # a program without a GAS form: ValueError, one line
    keys = _KEYS[model]
    settings = {}
    for key, text in sets.items():
        if key not in keys:
            raise ValueError(f"--set {key}: model {model} takes {', '.join(sorted(keys))}")
        settings[key] = keys[key](key, text)
    if "tolerance" in settings and (gas is None or gas.selective):
        raise ValueError(f"--set tolerance: a program that accumulates with a sum has a "
                         f"tolerance (pagerank), not {algo}")
    return settings


def run_model(model: str, algo: str, graph, root, settings: dict):
    """Run the model; its result (states and ``counters``)."""
    from golden.depgraph import run_depgraph, run_ligra_baseline, run_sync_baseline
    run = {"depgraph": run_depgraph, "sync": run_sync_baseline,
           "ligra": run_ligra_baseline}[model]
    from golden.depgraph.gas import get_algorithm
    if root is not None or get_algorithm(algo).needs_root:
        settings = {"root": root, **settings}
    return run(algo, graph, **settings)


def model_figures(model: str, result) -> dict:
    """The figures the report prints: updates, edges, rounds and the model's own."""
    c = result.counters
    figures = {"vertex_updates": c.vertex_updates, "edges_fetched": c.edges_fetched,
               "rounds": c.rounds, "converged": bool(result.converged)}
    if model == "ligra":
        figures.update(threads=result.threads, visibility=result.visibility,
                       steps=result.steps,
                       thread_utilisation=round(result.thread_utilisation, 4),
                       degree_weighted_utilisation=round(result.degree_weighted_utilisation, 4))
    if model == "depgraph":
        h = result.hub_stats
        figures.update(shortcuts=result.shortcuts, shortcut_uses=c.shortcut_uses,
                       stack_overflows=c.stack_overflows, pseudo_edges=c.pseudo_edges,
                       hubs=h.num_hubs, core_paths=h.core_paths,
                       index_entries=h.index_entries, entries_available=h.entries_available,
                       parameters=dict(result.params))
        if not result.shortcuts:
            figures["shortcut_reason"] = result.shortcut_reason
    return figures
