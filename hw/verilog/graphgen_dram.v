// graphgen_dram: behavioural DRAM model of the accelerator's memory port.
//
// SIMULATION ONLY. This module is never synthesized: it holds the whole memory in one
// Verilog array, loads it with $readmemh or $fread and dumps it with $writememh or $fwrite,
// all from initial/always blocks (no synthesizable memory). It is instanced from
// Amaranth (hw/dram_model.py, SimDRAM) so that the memory image is not written into the
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
//   +dram_seed=N         seed of the jitter generator (default 1).
// A missing init file stops the simulation ($finish) with an error on the console.
//
// Request channel (valid/ready): at most one request per cycle. A request is accepted at a
// rising edge where req_valid and req_ready are both high.
//   * A write (req_write=1) takes effect at acceptance, byte lane i written when
//     req_wmask[i]; it produces no response.
//   * A read captures the line at acceptance (so it sees every earlier write and no later
//     one) and returns it on the response channel with its req_tag.
//   req_ready is low during reset and while OUTSTANDING reads are in flight (accepted, but
//   the response not yet taken); it depends on no input. Full read throughput therefore
//   needs OUTSTANDING > LATENCY + JITTER.
//
// Response channel (valid/ready, reads only), in request order. A read accepted at the edge
// that ends cycle k is due at cycle d = max(k + LATENCY + j, d_prev + 1), where j is drawn
// uniformly from 0..JITTER for each read and d_prev is the due cycle of the previous read;
// resp_valid rises in cycle d at the earliest (so the response can be taken at the edge
// ending cycle d, LATENCY edges after the request at least) and then holds, with the same
// data, until resp_ready is high. At most one response per cycle.
//
// The jitter generator is a xorshift32 (x ^= x << 13; x ^= x >> 17; x ^= x << 5) started at
// (seed ^ 32'h6A09E667), or 32'h6A09E667 if that is zero, advanced once per accepted read;
// j = x % (JITTER + 1) of the advanced state. It is the same in every simulator and is
// mirrored by hw/dram_model.py (jitter_sequence), so testbenches can predict every due cycle.
//
// dump: when sampled high at a rising edge, the memory (including a write accepted at that
// same edge) is written to +dram_dump and/or +dram_dump_bin; dump_done is then high for one
// cycle, starting one edge later (so a testbench that drops `dump` at the edge that sampled
// it and then waits for a rising edge of dump_done sees it).
//
// Addresses at or beyond DEPTH_LINES read as zero, are not written, and set `error` (sticky
// until reset) with a warning on the console.

