"""The memory roofline of a run: the lines each memory client read and wrote, as the
simulated DRAM counted them by tag (``+dram_traffic``), turned into bytes per unit of work
(an edge processed, or an operation) by kind of data, the share of the memory's peak
bandwidth the run used, and the bound that bandwidth sets on work per cycle at that traffic.

Every request moves one 64-byte line whatever its byte mask, as the DRAM model charges it, so
the bytes here are lines times 64: the traffic the memory carried, not the bytes the design
wanted.
"""

import dataclasses
import re
from pathlib import Path

from sim.dram_image import LINE_BYTES


__all__ = ["KINDS", "MemoryTraffic", "sum_lines", "read_traffic", "client_kind", "roofline",
           "roofline_lines"]

# What a client's lines hold, in the order reports list them.
KINDS = ("edges", "tables", "source properties", "destination properties",
         "vertex properties", "frontier", "write-back", "operations", "other")


def sum_lines(counts) -> dict:
    """``(key, (reads, writes))`` pairs summed by key, in the order keys first appear."""
    totals: dict = {}
    for key, (reads, writes) in counts:
        have_reads, have_writes = totals.get(key, (0, 0))
        totals[key] = (have_reads + reads, have_writes + writes)
    return totals


@dataclasses.dataclass(frozen=True)
class MemoryTraffic:
    """Lines read and written, per memory channel and client (``clients``: the names in tag
    order, :attr:`hw.lib.registers.design.RegisterDesign.memory_clients`; a tag without a
    name is ``tag<k>``). ``lines`` maps ``(channel, tag)`` to ``(reads, writes)``."""
    clients: tuple[str, ...]
    channels: int
    lines: dict

    def client_name(self, tag: int) -> str:
        return self.clients[tag] if tag < len(self.clients) else f"tag{tag}"

    def __add__(self, other: "MemoryTraffic") -> "MemoryTraffic":
        """Two runs of one design together (the BFS engine's roots)."""
        if other.clients != self.clients or other.channels != self.channels:
            raise ValueError("traffic of different designs cannot be added")
        lines = sum_lines([*self.lines.items(), *other.lines.items()])
        return MemoryTraffic(self.clients, self.channels, lines)

    def as_one_client(self, name: str) -> "MemoryTraffic":
        """This traffic with every tag of a channel counted as one client, ``name``."""
        lines = sum_lines(((channel, 0), moved) for (channel, _), moved in self.lines.items())
        return MemoryTraffic((name,), self.channels, lines)

    def per_client(self) -> dict[str, tuple[int, int]]:
        """Lines read and written by each client, every channel together."""
        return sum_lines((self.client_name(tag), moved)
                         for (_, tag), moved in sorted(self.lines.items()))

    def per_channel(self) -> list[tuple[int, int]]:
        """Lines read and written on each channel, every client together."""
        totals = sum_lines((channel, moved) for (channel, _), moved in self.lines.items())
        return [totals.get(channel, (0, 0)) for channel in range(self.channels)]


def read_traffic(path: Path, clients, channels: int) -> MemoryTraffic:
    """The DRAM model's ``+dram_traffic`` file: one ``channel tag reads writes`` line per
    pair that moved a line."""
    lines = {}
    for text in Path(path).read_text().split("\n"):
        if text.strip():
            channel, tag, reads, writes = (int(field) for field in text.split())
            lines[(channel, tag)] = (reads, writes)
    return MemoryTraffic(tuple(clients), channels, lines)


def client_kind(name: str, kinds: dict[str, str]) -> str:
    """The kind of data client ``name`` moves: ``kinds`` names it by the client's name with
    its stream, engine or lane numbers taken out (``src0.edge_read`` as ``src.edge_read``);
    a client it does not name is ``other``."""
    return kinds.get(re.sub(r"\d+", "", name), "other")


def roofline(traffic: MemoryTraffic, kinds: dict[str, str], work: int, cycles: int,
             bytes_per_cycle: float, unit: str = "edge") -> dict:
    """The run's roofline figures. ``work``: edges processed (or operations, ``unit``) in
    ``cycles``; ``bytes_per_cycle``: one channel's peak.

    ``bytes`` and ``bytes_per_<unit>`` split by kind into read and written; ``clients`` the
    lines of each client; ``channels`` each channel's bytes and its ``share`` of the peak over
    the run's cycles; ``share`` the whole memory's; ``bound_<unit>s_per_cycle`` the work per
    cycle at which the busiest channel would carry its peak with this traffic per unit of
    work (``peak x work / its bytes``), beside the measured ``<unit>s_per_cycle``."""
    by_kind: dict[str, list[int]] = {}
    clients = {}
    for name, (reads, writes) in traffic.per_client().items():
        kind = client_kind(name, kinds)
        totals = by_kind.setdefault(kind, [0, 0])
        totals[0] += reads * LINE_BYTES
        totals[1] += writes * LINE_BYTES
        clients[name] = {"kind": kind, "lines_read": reads, "lines_written": writes}
    ordered = [kind for kind in KINDS if kind in by_kind]
    channel_bytes = [(reads + writes) * LINE_BYTES for reads, writes in traffic.per_channel()]
    total = sum(channel_bytes)
    peak = bytes_per_cycle * traffic.channels

    def per_work(value):
        return value / work if work else None

    busiest = max(channel_bytes) if channel_bytes else 0
    return {
        "unit": unit, "work": work, "cycles": cycles,
        "peak_bytes_per_cycle": peak,
        "bytes": {"read": sum(by_kind[k][0] for k in ordered),
                  "written": sum(by_kind[k][1] for k in ordered),
                  "by_kind": {k: {"read": by_kind[k][0], "written": by_kind[k][1]}
                              for k in ordered}},
        f"bytes_per_{unit}": {
            "total": per_work(total),
            "by_kind": {k: {"read": per_work(by_kind[k][0]), "written": per_work(by_kind[k][1])}
                        for k in ordered}},
        "channels": [{"bytes": value,
                      "share": value / (bytes_per_cycle * cycles) if cycles else None}
                     for value in channel_bytes],
        "share": total / (peak * cycles) if cycles else None,
        f"{unit}s_per_cycle": work / cycles if cycles else None,
        f"bound_{unit}s_per_cycle": bytes_per_cycle * work / busiest if busiest else None,
        "clients": clients,
    }


def roofline_lines(figures: dict) -> list[str]:
    """The roofline as ``graphgen sim`` prints it."""
    unit = figures["unit"]
    per = figures[f"bytes_per_{unit}"]
    if per["total"] is None:
        return [f"{'roofline':<11} no {unit}s processed"]
    parts = []
    for way in ("read", "written"):
        moved = [f"{kind} {value[way]:.1f}" for kind, value in per["by_kind"].items()
                 if value[way]]
        if moved:
            parts.append(f"{way} " + ", ".join(moved))
    shares = "/".join(f"{channel['share']:.1%}" for channel in figures["channels"])
    bound = figures[f"bound_{unit}s_per_cycle"]
    achieved = figures[f"{unit}s_per_cycle"]
    return [
        f"{'traffic':<11} {per['total']:.1f} bytes per {unit}: " + "; ".join(parts),
        f"{'bandwidth':<11} {figures['share']:.1%} of the peak "
        f"{figures['peak_bytes_per_cycle']:g} bytes a cycle used (per channel {shares})",
        f"{'roofline':<11} {achieved:.3f} {unit}s per cycle against a bound of "
        f"{bound:.3f} at this traffic ({achieved / bound:.0%} of it)",
    ]
