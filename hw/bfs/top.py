"""The BFS engine: Enterprise's direction-optimising BFS (Liu & Huang, SC'15, §4) in hardware,
on one memory port shared through an arbiter.

Per level, the frontier queue (each lane's bins, class by class) is read back and each
vertex expanded top-down (:class:`TopDownCheck`: every out-edge's destination status read) or
bottom-up (:class:`BottomUpCheck`: in-neighbours searched for a parent, the hub cache first);
discoveries write their level and parent (:class:`DiscoveryWriter`), claim their hub bit
(gamma's count) and fill the hub cache. Between levels the next queue is generated: a scan
of the status array by the frontier generator's lanes into their bins (interleaved top-down,
blocked at the switch), or, bottom-up, the survivors the check wrote. The level controller
sequences it and keeps the level log. Before the first level a pass over the out-offsets
counts the hubs.

The status array is in memory, as Enterprise's is in GPU global memory: every status check
is a memory read, which is what the hub cache saves.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring

from hw.lib.busy import any_busy
from hw.lib.memory.interconnect import MemoryInterconnect
from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.memory.range_streamer import RangeStreamer, range_cmd_layout, range_out_layout
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.file import RegisterFile
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.broadcast import StreamBroadcast
from hw.lib.stream.select import StreamDemux
from hw.lib.stream.links import StreamLinks
from hw.bfs.bin_writer import BinWriter
from hw.bfs.bottom_up_check import BottomUpCheck, CheckItem
from hw.bfs.config import BfsConfig
from hw.bfs.discovery_writer import DiscoveryWriter
from hw.bfs.frontier_generator import FrontierGenerator
from hw.bfs.hub_bitmap import HubBitmap
from hw.bfs.hub_cache import HubCache
from hw.bfs.hub_pass import HubPass
from hw.bfs.layouts import Discovery, LaneEntry, LaneGroup
from hw.bfs.level_controller import LevelController
from hw.bfs.level_log import LevelLog
from hw.bfs.offset_lines import OffsetLines
from hw.bfs.pair_fetch import PairFetch
from hw.bfs.queue_reader import QueueReader
from hw.bfs.registers import COUNTERS, REGISTER_DESCRIPTION, REGISTERS
from hw.bfs.top_down_check import TopDownCheck
from hw.bfs.expand_dispatch import ExpandDispatch


__all__ = ["BfsEngine", "REGISTERS", "COUNTERS"]


def group_of_one(m, entries):
    """``entries`` (a stream of :data:`LaneEntry`) as a stream of groups of one entry."""
    groups = stream.Signature(LaneGroup).create()
    m.d.comb += [groups.valid.eq(entries.valid), entries.ready.eq(groups.ready),
                 groups.payload.entries[0].eq(entries.payload.entry),
                 groups.payload.valid.eq(1), groups.payload.cls.eq(entries.payload.cls),
                 groups.payload.lane.eq(entries.payload.lane)]
    return groups


class BfsEngine(RegisterDesign):
    """The members of :class:`~hw.lib.registers.design.RegisterDesign`: the registers
    :data:`REGISTERS`, the counters :data:`COUNTERS`."""

    CONFIG = BfsConfig

    def __init__(self, config: BfsConfig, *, throttle=None):
        super().__init__(config, registers=REGISTERS, counters=COUNTERS, throttle=throttle)

    def register_description(self):
        return REGISTER_DESCRIPTION

    def _blocks(self, m):
        cfg = self._config
        aw, lanes, writers = cfg.addr_width, cfg.lanes, cfg.queue_writers
        add = m.submodules
        # Every arbiter's grant is a register (``registered_grant``): none joins the
        # valid/ready chains of the blocks on its two sides into one path.
        b = {
            "regs": RegisterFile(REGISTERS),
            "control": LevelController(addr_width=aw, lanes=writers, direction=cfg.direction,
                                       gamma_percent=cfg.gamma_percent),
            "status_reader": RangeStreamer(addr_width=aw, item_words=WORDS_PER_LINE,
                                           window=cfg.scan_window),
            "offsets_reader": RangeStreamer(addr_width=aw, item_words=WORDS_PER_LINE,
                                            window=cfg.scan_window),
            "offset_lines": OffsetLines(),
            "offsets_cmds": StreamArbiter(range_cmd_layout(aw, 1), 2, registered_grant=True),
            "offsets_lines": StreamDemux(range_out_layout(WORDS_PER_LINE, 1), 2),
            "pair_fetch": PairFetch(addr_width=aw),
            "hub_pass": HubPass(tau=cfg.tau),
            "bitmap": HubBitmap(max_vertices=cfg.max_vertices),
            "generator": FrontierGenerator(lanes=lanes, thresholds=cfg.thresholds,
                                           scan_hits=cfg.scan_hits, depth=cfg.scan_window,
                                           on_demand=cfg.ranges_on_demand),
            "queue_reader": QueueReader(addr_width=aw, lanes=writers, window=cfg.read_window),
            "to_check": StreamDemux(LaneEntry, 2),
            "survivors": StreamDemux(LaneEntry, writers,
                                     route=(lambda p: p.lane[:4]) if writers > 1 else None),
            "discoveries": StreamArbiter(Discovery, 1 + 2 * cfg.expand_lanes,
                                         registered_grant=True),
            "writer": DiscoveryWriter(addr_width=aw),
            "log": LevelLog(addr_width=aw),
        }
        if cfg.expand_lanes > 1:
            b["dispatch"] = ExpandDispatch(lanes=cfg.expand_lanes,
                                           classified=cfg.dispatch == "classes")
            b["bu_dispatch"] = ExpandDispatch(lanes=cfg.expand_lanes, classified=False)
            b["bu_survivors"] = StreamArbiter(LaneEntry, cfg.expand_lanes,
                                              registered_grant=True)
            # Every bottom-up lane has its own copy of the hub cache, each filled with
            # every insert, so each looks up one neighbour a cycle.
            b["cache_inserts"] = StreamBroadcast(32, cfg.expand_lanes)
        for name, block in b.items():
            add[name] = block
        b["top_down"], b["bottom_up"], b["cache"] = [], [], []
        for lane in range(cfg.expand_lanes):
            add[f"top_down{lane}"] = check = TopDownCheck(
                addr_width=aw, window=cfg.read_window, outstanding=cfg.memory_outstanding)
            b["top_down"].append(check)
            add[f"bottom_up{lane}"] = search = BottomUpCheck(
                addr_width=aw, slots=cfg.bu_slots, outstanding=cfg.memory_outstanding)
            b["bottom_up"].append(search)
            add[f"cache{lane}"] = cache = HubCache(
                entries=cfg.hub_cache_entries if cfg.hub_cache else 0, ctx_width=CheckItem.size)
            b["cache"].append(cache)
        b["bins"] = []
        b["bin_inputs"] = []
        if writers == 1 and lanes > 1:
            # The flat queue: the lanes take turns at its one writer.
            add["shared_queue"] = b["shared_queue"] = StreamArbiter(
                LaneGroup, lanes, registered_grant=True)
        for lane in range(writers):
            add[f"bins{lane}"] = writer = BinWriter(addr_width=aw, lane=lane, lanes=writers)
            add[f"bin_input{lane}"] = merge = StreamArbiter(LaneGroup, 2,
                                                            registered_grant=True)
            b["bins"].append(writer)
            b["bin_inputs"].append(merge)
        return b

    def elaborate(self, platform):
        m = Module()
        cfg = self._config
        b = self._blocks(m)
        regs, control = b["regs"], b["control"]
        m.d.comb += [regs.addr.eq(self.regs.addr), regs.data.eq(self.regs.data),
                     regs.write.eq(self.regs.write)]
        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self._links = link
        self._wire_streams(m, b, link)
        self._wire_settings(m, b)
        clients = self._clients(b)
        self._memory_clients = [name for name, _, _ in clients]
        m.submodules.interconnect = interconnect = MemoryInterconnect(
            ports=len(clients), channels=cfg.memory_channels, addr_width=cfg.addr_width,
            outstanding=cfg.memory_outstanding,
            read_only=[index for index, (_, _, writes) in enumerate(clients) if not writes])
        for (name, client, _), port in zip(clients, interconnect.clients):
            link.port(client, port, name)
        channels = [self.mem] if cfg.memory_channels == 1 else list(self.mem)
        for channel, mem in zip(interconnect.channels, channels):
            wiring.connect(m, channel, wiring.flipped(mem))

        # Every block that holds a word reports it: with stalls injected, a word can wait at
        # a block's output while the link's throttle takes nothing.
        busy = [b[name].busy for name in ("status_reader", "offsets_reader", "offset_lines",
                                          "pair_fetch",
                                          "hub_pass", "generator", "queue_reader", "bitmap",
                                          "writer")]
        busy += [block.busy for block in
                 b["bins"] + b["top_down"] + b["bottom_up"] + b["cache"]]
        if "dispatch" in b:
            busy += [b["dispatch"].busy, b["bu_dispatch"].busy]
        m.d.comb += control.quiet.eq(~any_busy(busy, interconnect.busy, link.busy))
        m.d.comb += [control.start.eq(self.control.start), self.control.busy.eq(control.busy),
                     self.control.done.eq(control.done), self.control.error.eq(control.error)]
        self._counters(m, b, interconnect)
        return m

    def _wire_streams(self, m, b, link):
        lanes, writers = self._config.lanes, self._config.queue_writers
        control, generator = b["control"], b["generator"]
        link(control.status_cmd, b["status_reader"].cmd, "control->status_reader",
             register=True)
        # The offsets reader serves the hub count's pass (the controller's command) and a
        # scan's reads on demand (the pair fetch's); the two never overlap.
        link(control.offsets_cmd, b["offsets_cmds"].i[0], "control->offsets_cmds",
             register=True)
        link(b["pair_fetch"].cmd, b["offsets_cmds"].i[1], "pair_fetch->offsets_cmds",
             register=True)
        link(b["offsets_cmds"].o, b["offsets_reader"].cmd, "offsets_cmds->offsets_reader")
        # A register stage (forward only: a line is wide) between the status lines' index
        # adder and the generator's compares with the vertex count.
        link(b["status_reader"].items, generator.status, "status_reader->generator",
             register=True, skid=False)
        link(b["offsets_reader"].items, b["offsets_lines"].i, "offsets_reader->offsets_lines",
             register=True)
        link(b["offsets_lines"].o[0], b["offset_lines"].lines, "offsets_lines->offset_lines")
        link(b["offsets_lines"].o[1], b["pair_fetch"].lines, "offsets_lines->pair_fetch")
        link(b["offset_lines"].pairs, b["hub_pass"].pairs, "offset_lines->hub_pass",
             register=True)
        link(generator.wanted, b["pair_fetch"].wanted, "generator->pair_fetch", register=True)
        link(b["pair_fetch"].pairs, generator.pairs, "pair_fetch->generator", register=True)
        link(b["hub_pass"].fill, b["bitmap"].fill, "hub_pass->bitmap")
        if "shared_queue" in b:
            for lane in range(lanes):
                link(generator.lane[lane], b["shared_queue"].i[lane],
                     f"generator{lane}->shared_queue")
            scanned = [b["shared_queue"].o]
        else:
            scanned = list(generator.lane)
        for lane in range(writers):
            merge = b["bin_inputs"][lane]
            link(scanned[lane], merge.i[0], f"generator->bins{lane}", register=True)
            link(group_of_one(m, b["survivors"].o[lane]), merge.i[1], f"survivors->bins{lane}",
                 register=True)
            link(merge.o, b["bins"][lane].entries, f"bin_input{lane}->bins{lane}", register=True)
        link(b["queue_reader"].entries, b["to_check"].i, "queue_reader->check", register=True)
        if "dispatch" in b:
            link(b["to_check"].o[0], b["dispatch"].entries, "check->dispatch")
            link(b["to_check"].o[1], b["bu_dispatch"].entries, "check->bu_dispatch")
            link(b["writer"].insert, b["cache_inserts"].i, "writer->cache_inserts")
            link(b["bu_survivors"].o, b["survivors"].i, "bu_survivors->survivors")
            for lane in range(len(b["top_down"])):
                link(b["dispatch"].work[lane], b["top_down"][lane].entries,
                     f"dispatch->top_down{lane}")
                link(b["bu_dispatch"].work[lane], b["bottom_up"][lane].entries,
                     f"bu_dispatch->bottom_up{lane}")
                link(b["cache_inserts"].o[lane], b["cache"][lane].insert,
                     f"cache_inserts->cache{lane}")
                link(b["bottom_up"][lane].survivors, b["bu_survivors"].i[lane],
                     f"bottom_up{lane}->bu_survivors")
        else:
            link(b["to_check"].o[0], b["top_down"][0].entries, "check->top_down")
            link(b["to_check"].o[1], b["bottom_up"][0].entries, "check->bottom_up")
            link(b["writer"].insert, b["cache"][0].insert, "writer->cache")
            link(b["bottom_up"][0].survivors, b["survivors"].i, "bottom_up->survivors",
                 register=True)
        for lane, (search, cache) in enumerate(zip(b["bottom_up"], b["cache"])):
            link(search.cache_lookup, cache.lookup, f"bottom_up{lane}->cache{lane}", register=True)
            link(cache.answer, search.cache_answer, f"cache{lane}->bottom_up{lane}", register=True)
        link(control.root_discovery, b["discoveries"].i[0], "control->discoveries")
        for lane, (check, search) in enumerate(zip(b["top_down"], b["bottom_up"])):
            link(check.discoveries, b["discoveries"].i[1 + 2 * lane],
                 f"top_down{lane}->discoveries", register=True)
            link(search.discoveries, b["discoveries"].i[2 + 2 * lane],
                 f"bottom_up{lane}->discoveries", register=True)
        link(b["discoveries"].o, b["writer"].discoveries, "discoveries->writer", register=True)
        link(b["writer"].claim, b["bitmap"].claim, "writer->bitmap")
        link(b["bitmap"].claimed, b["writer"].claimed, "bitmap->writer")
        link(control.log, b["log"].records, "control->log")

    def _wire_settings(self, m, b):
        regs, control = b["regs"], b["control"]
        n = regs.num_vertices
        m.d.comb += [getattr(control, name).eq(getattr(regs, name)) for name in (
            "num_vertices", "root", "tail_limit", "max_levels", "levels_base",
            "out_offsets_base", "in_offsets_base")]
        m.d.comb += [
            b["offset_lines"].start.eq(control.lines_start),
            b["offset_lines"].num_vertices.eq(n),
            b["offsets_lines"].select.eq(control.to_scan),
            b["pair_fetch"].start.eq(control.scan_clear),
            b["pair_fetch"].offsets_base.eq(control.offsets_cmd.payload.base),
            b["pair_fetch"].num_vertices.eq(n),
            b["hub_pass"].num_vertices.eq(n), b["hub_pass"].clear.eq(control.hubs_clear),
            control.hubs_total.eq(b["hub_pass"].hubs),
            b["generator"].match.eq(control.match), b["generator"].blocked.eq(control.blocked),
            b["generator"].block_shift.eq(regs.block_shift), b["generator"].num_vertices.eq(n),
            b["generator"].clear.eq(control.scan_clear),
            control.scan_hits.eq(b["generator"].hits),
            b["queue_reader"].start.eq(control.read_start),
            b["queue_reader"].buffer.eq(control.read_buffer),
            b["queue_reader"].queue_base.eq(regs.queue_base),
            b["queue_reader"].bin_shift.eq(regs.bin_shift),
            b["to_check"].select.eq(control.direction),
            b["writer"].level.eq(control.level),
            b["writer"].levels_base.eq(regs.levels_base),
            b["writer"].parents_base.eq(regs.parents_base),
            b["log"].log_base.eq(regs.log_base),
        ]
        for check in b["top_down"]:
            m.d.comb += [check.edges_base.eq(regs.out_edges_base),
                         check.levels_base.eq(regs.levels_base)]
        for search, cache in zip(b["bottom_up"], b["cache"]):
            m.d.comb += [search.edges_base.eq(regs.in_edges_base),
                         search.levels_base.eq(regs.levels_base),
                         search.level.eq(control.level),
                         cache.level.eq(control.level), cache.clear.eq(control.cache_clear)]
        for lane, writer in enumerate(b["bins"]):
            m.d.comb += [writer.buffer.eq(control.buffer), writer.queue_base.eq(regs.queue_base),
                         writer.bin_shift.eq(regs.bin_shift), writer.clear.eq(control.bins_clear),
                         writer.flush.eq(control.bins_flush)]
            for c in range(4):
                index = c * self._config.queue_writers + lane
                m.d.comb += [control.counts[index].eq(writer.counts[c]),
                             b["queue_reader"].counts[index].eq(writer.counts[c])]

    def _clients(self, b):
        """The memory clients: (name, port, whether it writes)."""
        clients = [("status_reader", b["status_reader"].mem, False),
                   ("offsets_reader", b["offsets_reader"].mem, False),
                   ("queue_reader", b["queue_reader"].mem, False),
                   ("writer.levels", b["writer"].levels_mem, True),
                   ("writer.parents", b["writer"].parents_mem, True),
                   ("log", b["log"].mem, True)]
        clients += [(f"bins{lane}", writer.mem, True) for lane, writer in enumerate(b["bins"])]
        for lane, check in enumerate(b["top_down"]):
            clients += [(f"top_down{lane}.edges", check.edges_mem, False),
                        (f"top_down{lane}.status", check.status_mem, False)]
        for lane, search in enumerate(b["bottom_up"]):
            clients += [(f"bottom_up{lane}.edges", search.edges_mem, False),
                        (f"bottom_up{lane}.status", search.status_mem, False)]
        return clients

    def _counters(self, m, b, interconnect):
        control, writer = b["control"], b["writer"]
        reads = Signal(32)
        writes = Signal(32)
        read_sent = [bus.req.valid & bus.req.ready & ~bus.req.payload.write
                     for bus in interconnect.channels]
        write_sent = [bus.req.valid & bus.req.ready & bus.req.payload.write
                      for bus in interconnect.channels]
        with m.If(self.control.start):
            m.d.sync += [reads.eq(0), writes.eq(0)]
        with m.Else():
            m.d.sync += [reads.eq(reads + sum(read_sent)), writes.eq(writes + sum(write_sent))]
        td_edges = Signal(32)
        m.d.comb += td_edges.eq(sum(check.edges_checked for check in b["top_down"]))
        bu = {name: Signal(32, name=f"bu_{name}")
              for name in ("edges_checked", "status_reads", "cache_hits", "edge_lines")}
        for name, total in bu.items():
            m.d.comb += total.eq(sum(getattr(search, name) for search in b["bottom_up"]))
        sources = {"td_edges": td_edges, "bu_edges": bu["edges_checked"],
                   "bu_reads": bu["status_reads"], "cache_hits": bu["cache_hits"],
                   "written": writer.written, "hubs_found": writer.hubs,
                   "reads_issued": reads}
        m.d.comb += [getattr(control, name).eq(value) for name, value in sources.items()]
        cycles = Signal(32)
        with m.If(self.control.start):
            m.d.sync += cycles.eq(0)
        with m.Elif(control.busy):
            m.d.sync += cycles.eq(cycles + 1)
        stats = {"cycles": cycles, "levels": control.levels_done, "hubs": b["hub_pass"].hubs,
                 "edges_checked": td_edges + bu["edges_checked"],
                 "status_reads": td_edges + bu["status_reads"],
                 "cache_hits": bu["cache_hits"], "discoveries": writer.written,
                 "hubs_found": writer.hubs, "bu_edge_lines": bu["edge_lines"],
                 "queue_stalls": b["generator"].stalls,
                 "memory_reads": reads, "memory_writes": writes,
                 "generate_cycles": control.generate_total}
        m.d.comb += [getattr(self.counters, name).eq(value) for name, value in stats.items()]