// Simulation model: width extensions of parameters are intended; blocking writes of `mem`
// in the clocked block are deliberate (see below).
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
    parameter TAG_BITS    = 8
) (
    input                        clk,
    input                        rst,

    input                        req_valid,
    output                       req_ready,
    input      [ADDR_BITS-1:0]   req_addr,
    input                        req_write,
    input      [LINE_BITS-1:0]   req_wdata,
    input      [LINE_BITS/8-1:0] req_wmask,
    input      [TAG_BITS-1:0]    req_tag,

    output                       resp_valid,
    input                        resp_ready,
    output     [LINE_BITS-1:0]   resp_rdata,
    output     [TAG_BITS-1:0]    resp_tag,

    input                        dump,
    output reg                   dump_done,
    output reg [31:0]            stat_reads,
    output reg [31:0]            stat_writes,
    output reg                   error
);

    localparam PTR_BITS = OUTSTANDING > 1 ? $clog2(OUTSTANDING) : 1;
    localparam CNT_BITS = $clog2(OUTSTANDING + 1);
    localparam [31:0] SEED_MIX = 32'h6A09E667;

    // The memory, and the queue of reads in flight (data captured at acceptance).
    reg [LINE_BITS-1:0] mem [0:DEPTH_LINES-1];
    reg [LINE_BITS-1:0] q_data [0:OUTSTANDING-1];
    reg [TAG_BITS-1:0]  q_tag  [0:OUTSTANDING-1];
    reg [63:0]          q_due  [0:OUTSTANDING-1];
    reg [PTR_BITS-1:0]  wr_ptr, rd_ptr;
    reg [CNT_BITS-1:0]  count;
    reg [63:0]          now;        // index of the current cycle
    reg [63:0]          last_due;   // due cycle of the last read accepted
    reg [31:0]          prng, prng_seed;
    reg                 dump_taken;
    reg [31:0]          warnings;

    reg [8*1024-1:0]    init_path, dump_path, dump_bin_path;
    reg                 have_dump_path, have_dump_bin_path;
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
        for (i = 0; i < OUTSTANDING; i = i + 1) begin
            q_data[i] = {LINE_BITS{1'b0}};
            q_tag[i] = {TAG_BITS{1'b0}};
            q_due[i] = 64'd0;
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
        seed_arg = 1;
        if ($value$plusargs("dram_seed=%d", seed_arg)) begin end
        prng_seed = seed_arg ^ SEED_MIX;
        if (prng_seed == 32'd0)
            prng_seed = SEED_MIX;
        prng = prng_seed;
        wr_ptr = 0;
        rd_ptr = 0;
        count = 0;
        now = 64'd0;
        last_due = 64'd0;
        dump_taken = 1'b0;
        dump_done = 1'b0;
        stat_reads = 32'd0;
        stat_writes = 32'd0;
        error = 1'b0;
        warnings = 32'd0;
    end

    assign req_ready  = !rst && (count < OUTSTANDING);
    assign resp_valid = (count != 0) && (q_due[rd_ptr] <= now);
    assign resp_rdata = q_data[rd_ptr];
    assign resp_tag   = q_tag[rd_ptr];

    wire         accept   = req_valid && req_ready;
    wire         in_range = req_addr < DEPTH_LINES;
    wire         pop      = resp_valid && resp_ready;
    wire [31:0]  prng_next = xorshift32(prng);
    wire [63:0]  jitter    = (JITTER > 0) ? ({32'd0, prng_next} % (JITTER + 1)) : 64'd0;
    wire [63:0]  earliest  = now + LATENCY + jitter;
    wire [63:0]  due       = (earliest > last_due) ? earliest : last_due + 64'd1;

    reg [LINE_BITS-1:0] merged;
    integer b;

    always @(posedge clk) begin
        now <= now + 64'd1;
        if (rst) begin
            wr_ptr <= 0;
            rd_ptr <= 0;
            count <= 0;
            last_due <= 64'd0;
            prng <= prng_seed;
            dump_taken <= 1'b0;
            dump_done <= 1'b0;
            stat_reads <= 32'd0;
            stat_writes <= 32'd0;
            error <= 1'b0;
        end else begin
            if (accept && !in_range) begin
                error <= 1'b1;
                if (warnings < 8)
                    $display("graphgen_dram: %s of line %0d beyond DEPTH_LINES=%0d at cycle %0d",
                             req_write ? "write" : "read", req_addr, DEPTH_LINES, now);
                warnings <= warnings + 1;
            end
            if (accept && req_write) begin
                stat_writes <= stat_writes + 32'd1;
                if (in_range) begin
                    // Blocking: the memory is only read inside this block, so a read or a
                    // dump later in program order sees the write at once.
                    merged = mem[req_addr];
                    for (b = 0; b < LINE_BITS / 8; b = b + 1)
                        if (req_wmask[b])
                            merged[8*b +: 8] = req_wdata[8*b +: 8];
                    mem[req_addr] = merged;
                end
            end
            if (accept && !req_write) begin
                stat_reads <= stat_reads + 32'd1;
                q_data[wr_ptr] <= in_range ? mem[req_addr] : {LINE_BITS{1'b0}};
                q_tag[wr_ptr] <= req_tag;
                q_due[wr_ptr] <= due;
                last_due <= due;
                prng <= prng_next;
                wr_ptr <= (wr_ptr == OUTSTANDING - 1) ? 0 : wr_ptr + 1;
            end
            if (pop)
                rd_ptr <= (rd_ptr == OUTSTANDING - 1) ? 0 : rd_ptr + 1;
            count <= count + (accept && !req_write) - pop;

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
            end
        end
    end

endmodule
// verilator lint_on BLKSEQ
// verilator lint_on WIDTHTRUNC
// verilator lint_on WIDTHEXPAND
