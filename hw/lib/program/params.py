"""A program's run-time parameters as one port: the :class:`~graphgen.programs.Param` values
its datapaths read, gathered into a struct that a design drives from its registers and hands
down to every component holding one of those datapaths."""

from __future__ import annotations

from amaranth.lib import data
from amaranth.lib.wiring import In

from graphgen.programs.expr import Param, walk

from .datapath import Datapath, _bits, shape_of

__all__ = ["params_of", "params_layout", "params_member", "drive_params"]


def params_of(*exprs) -> dict[str, Param]:
    """Each parameter read by ``exprs`` (None skipped), by name, in name order."""
    found = {node.name: node for expr in exprs if expr is not None
             for node in walk(expr) if isinstance(node, Param)}
    return dict(sorted(found.items()))


def params_layout(params: dict[str, Param]) -> data.StructLayout:
    """One field a parameter, of its type's bits."""
    return data.StructLayout({name: shape_of(param.type) for name, param in params.items()})


def params_member(params: dict[str, Param]) -> dict:
    """``{"params": In(layout, init=defaults)}``, or nothing when there are no parameters:
    left undriven, each field is its parameter's default."""
    if not params:
        return {}
    init = {name: _bits(param.default, param.type) for name, param in params.items()}
    return {"params": In(params_layout(params), init=init)}


def drive_params(m, source, *targets) -> None:
    """Drive each target's parameters from the struct ``source``: a :class:`Datapath`'s
    ``In`` members of its parameters' names, or a component's ``params`` struct."""
    for target in targets:
        if isinstance(target, Datapath):
            m.d.comb += [getattr(target, name).eq(source[name]) for name in target.params]
        elif hasattr(target, "params"):
            m.d.comb += [target.params[name].eq(source[name])
                         for name in target.params.shape().members]
