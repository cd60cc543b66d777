// graphgen_dram: behavioural DRAM model of the accelerator's memory port.
//
// SIMULATION ONLY. This module is never synthesized: it holds the whole memory in one
// Verilog array, loads it with $readmemh or $fread and dumps it with $writememh or $fwrite,
// all from initial/always blocks (no synthesizable memory). It is instanced from
// Amaranth (sim/gateware/dram_model.py, SimDRAM) so that the memory image is not written into the
// generated Verilog word by word, and so that cocotb need not act on any cycle to load or
// read the memory. Plain Verilog-2005; accepted by Verilator 5 (-Wno-fatal) and Icarus 11+.
//
// Plusargs (absolute paths: the simulation runs in its build folder)
//   +dram_init=PATH      loaded at time 0 with $readmemh: one line of LINE_BITS/4 hex digits
//                        per memory line, most significant first, line 0 first; lines not in
//                        the file are zero. Verilator parses ~20 MB of text a second: a full
//                        1 Mi-line image (134 MB of hex) takes ~7 s; prefer the binary form.
//   +dram_init_bin=PATH  instead, loaded at time 0 with $fread (~1 s per 64 MiB): the raw
//                        little-endian image, byte i of line L at file offset
//                        L*LINE_BITS/8 + i, whole lines only.
//   +dram_dump=PATH      written with $writememh (the whole memory, hex as above) when `dump`
//                        is sampled high.
//   +dram_dump_bin=PATH  written then too, as a raw little-endian image like +dram_init_bin
//                        ($fwrite "%u" per line).
//   +dram_seed=N         seed of the random generators (default 1).
//   +dram_traffic=PATH   written when `dump` is sampled high: the lines each tag read and
//                        wrote on each channel since reset, one text line
//                        "channel tag reads writes" (decimal) per pair that moved a line.
// A missing init file stops the simulation ($finish) with an error on the console.
//
// Timing plusargs: read at time 0, so that one build serves every memory setting. Each
// defaults to the parameter of the same name, or as stated.
//   +dram_latency=N      LATENCY, at least 1.
//   +dram_jitter=N       JITTER.
//   +dram_outstanding=N  reads in flight at most, 1..OUTSTANDING (OUTSTANDING is the size of
//                        the model's queue; a larger value is clamped, with a warning).
//   +dram_tail_percent=P (default 0) the long tail: P % of reads are slow, see below.
//   +dram_tail=T         (default 0) a slow read's extra latency is drawn from T/2..T.
//   +dram_pushback=P     (default 0, at most 99) req_ready is dropped in P % of cycles.
//   +dram_bw=N           (default LINE_BITS/8*256: a line a cycle) bandwidth in 1/256 bytes
//                        a cycle, 1..LINE_BITS/8*256.
//   +dram_reorder=1      (default 0) responses may overtake each other across tags.
//
// Request channel (valid/ready): at most one request per cycle. A request is accepted at a
// rising edge where req_valid and req_ready are both high.
//   * A write (req_write=1) takes effect at acceptance, byte lane i written when
//     req_wmask[i]; it produces no response.
//   * A read captures the line at acceptance (so it sees every earlier write and no later
//     one) and returns it on the response channel with its req_tag.
//   req_ready is low during reset, while `outstanding` reads are in flight (accepted, but the
//   response not yet taken), while the bandwidth budget holds less than a line, and in the
//   cycles the pushback generator drops it; it depends on no input. Full read throughput
//   therefore needs outstanding > latency + jitter.
//
// Bandwidth: a budget of bytes (in 1/256 bytes) gains +dram_bw every cycle and loses a line
// (LINE_BITS/8 bytes) for every request accepted, read or write; a request needs a line's
// worth in the budget. The budget saturates at a line plus one cycle's gain, so a stream of
// requests gets exactly +dram_bw/256 bytes a cycle in the long run, and an idle memory saves
// up no burst.
//
// Latency: a read accepted at the edge that ends cycle k is due at cycle k + latency + x,
// where x is drawn per read:
//   uniform (tail_percent 0): x uniform in 0..jitter (jitter 0: fixed latency);
//   tail: x = u + s, u uniform in 0..jitter, s = 0 for (100-P) % of reads and, for the
//         slow P %, s uniform in T/2..T (T - T/2 + 1 values): a bimodal, long-tailed latency.
// In order (reorder 0), responses come in request order and a read is never due before the
// previous read's due cycle + 1 (due = max(k + latency + x, d_prev + 1)). With reorder 1 a
// read is due at k + latency + x whatever came before, and the model presents, in each cycle
// without a response held, the due read with the earliest due cycle (lowest slot on ties)
// among those that are the oldest in flight with their tag: reads with the same tag stay in
// request order (AXI ID semantics), others overtake. Tags are told apart by their low 10
// bits (tags equal there keep their order too).
//
// Response channel (valid/ready, reads only): resp_valid rises in a read's due cycle at the
// earliest (so the response can be taken at the edge ending that cycle, latency edges after
// the request at least) and then holds, with the same data and tag, until resp_ready is high.
// At most one response per cycle.
//
// Random generators: xorshift32 (x ^= x << 13; x ^= x >> 17; x ^= x << 5). The latency
// generator starts at (seed ^ 32'h6A09E667), or 32'h6A09E667 if that is zero, and is advanced
// once per accepted read, u = x % (jitter + 1) of the advanced state; in tail mode it is
// advanced once more and the slow draw taken from that state y: slow when y % 100 < P, then
// s = T/2 + (y / 100) % (T - T/2 + 1). sim/gateware/dram_model.py mirrors it (jitter_sequence). The
// pushback generator starts at (seed ^ 32'hBB67AE85) (or that constant if zero), is advanced
// at every edge out of reset, and drops req_ready in a cycle where its state % 100 < P.
//
// dump: when sampled high at a rising edge, the memory (including a write accepted at that
// same edge) is written to +dram_dump and/or +dram_dump_bin; dump_done is then high for one
// cycle, starting one edge later (so a testbench that drops `dump` at the edge that sampled
// it and then waits for a rising edge of dump_done sees it).
//
// Addresses at or beyond DEPTH_LINES read as zero, are not written, and set `error` (sticky
// until reset) with a warning on the console.

