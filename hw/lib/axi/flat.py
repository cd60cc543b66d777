"""Flat ports for a bus interface: a top's members named ``<prefix>_<member>``
(``m_axi_awaddr``, ``s_axil_wdata``) instead of a group that Amaranth would emit as
``m_axi__awaddr``, so the Verilog's port names are the ones Vivado's interface inference and
FuseSoC users expect."""

from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from hw.lib.config import ConfigError


__all__ = ["flat_members", "connect_flat"]


def flat_members(signature: wiring.Signature, prefix: str, *,
                 flipped: bool = False) -> dict[str, wiring.Member]:
    """``signature``'s port members as ``{f"{prefix}_{name}": member}`` (flipped for the
    slave's side of a bus); ConfigError if a member is itself a signature."""
    members = {}
    for name, member in signature.members.items():
        if member.is_signature:
            raise ConfigError(f"flat_members: {name} of {signature!r} is not a port")
        members[f"{prefix}_{name}"] = member.flip() if flipped else member
    return members


def connect_flat(m, owner, prefix: str, interface) -> None:
    """Join ``owner``'s flat ports ``<prefix>_<name>`` to ``interface``'s members: a member
    the interface drives drives the port, and the other way round."""
    for name, member in interface.signature.members.items():
        port, inner = getattr(owner, f"{prefix}_{name}"), getattr(interface, name)
        m.d.comb += port.eq(inner) if member.flow == Out else inner.eq(port)
