"""Checks of a run's memory traffic (:mod:`sim.traffic`) that every design's RTL tests share."""

from sim.traffic import client_kind


def check_traffic(report, kinds: dict[str, str]):
    """The DRAM's count of each client's lines adds up to the design's own counters of the
    requests its memory took, and every client of the design has a kind of data."""
    traffic = report.traffic
    assert traffic is not None
    per_client = traffic.per_client()
    assert sum(reads for reads, _ in per_client.values()) == report.counters["memory_reads"]
    assert sum(writes for _, writes in per_client.values()) == report.counters["memory_writes"]
    assert [name for name in traffic.clients if client_kind(name, kinds) == "other"
            and name != "stack"] == []