// Channels: with CHANNELS > 1 the model is CHANNELS independent memory channels (DDR channels,
// HBM pseudo-channels) over ONE flat storage, so the image loaded and dumped stays one file.
// Each request port (req_*, resp_* hold one channel's signals at [c*W +: W]) has its own
// queue of reads in flight, outstanding limit, bandwidth budget (+dram_bw is per channel),
// latency draws, pushback and reorder, with the same plusargs for every channel. Channel c
// serves the lines with address % CHANNELS == c (the design interleaves lines across
// channels) and addresses the storage with the full line address; a request on another
// channel's line is served all the same but sets `error` with a warning. Channel 0's random
// generators start as described below; channel c's start from the same states XORed with
// c * 32'h9E3779B9 (latency) and c * 32'h7F4A7C15 (pushback). Requests accepted at one edge
// take effect in channel order. stat_reads and stat_writes count every channel.

// Simulation model: width extensions of parameters are intended; blocking writes in the
// clocked block are deliberate (see below).
// verilator lint_off WIDTHEXPAND
// verilator lint_off WIDTHTRUNC
// verilator lint_off BLKSEQ
module graphgen_dram #(
    parameter LINE_BITS   = 512,
    parameter ADDR_BITS   = 26,
    parameter DEPTH_LINES = 1 << 20,
    parameter LATENCY     = 100,
    parameter JITTER      = 0,
    parameter OUTSTANDING = 64,
    parameter TAG_BITS    = 8,
    parameter CHANNELS    = 1
) (
    input                                 clk,
    input                                 rst,

    input      [CHANNELS-1:0]             req_valid,
    output     [CHANNELS-1:0]             req_ready,
    input      [CHANNELS*ADDR_BITS-1:0]   req_addr,
    input      [CHANNELS-1:0]             req_write,
    input      [CHANNELS*LINE_BITS-1:0]   req_wdata,
    input      [CHANNELS*LINE_BITS/8-1:0] req_wmask,
    input      [CHANNELS*TAG_BITS-1:0]    req_tag,

    output     [CHANNELS-1:0]             resp_valid,
    input      [CHANNELS-1:0]             resp_ready,
    output     [CHANNELS*LINE_BITS-1:0]   resp_rdata,
    output     [CHANNELS*TAG_BITS-1:0]    resp_tag,

    input                                 dump,
    output reg                            dump_done,
    output reg [31:0]                     stat_reads,
    output reg [31:0]                     stat_writes,
    output reg                            error
);

    localparam SLOT_BITS = OUTSTANDING > 1 ? $clog2(OUTSTANDING) : 1;
    localparam CNT_BITS = $clog2(OUTSTANDING + 1);
    localparam CHAINS = 1024;               // tags are told apart by their low 10 bits
    localparam SLOTS = CHANNELS * OUTSTANDING;
    localparam CH_BITS = CHANNELS > 1 ? $clog2(CHANNELS) : 1;
    localparam [31:0] SEED_MIX = 32'h6A09E667;
    localparam [31:0] PUSH_MIX = 32'hBB67AE85;
    localparam [31:0] SEED_STEP = 32'h9E3779B9;
    localparam [31:0] PUSH_STEP = 32'h7F4A7C15;
    localparam [31:0] LINE_BUDGET = LINE_BITS / 8 * 256;

    // The memory, and the slots of the reads in flight (data captured at acceptance), channel
    // c's at [c*OUTSTANDING + s]. The reads of one chain (one tag; every read when in order)
    // of a channel are linked oldest first (q_next and the chain ends hold slot numbers
    // within the channel; chain k of channel c at [c*CHAINS + k]).
    reg [LINE_BITS-1:0] mem [0:DEPTH_LINES-1];
    reg [LINE_BITS-1:0] q_data [0:SLOTS-1];
    reg [TAG_BITS-1:0]  q_tag  [0:SLOTS-1];
    reg [63:0]          q_due  [0:SLOTS-1];
    reg                 q_live [0:SLOTS-1];
    reg [9:0]           q_chain [0:SLOTS-1];
    reg [SLOT_BITS-1:0] q_next [0:SLOTS-1];
    reg [SLOT_BITS-1:0] chain_head [0:CHANNELS*CHAINS-1];
    reg [SLOT_BITS-1:0] chain_tail [0:CHANNELS*CHAINS-1];
    reg [CNT_BITS-1:0]  chain_count [0:CHANNELS*CHAINS-1];
    // Per channel.
    reg [CNT_BITS-1:0]  count [0:CHANNELS-1];
    reg                 pres_valid [0:CHANNELS-1]; // a response is presented ...
    reg [SLOT_BITS-1:0] pres_slot [0:CHANNELS-1];  // ... from this slot
    reg [63:0]          last_due [0:CHANNELS-1];   // due cycle of the last read accepted
    reg [31:0]          prng [0:CHANNELS-1];
    reg [31:0]          prng_seed [0:CHANNELS-1];
    reg [31:0]          push [0:CHANNELS-1];
    reg [31:0]          push_seed [0:CHANNELS-1];
    reg [31:0]          budget [0:CHANNELS-1];
    reg [63:0]          now;        // index of the current cycle
    reg                 dump_taken;
    reg [31:0]          warnings;
    // Lines each tag read and wrote on each channel since reset (+dram_traffic), the pair of
    // channel c and tag t at [c * TAGS + t].
    localparam TAGS = 1 << TAG_BITS;
    reg [31:0]          tag_reads [0:CHANNELS*TAGS-1];
    reg [31:0]          tag_writes [0:CHANNELS*TAGS-1];
    // The outputs, registered: the state above is written with blocking assignments, which
    // the design's clocked blocks must not see in the edge that makes them.
    reg [CHANNELS-1:0]           ready_r, valid_r;
    reg [CHANNELS*LINE_BITS-1:0] rdata_r;
    reg [CHANNELS*TAG_BITS-1:0]  tag_r;

    // Runtime settings (plusargs).
    integer             latency, jitter, limit, tail_percent, tail, pushback, bandwidth;
    integer             reorder;

    reg [8*1024-1:0]    init_path, dump_path, dump_bin_path, traffic_path;
    reg                 have_dump_path, have_dump_bin_path, have_traffic_path;
    reg [LINE_BITS-1:0] swap_in, swap_out;
    integer             seed_arg, i, j, fd, loaded;

    function [31:0] xorshift32;
        input [31:0] x;
        reg   [31:0] y;
        begin
            y = x ^ (x << 13);
            y = y ^ (y >> 17);
            xorshift32 = y ^ (y << 5);
        end
    endfunction

    initial begin
        for (i = 0; i < DEPTH_LINES; i = i + 1)
            mem[i] = {LINE_BITS{1'b0}};
        for (i = 0; i < SLOTS; i = i + 1) begin
            q_data[i] = {LINE_BITS{1'b0}};
            q_tag[i] = {TAG_BITS{1'b0}};
            q_due[i] = 64'd0;
            q_live[i] = 1'b0;
            q_chain[i] = 10'd0;
            q_next[i] = 0;
        end
        for (i = 0; i < CHANNELS * CHAINS; i = i + 1) begin
            chain_head[i] = 0;
            chain_tail[i] = 0;
            chain_count[i] = 0;
        end
        if ($value$plusargs("dram_init_bin=%s", init_path)) begin
            fd = $fopen(init_path, "rb");
            if (fd == 0) begin
                $display("graphgen_dram: ERROR: cannot open +dram_init_bin=%0s", init_path);
                $finish;
            end else begin
                // $fread fills each line most significant byte first; the file is
                // little-endian, so reverse the bytes of every line read.
                loaded = $fread(mem, fd);
                $fclose(fd);
                for (i = 0; i < loaded / (LINE_BITS / 8); i = i + 1) begin
                    swap_in = mem[i];
                    for (j = 0; j < LINE_BITS / 8; j = j + 1)
                        swap_out[8*j +: 8] = swap_in[LINE_BITS - 8 - 8*j +: 8];
                    mem[i] = swap_out;
                end
            end
        end else if ($value$plusargs("dram_init=%s", init_path)) begin
            fd = $fopen(init_path, "r");
            if (fd == 0) begin
                $display("graphgen_dram: ERROR: cannot open +dram_init=%0s", init_path);
                $finish;
            end else begin
                $fclose(fd);
                $readmemh(init_path, mem);
            end
        end
        have_dump_path = $value$plusargs("dram_dump=%s", dump_path);
        have_dump_bin_path = $value$plusargs("dram_dump_bin=%s", dump_bin_path);
        have_traffic_path = $value$plusargs("dram_traffic=%s", traffic_path);
        for (i = 0; i < CHANNELS * TAGS; i = i + 1) begin
            tag_reads[i] = 32'd0;
            tag_writes[i] = 32'd0;
        end
        seed_arg = 1;
        if ($value$plusargs("dram_seed=%d", seed_arg)) begin end
        latency = LATENCY;
        if ($value$plusargs("dram_latency=%d", latency)) begin end
        if (latency < 1) latency = 1;
        jitter = JITTER;
        if ($value$plusargs("dram_jitter=%d", jitter)) begin end
        if (jitter < 0) jitter = 0;
        limit = OUTSTANDING;
        if ($value$plusargs("dram_outstanding=%d", limit)) begin end
        if (limit < 1) limit = 1;
        if (limit > OUTSTANDING) begin
            $display("graphgen_dram: +dram_outstanding=%0d clamped to OUTSTANDING=%0d",
                     limit, OUTSTANDING);
            limit = OUTSTANDING;
        end
        tail_percent = 0;
        if ($value$plusargs("dram_tail_percent=%d", tail_percent)) begin end
        tail = 0;
        if ($value$plusargs("dram_tail=%d", tail)) begin end
        if (tail < 0) tail = 0;
        pushback = 0;
        if ($value$plusargs("dram_pushback=%d", pushback)) begin end
        if (pushback > 99) pushback = 99;
        bandwidth = LINE_BUDGET;
        if ($value$plusargs("dram_bw=%d", bandwidth)) begin end
        if (bandwidth < 1 || bandwidth > LINE_BUDGET) bandwidth = LINE_BUDGET;
        reorder = 0;
        if ($value$plusargs("dram_reorder=%d", reorder)) begin end
        for (i = 0; i < CHANNELS; i = i + 1) begin
            prng_seed[i] = seed_arg ^ SEED_MIX ^ (i * SEED_STEP);
            if (prng_seed[i] == 32'd0)
                prng_seed[i] = SEED_MIX;
            prng[i] = prng_seed[i];
            push_seed[i] = seed_arg ^ PUSH_MIX ^ (i * PUSH_STEP);
            if (push_seed[i] == 32'd0)
                push_seed[i] = PUSH_MIX;
            push[i] = push_seed[i];
            budget[i] = LINE_BUDGET;
            count[i] = 0;
            pres_valid[i] = 1'b0;
            pres_slot[i] = 0;
            last_due[i] = 64'd0;
            ready_r[i] = ready_next(i);
        end
        now = 64'd0;
        dump_taken = 1'b0;
        dump_done = 1'b0;
        stat_reads = 32'd0;
        stat_writes = 32'd0;
        error = 1'b0;
        warnings = 32'd0;
        valid_r = {CHANNELS{1'b0}};
        rdata_r = {CHANNELS*LINE_BITS{1'b0}};
        tag_r = {CHANNELS*TAG_BITS{1'b0}};
    end

    function ready_next;
        input [CH_BITS-1:0] ch;
        begin
            ready_next = (count[ch] < limit) && (budget[ch] >= LINE_BUDGET) &&
                         !(pushback > 0 && push[ch] % 100 < pushback);
        end
    endfunction

    assign req_ready  = rst ? {CHANNELS{1'b0}} : ready_r;
    assign resp_valid = valid_r;
    assign resp_rdata = rdata_r;
    assign resp_tag   = tag_r;

    reg                 accept, pop, in_range, wr;
    reg [ADDR_BITS-1:0] addr;
    reg [TAG_BITS-1:0]  rtag;
    reg [LINE_BITS/8-1:0] wmask;
    reg [LINE_BITS-1:0] merged;
    reg [31:0]          draw, slow_draw, reads_now, writes_now;
    reg [63:0]          extra, due, best_due;
    reg [9:0]           chain;
    reg [SLOT_BITS-1:0] slot;
    integer b, s, c, qb, cb;

    // Blocking writes throughout: the state is only read inside this block, so each step
    // below sees the steps before it; the outputs are registered apart, nonblocking.
    always @(posedge clk) begin
        now <= now + 64'd1;
        if (rst) begin
            for (s = 0; s < SLOTS; s = s + 1)
                q_live[s] = 1'b0;
            for (s = 0; s < CHANNELS * CHAINS; s = s + 1)
                chain_count[s] = 0;
            for (s = 0; s < CHANNELS * TAGS; s = s + 1) begin
                tag_reads[s] = 32'd0;
                tag_writes[s] = 32'd0;
            end
            for (c = 0; c < CHANNELS; c = c + 1) begin
                count[c] = 0;
                pres_valid[c] = 1'b0;
                last_due[c] = 64'd0;
                prng[c] = prng_seed[c];
                push[c] = push_seed[c];
                budget[c] = LINE_BUDGET;
                ready_r[c] <= ready_next(c);
            end
            valid_r <= {CHANNELS{1'b0}};
            dump_taken <= 1'b0;
            dump_done <= 1'b0;
            stat_reads <= 32'd0;
            stat_writes <= 32'd0;
            error <= 1'b0;
        end else begin
            reads_now = 32'd0;
            writes_now = 32'd0;
            for (c = 0; c < CHANNELS; c = c + 1) begin
                qb = c * OUTSTANDING;
                cb = c * CHAINS;
                accept = req_valid[c] && req_ready[c];
                pop = resp_valid[c] && resp_ready[c];
                addr = req_addr[c*ADDR_BITS +: ADDR_BITS];
                wr = req_write[c];
                rtag = req_tag[c*TAG_BITS +: TAG_BITS];
                wmask = req_wmask[c*(LINE_BITS/8) +: LINE_BITS/8];
                in_range = addr < DEPTH_LINES;
                // Retire the response taken at this edge.
                if (pop) begin
                    q_live[qb + pres_slot[c]] = 1'b0;
                    chain = q_chain[qb + pres_slot[c]];
                    chain_count[cb + chain] = chain_count[cb + chain] - 1;
                    if (chain_count[cb + chain] != 0)
                        chain_head[cb + chain] = q_next[qb + pres_slot[c]];
                    count[c] = count[c] - 1;
                    pres_valid[c] = 1'b0;
                end
                if (accept && !in_range) begin
                    error <= 1'b1;
                    if (warnings < 8)
                        $display("graphgen_dram: %s of line %0d beyond DEPTH_LINES=%0d at cycle %0d",
                                 wr ? "write" : "read", addr, DEPTH_LINES, now);
                    warnings = warnings + 1;
                end
                if (accept && CHANNELS > 1 && addr % CHANNELS != c) begin
                    error <= 1'b1;
                    if (warnings < 8)
                        $display("graphgen_dram: %s of line %0d on channel %0d at cycle %0d",
                                 wr ? "write" : "read", addr, c, now);
                    warnings = warnings + 1;
                end
                if (accept && wr) begin
                    writes_now = writes_now + 32'd1;
                    tag_writes[c * TAGS + rtag] = tag_writes[c * TAGS + rtag] + 32'd1;
                    if (in_range) begin
                        merged = mem[addr];
                        for (b = 0; b < LINE_BITS / 8; b = b + 1)
                            if (wmask[b])
                                merged[8*b +: 8] = req_wdata[c*LINE_BITS + 8*b +: 8];
                        mem[addr] = merged;
                    end
                end
                if (accept && !wr) begin
                    reads_now = reads_now + 32'd1;
                    tag_reads[c * TAGS + rtag] = tag_reads[c * TAGS + rtag] + 32'd1;
                    prng[c] = xorshift32(prng[c]);
                    draw = prng[c];
                    extra = (jitter > 0) ? ({32'd0, draw} % (jitter + 1)) : 64'd0;
                    if (tail_percent > 0) begin
                        prng[c] = xorshift32(prng[c]);
                        slow_draw = prng[c];
                        if (slow_draw % 100 < tail_percent)
                            extra = extra + tail / 2 + (slow_draw / 100) % (tail - tail / 2 + 1);
                    end
                    due = now + latency + extra;
                    if (reorder == 0 && due <= last_due[c])
                        due = last_due[c] + 64'd1;
                    last_due[c] = due;
                    slot = 0;
                    for (s = OUTSTANDING - 1; s >= 0; s = s - 1)
                        if (!q_live[qb + s])
                            slot = s;
                    chain = reorder != 0 ? rtag % CHAINS : 10'd0;
                    q_data[qb + slot] = in_range ? mem[addr] : {LINE_BITS{1'b0}};
                    q_tag[qb + slot] = rtag;
                    q_due[qb + slot] = due;
                    q_live[qb + slot] = 1'b1;
                    q_chain[qb + slot] = chain;
                    if (chain_count[cb + chain] == 0)
                        chain_head[cb + chain] = slot;
                    else
                        q_next[qb + chain_tail[cb + chain]] = slot;
                    chain_tail[cb + chain] = slot;
                    chain_count[cb + chain] = chain_count[cb + chain] + 1;
                    count[c] = count[c] + 1;
                end
                // Bandwidth budget and pushback for the next cycle.
                if (accept)
                    budget[c] = budget[c] - LINE_BUDGET;
                budget[c] = budget[c] + bandwidth;
                if (budget[c] > LINE_BUDGET + bandwidth)
                    budget[c] = LINE_BUDGET + bandwidth;
                push[c] = xorshift32(push[c]);
                // The response of the next cycle (now + 1): the one held, or a due chain head.
                if (!pres_valid[c] && count[c] != 0) begin
                    if (reorder == 0) begin
                        slot = chain_head[cb];
                        if (q_due[qb + slot] <= now + 64'd1) begin
                            pres_valid[c] = 1'b1;
                            pres_slot[c] = slot;
                        end
                    end else begin
                        best_due = 64'hFFFF_FFFF_FFFF_FFFF;
                        for (s = 0; s < OUTSTANDING; s = s + 1)
                            if (q_live[qb + s] && chain_head[cb + q_chain[qb + s]] == s &&
                                    q_due[qb + s] <= now + 64'd1 && q_due[qb + s] < best_due) begin
                                best_due = q_due[qb + s];
                                pres_valid[c] = 1'b1;
                                pres_slot[c] = s;
                            end
                    end
                end
                ready_r[c] <= ready_next(c);
                valid_r[c] <= pres_valid[c];
                rdata_r[c*LINE_BITS +: LINE_BITS] <= q_data[qb + pres_slot[c]];
                tag_r[c*TAG_BITS +: TAG_BITS] <= q_tag[qb + pres_slot[c]];
            end
            stat_reads <= stat_reads + reads_now;
            stat_writes <= stat_writes + writes_now;

            dump_taken <= dump;
            dump_done <= dump_taken;
            if (dump) begin
                if (have_dump_path)
                    $writememh(dump_path, mem);
                if (have_dump_bin_path) begin
                    fd = $fopen(dump_bin_path, "wb");
                    if (fd == 0)
                        $display("graphgen_dram: ERROR: cannot write +dram_dump_bin=%0s",
                                 dump_bin_path);
                    else begin
                        for (i = 0; i < DEPTH_LINES; i = i + 1)
                            $fwrite(fd, "%u", mem[i]);
                        $fclose(fd);
                    end
                end
                if (!have_dump_path && !have_dump_bin_path)
                    $display("graphgen_dram: dump asked but no +dram_dump=PATH was given");
                if (have_traffic_path) begin
                    fd = $fopen(traffic_path, "w");
                    if (fd == 0)
                        $display("graphgen_dram: ERROR: cannot write +dram_traffic=%0s",
                                 traffic_path);
                    else begin
                        for (i = 0; i < CHANNELS * TAGS; i = i + 1)
                            if (tag_reads[i] != 0 || tag_writes[i] != 0)
                                $fwrite(fd, "%0d %0d %0d %0d\n", i / TAGS, i % TAGS,
                                        tag_reads[i], tag_writes[i]);
                        $fclose(fd);
                    end
                end
            end
        end
    end

endmodule
// verilator lint_on BLKSEQ
// verilator lint_on WIDTHTRUNC
// verilator lint_on WIDTHEXPAND
