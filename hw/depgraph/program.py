"""The vertex program a DepGraph design runs, in its GAS form (Zhang et al., HPCA 2021, §II;
:mod:`graphgen.programs.gas`), and what the hub index (§III-A, §III-B) needs of it.

``algo`` is a built-in program's name or ``path/to/file.py:ClassName``
(:func:`graphgen.programs.load_program`). The datapath is a 32-bit word per vertex, with one
comparator for a selective Accum: min Accum is built as is; max Accum as min on the
complemented words (max(a, b) = ~min(~a, ~b); its identity 0 is min's 0xFFFFFFFF), the
processing element complementing x before EdgeCompute and the result after it, and the host
complementing the initial words and the final states (:func:`stored`). The sum Accum is FP32.

The hub-index blocks take mu and eps from the form: a min Accum's walk carries y and adds
EdgeCompute's eps (a constant or the edge's weight; mu = 1), a sum Accum's walk multiplies
by the per-source constant (EdgeCompute = x · src_const: mu = src_const, eps = 0), which is
also what lets a pseudo-edge's -x pass the processing element's one multiplier unchanged.
"""

from __future__ import annotations

import functools

import numpy as np

from graphgen.programs import ProgramError, load_program
from graphgen.programs.expr import Const, Op, Operand
from graphgen.programs.gas import GasForm, gas_form
from hw.lib.arith.integer import saturating_add
from hw.lib.config import ConfigError

__all__ = ["gas_of", "hub_index_refusal", "is_product", "edge_value", "stored"]


def gas_of(algo: str) -> GasForm:
    """The GAS form of the program ``algo`` names (a file is read again each time: it may
    have changed); ConfigError of one line naming it."""
    if not isinstance(algo, str):
        raise ConfigError(f"algo must be a program name or path/to/file.py:ClassName, not "
                          f"{algo!r}")
    return _form(algo) if ".py:" in algo else _built_in(algo)


@functools.lru_cache(maxsize=None)
def _built_in(algo: str) -> GasForm:
    return _form(algo)


def _form(algo: str) -> GasForm:
    try:
        return gas_form(load_program(algo))
    except ProgramError as error:
        raise ConfigError(f"algo {algo}: {error}") from None


def is_product(form: GasForm) -> bool:
    """EdgeCompute is ``x · src_const`` (either order)."""
    e = form.edge_compute
    return isinstance(e, Op) and e.name == "fmul" and \
        {getattr(a, "role", None) for a in e.args} == {"x", "src_const"}


def _min_eps(form: GasForm):
    """eps of a linear min EdgeCompute when it is a constant or the weight, else None."""
    eps = form.linearity.eps
    if isinstance(eps, Const) or (isinstance(eps, Operand) and eps.role == "weight"):
        return eps
    return None


def hub_index_refusal(form: GasForm) -> str:
    """Why the hub index cannot run ``form`` ("" when it can)."""
    linearity = form.linearity
    if not linearity.linear:
        return linearity.reason
    if form.accum == "max":
        return "the hub index is built for min and sum Accum, not max"
    if form.accum == "min" and _min_eps(form) is None:
        return (f"the walk adds eps to its path value, built from a constant or the edge "
                f"weight, not from the EdgeCompute of {form.name}")
    if form.accum == "sum" and not is_product(form):
        return (f"the walk multiplies its path value by the per-source constant: EdgeCompute "
                f"must be x * src_const")
    return ""


def edge_value(form: GasForm, yc, weight):
    """EdgeCompute of a path value over an edge, from its edge-independent part yc (the
    walk's value times the constant for a sum Accum: then nothing is left to add)."""
    if form.accum == "sum":
        return yc
    eps = _min_eps(form)
    if eps is None:
        raise ConfigError(f"HubTracker: {hub_index_refusal(form)}")
    return saturating_add(yc, weight if isinstance(eps, Operand) else eps.value)


def stored(form: GasForm, words: np.ndarray) -> np.ndarray:
    """uint32 words as the datapath keeps them (max Accum: complemented); applied twice,
    the values back."""
    words = np.asarray(words, dtype=np.uint32)
    return ~words if form.accum == "max" else words
