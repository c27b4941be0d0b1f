// One digit pass of OneSweep (Adinets & Merrill, 2022): a stable scatter of the keys
// (and values) by one 8-bit digit, with each tile's digit offsets found by a decoupled
// look-back per digit. Adapters with subgroups.
//
// Tile t is workgroup t: TILE = WG * KPT keys. Subgroup s owns KPT rows of `width`
// consecutive keys (row k of lane l is the tile's key (s * KPT + k) * width + l), so
// every load is contiguous and the tile's order is (subgroup, row, lane).
//
// 1. Rank: the tile's keys are loaded, then each row is split by digit with ballots
//    (the lanes whose digit matches, 8 ballots of one bit each; all rows before any is
//    ranked; where subgroups have at most 32 lanes, 1 ballot and a table in workgroup
//    memory for the low 7 bits: sort_onesweep_peer_tables.wgsl); the lowest
//    lane of each digit adds the row's count to
//    the subgroup's counter for that digit, and every lane's rank is the counter before
//    the row plus its peers in lower lanes. Every word of the ballot is used, so any
//    subgroup size up to 128 works.
//    Before ranking, the tile's digit counts are added up in workgroup memory; the
//    invocations that own a digit (the first RADIX / DPT: the first 8 subgroups of 32
//    at WG = 1024) publish them as the tile's aggregate (tile 0: as its inclusive
//    prefix) and look back (3) before they rank, while the other subgroups rank: a
//    workgroup of 1024 holds its SM alone, which would otherwise idle through the
//    look-back's memory round trips (a look-back after ranking, or one subgroup looking
//    back for all 256 digits, was slower; see lab/perf-journal.md).
// 2. The counter words, in their order (digit, then subgroup), become their exclusive
//    prefix sums, each half on its own: where its subgroup's keys of its digit start in
//    the tile, among the keys of the low digits or of the high ones (which then come
//    after all low ones). Every invocation sums PER consecutive words, one workgroup scan
//    offsets those sums, and each invocation writes its words' prefixes.
// 3. Look-back: each digit walks back over its predecessors, adding aggregates until it
//    meets an inclusive prefix, which it then publishes for its own tile. A predecessor
//    that has published nothing after SPIN probes is not waited for: that digit gives up,
//    and after ranking the whole workgroup looks back again, counting such a tile's
//    digits itself from its keys (which are in the input, always readable) and
//    publishing them for it (Smith's decoupled fallback, as in GPUPrefixSums' CSDLDF).
//    No workgroup waits on another being scheduled.
// 4. The tile's keys go to workgroup memory in digit order, and from there to their
//    place in the output: consecutive invocations write consecutive addresses.
//
// Workgroup memory is not zeroed before this kernel runs (`kernel_entry_initialized`):
// every word it reads is written first, and must stay so.
//
// Status words are a flag in the top two bits (0: nothing, AGGREGATE, INCLUSIVE) and a
// 30-bit count (so at most 2^30 - 1 keys), written by atomicMax: one 32-bit atomic
// holds both, so a reader sees a whole value or none, and an inclusive prefix is never
// replaced by an aggregate (a fallback's publication after the owner's).

const WG: u32 = {{WG}}u;
const KPT: u32 = {{KPT}}u;
const TILE: u32 = WG * KPT;
const RADIX: u32 = 256u;
const DPT: u32 = {{DPT}}u;                  // digits per invocation: ceil(RADIX / WG)
const MAX_SUBGROUPS: u32 = {{MAX_SUBGROUPS}}u;  // WG / smallest subgroup size
const SUBGROUPS: u32 = {{SUBGROUPS}}u;          // WG / subgroup size where it is one size, else 0
const SPIN: u32 = {{SPIN}}u;                // probes of a status before the fallback
const TABLE_WORDS: u32 = {{TABLE_WORDS}}u;  // the peer tables' words after the counters (0: none)
// Whether the tile's keys are loaded before workgroup memory is cleared, so that the
// clearing overlaps their loads: for keys only (it helps keys alone and slows pairs,
// so pairs clear first; see lab/perf-journal.md).
const LOADS_FIRST: bool = {{LOADS_FIRST}};
// The subgroups' digit counters, 16 bits each, digit by digit: subgroup s's counter of
// digit d is half d / HALF (the low 16 bits for d < HALF) of word (d % HALF) * STRIDE + s
// (one word of padding per digit keeps step 2's reads and the ranking's atomics on
// distinct banks). A half never carries into the other: it counts at most TILE < 65536
// keys.
const HALF: u32 = RADIX / 2u;
const STRIDE: u32 = MAX_SUBGROUPS + 1u;
const COUNTER_WORDS: u32 = HALF * STRIDE;
// Step 2's counter words per invocation: HALF / the smallest subgroup size.
const PER: u32 = HALF * MAX_SUBGROUPS / WG;
const AGGREGATE: u32 = 0x40000000u;
const INCLUSIVE: u32 = 0x80000000u;
const COUNT: u32 = 0x3fffffffu;

struct PassParams {
    n: u32,          // keys in the input binding
    tiles: u32,      // tiles in this dispatch
    tile_base: u32,  // this dispatch's first tile, counted over all dispatches of the pass
    first: u32,      // index of the input binding's first key (argsort's indices)
    shift: u32,      // digit = (ordered(key) >> shift) & mask
    mask: u32,
    key_xor: u32,    // see sort_keys.wgsl
    neg_mask: u32,
    pass_index: u32, // which histogram of `offsets`
    indices: u32,    // 1: the values are the keys' indices (argsort's first pass)
    write_keys: u32, // 0: only the values are wanted (argsort's last pass)
    out_lo: u32,     // the output bindings hold elements out_lo ..< out_hi
    out_hi: u32,
    window_base: u32, // the input binding's first tile, counted as tile_base is
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
// This pass's tile statuses: RADIX words per tile, cleared before the sort.
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;
// Per pass and digit, the digit's first position in the output (sort_histogram.wgsl).
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
{{VALUE_BINDINGS}}

{{KEYS}}
{{IDS}}

// `counts`: the subgroups' digit counters while ranking (COUNTER_WORDS, see STRIDE),
// then the subgroups' peer tables (TABLE_WORDS, where used);
// `stage_store` / `stage_load`: the tile's keys (and values) in digit order, in an array
// of their own where workgroup memory allows, else in `counts` (whose counters are no
// longer needed by then) through atomic loads and stores.
{{STAGE}}
// Each digit's output address minus its first position in the tile.
var<workgroup> digit_base: array<u32, RADIX>;
// The tile's digit counts before ranking, then the early look-back's prefixes; later
// the fallback's digit counts of a predecessor tile.
var<workgroup> fallback: array<atomic<u32>, RADIX>;
var<workgroup> signal: atomic<u32>;
var<workgroup> signal_seen: u32;

// A lane's digits, four 8-bit digits to a word (row k in byte k % 4 of word k / 4).
const DWORDS: u32 = (KPT + 3u) / 4u;
fn row_digit(word: u32, k: u32) -> u32 {
    return (word >> (8u * (k % 4u))) & 0xffu;
}

fn digit_of(key: u32) -> u32 {
    return (ordered(key, params.key_xor, params.neg_mask) >> params.shift) & params.mask;
}

// Ballot masks (`Mask`: one word where subgroups have at most 32 lanes, else four):
// ballot(b), lanes_below(lane), bit_count(m), lowest_lane(m).
{{MASK}}

// The lanes of this subgroup whose key is valid and has digit `d` (`valid` false: none).
// Only active lanes vote, so the mask never holds a lane past the subgroup. (The ballot
// of `valid` stays even in full tiles: without it, skipped behind a uniform branch or
// replaced by a mask counted from n, the sort was much slower; see lab/perf-journal.md.)
fn peers_of(d: u32, valid: bool) -> Mask {
    var peers = ballot(valid);
    for (var b = 0u; b < 8u; b++) {
        let one = ((d >> b) & 1u) != 0u;
        let votes = ballot(one);
        peers &= select(~votes, votes, one);
    }
    return peers;
}

// The word of subgroup `s`'s counter of digit `d`.
fn counter_at(d: u32, s: u32) -> u32 {
    return (d % HALF) * STRIDE + s;
}

// Digit d's counter in a counter word.
fn half_of(word: u32, d: u32) -> u32 {
    return (word >> (16u * (d / HALF))) & 0xffffu;
}

// The rank of this lane's key among the keys of digit `d` in its subgroup's rows so far
// (`peers`: the row's lanes with that digit), and the row's keys added to the subgroup's
// counter of `d`.
fn rank_in_subgroup(peers: Mask, d: u32, valid: bool, below: Mask, ids: Ids) -> u32 {
    let leader = lowest_lane(peers);
    var before = 0u;
    if valid && ids.lane == leader {
        // The next row's leader may be another lane: it reads this value only after the
        // shuffle below, which waits for this lane.
        before = atomicAdd(&counts[counter_at(d, ids.subgroup)], bit_count(peers) << (16u * (d / HALF)));
    }
    return half_of(subgroupShuffle(before, leader), d) + bit_count(peers & below);
}

// The largest `x` of any invocation, the same in all of them. Barriers inside.
fn workgroup_max(x: u32, ids: Ids) -> u32 {
    if x != 0u {
        atomicMax(&signal, x);
    }
    workgroupBarrier();
    if ids.index == 0u {
        signal_seen = atomicLoad(&signal);
        atomicStore(&signal, 0u);
    }
    return workgroupUniformLoad(&signal_seen);
}

// The fallback: `fallback` = the digit counts of the input binding's tile t, from its
// keys.
fn count_tile(t: u32, ids: Ids) {
    for (var d = ids.index; d < RADIX; d += WG) {
        atomicStore(&fallback[d], 0u);
    }
    workgroupBarrier();
    for (var k = 0u; k < KPT; k++) {
        let i = t * TILE + k * WG + ids.index;
        if i < params.n {
            atomicAdd(&fallback[digit_of(keys_in[i])], 1u);
        }
    }
    workgroupBarrier();
}

// One digit's walk back, for both look-backs: from tile `start`, each status's count is
// added to `prefix` until the walk meets an inclusive prefix (`done`) or a tile that has
// published nothing after SPIN probes (not `done`; `at` is that tile; with SPIN = 0,
// the first tile of this dispatch). A tile of an earlier dispatch is complete: one probe
// always finds it.
struct Walk {
    at: u32,
    prefix: u32,
    done: bool,
}

fn walk_back(d: u32, start: u32, prefix: u32) -> Walk {
    var w = Walk(start, prefix, false);
    loop {
        let spins = select(SPIN, max(SPIN, 1u), w.at < params.tile_base);
        var s = 0u;
        for (var spin = 0u; spin < spins; spin++) {
            s = atomicLoad(&status[w.at * RADIX + d]);
            if s != 0u {
                break;
            }
        }
        if s == 0u {
            break;
        }
        w.prefix += s & COUNT;
        // (tile 0 publishes only inclusive prefixes)
        if s >= INCLUSIVE || w.at == 0u {
            w.done = true;
            break;
        }
        w.at -= 1u;
    }
    return w;
}

// The early look-back for global tile g, by the invocations that own digits (the first
// RADIX / DPT), while the other subgroups rank: each digit's count (in `fallback`) is
// published as the tile's aggregate at once, then the digit walks back, and publishes its
// inclusive prefix as soon as it meets one; then `fallback` holds the digit's prefix. A
// digit that finds a tile with nothing published after SPIN probes gives up and raises
// `signal`: the workgroup then looks back again after ranking (`look_back`, with the
// fallback). No barriers.
fn look_back_early(g: u32, me: u32, tile_counts: array<u32, DPT>) {
    let kind = select(AGGREGATE, INCLUSIVE, g == 0u);
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d >= RADIX {
            break;
        }
        let count = tile_counts[j];
        atomicMax(&status[g * RADIX + d], kind | count);
        var prefix = 0u;
        if g != 0u {
            let w = walk_back(d, g - 1u, 0u);
            if !w.done {
                atomicMax(&signal, 1u);  // stuck: the workgroup looks back
                return;
            }
            prefix = w.prefix;
            atomicMax(&status[g * RADIX + d], INCLUSIVE | (prefix + count));
        }
        atomicStore(&fallback[d], prefix);
    }
}

// For each of this invocation's digits, the number of keys with that digit in the
// tiles before global tile g.
//
// Each digit walks back on its own from tile g - 1, adding aggregates, until it meets an
// inclusive prefix (done) or a tile that has published nothing after SPIN probes
// (stuck). Then the workgroup meets: if any digit is stuck, it counts the highest tile
// any digit is stuck at itself, every digit stuck there takes that count and walks on,
// and the round repeats. The highest stuck tile falls every round (a tile of an earlier
// dispatch is complete and probed at least once, so never stuck), so the rounds end.
fn look_back(g: u32, me: u32, ids: Ids) -> array<u32, DPT> {
    var prefix: array<u32, DPT>;
    if g == 0u {
        return prefix;
    }
    var open: array<bool, DPT>;
    var at: array<u32, DPT>;  // the tile an open digit looks at next
    for (var j = 0u; j < DPT; j++) {
        open[j] = me * DPT + j < RADIX;
        at[j] = g - 1u;
    }
    loop {
        var stuck = 0u;  // 1 + the highest tile one of this invocation's digits is stuck at
        for (var j = 0u; j < DPT; j++) {
            if open[j] {
                let w = walk_back(me * DPT + j, at[j], prefix[j]);
                prefix[j] = w.prefix;
                at[j] = w.at;
                if w.done {
                    open[j] = false;
                } else {
                    stuck = max(stuck, w.at + 1u);
                }
            }
        }
        let highest = workgroup_max(stuck, ids);
        if highest == 0u {
            break;  // every digit met an inclusive prefix
        }
        let tile = highest - 1u;
        if tile < params.tile_base {
            continue;  // (not reached: see above)
        }
        count_tile(tile - params.window_base, ids);
        let kind = select(AGGREGATE, INCLUSIVE, tile == 0u);
        for (var j = 0u; j < DPT; j++) {
            if open[j] && at[j] == tile {
                let d = me * DPT + j;
                let c = atomicLoad(&fallback[d]);
                atomicMax(&status[tile * RADIX + d], kind | c);
                prefix[j] += c;
                if tile == 0u {
                    open[j] = false;
                } else {
                    at[j] = tile - 1u;
                }
            }
        }
    }
    return prefix;
}

// The word of the `f`-th counter in step 2's order (digit, then subgroup).
fn counter_word(f: u32) -> u32 {
    return (f / MAX_SUBGROUPS) * STRIDE + f % MAX_SUBGROUPS;
}

// Where subgroup `s`'s keys of digit `d` start in the tile, from the counter word after
// step 2 (`low`: the tile's keys of the low digits, which come before the high ones).
fn tile_start(d: u32, s: u32, low: u32) -> u32 {
    return half_of(atomicLoad(&counts[counter_at(d, s)]), d) + select(0u, low, d >= HALF);
}

// The counters, peer tables, `fallback` and `signal` set to zero. Barrier inside.
fn clear_workgroup(ids: Ids) {
    for (var i = ids.index; i < COUNTER_WORDS + TABLE_WORDS; i += WG) {
        atomicStore(&counts[i], 0u);
    }
    for (var d = ids.index; d < RADIX; d += WG) {
        atomicStore(&fallback[d], 0u);
    }
    if ids.index == 0u {
        atomicStore(&signal, 0u);
    }
    workgroupBarrier();
}

//#if PEER_TABLES
// (the peer tables' branch on a ballot count, subgroup-uniform: sort_onesweep_peer_tables.wgsl)
@diagnostic(off, subgroup_uniformity)
//#endif
@compute @workgroup_size(WG)
fn onesweep(ids: Ids, grp: Group) {
    let t = linear_group(grp);
    if t >= params.tiles {
        return;  // a surplus workgroup of a folded dispatch
    }
    let g = params.tile_base + t;
    let me = position(ids, grp);
    if !LOADS_FIRST {
        clear_workgroup(ids);
    }

    // 1. Load and rank within the subgroup.
    let row0 = (g - params.window_base) * TILE + ids.subgroup * KPT * grp.width + ids.lane;
    let below = lanes_below(ids.lane);
    // Every row's load is issued before the first is ranked: ranking waits on its key,
    // and loads interleaved with it would each wait a full memory round trip.
    var keys: array<u32, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let i = row0 + k * grp.width;
        if i < params.n {
            keys[k] = keys_in[i];
        }
    }
    if LOADS_FIRST {
        clear_workgroup(ids);
    }
    // Each row's digit, found once and read back with a shift and a mask wherever it is
    // needed (ranking needs it four times; finding it from the key each time was slower;
    // see lab/perf-journal.md).
    var digits: array<u32, DWORDS>;
    for (var k = 0u; k < KPT; k++) {
        digits[k / 4u] |= digit_of(keys[k]) << (8u * (k % 4u));
    }
    // The tile's digit counts, for the digit owners to publish and look back with. (One
    // atomic a key: adding runs of equal digits at once was slower, even for keys < 16;
    // see lab/perf-journal.md.)
    for (var k = 0u; k < KPT; k++) {
        if row0 + k * grp.width < params.n {
            atomicAdd(&fallback[row_digit(digits[k / 4u], k)], 1u);
        }
    }
    workgroupBarrier();
    // The tile's count of each of this invocation's digits.
    var count: array<u32, DPT>;
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d < RADIX {
            count[j] = atomicLoad(&fallback[d]);
        }
    }
    if me * DPT < RADIX {
        look_back_early(g, me, count);
    }
    // Every row's peers are found before the first is ranked: the ballots of all rows
    // are independent and overlap, while ranking a row waits on the row before it (the
    // two interleaved were slower; see lab/perf-journal.md). By ballots,
    // or with the subgroup's peer table (sort_onesweep_peer_tables.wgsl).
{{PEERS}}
    var pos: array<u32, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let valid = row0 + k * grp.width < params.n;
        pos[k] = rank_in_subgroup(peers[k], row_digit(digits[k / 4u], k), valid, below, ids);
    }
    workgroupBarrier();

    // 2. The counters' prefix sums (the tile's keys before each subgroup's keys of each
    // digit). (256 invocations each adding up one digit's counters, then a scan of the
    // digit totals, was slower; see lab/perf-journal.md.)
    var sum = 0u;
    for (var i = 0u; i < PER; i++) {
        sum += atomicLoad(&counts[counter_word(me * PER + i)]);
    }
    let before = workgroup_exclusive_sum(sum, ids, grp);
    var running = before.x;
    for (var i = 0u; i < PER; i++) {
        let w = counter_word(me * PER + i);
        let c = atomicLoad(&counts[w]);
        atomicStore(&counts[w], running);
        running += c;
    }
    // The keys of the low digits, before those of the high ones (whose prefixes counted
    // only high digits), and the tile's keys.
    let low = before.y & 0xffffu;
    let kept = low + (before.y >> 16u);
    workgroupBarrier();
    // Each digit's first position in the tile: its first subgroup's prefix.
    var start: array<u32, DPT>;
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d < RADIX {
            start[j] = tile_start(d, 0u, low);
        }
    }
    for (var k = 0u; k < KPT; k++) {
        if row0 + k * grp.width < params.n {
            pos[k] += tile_start(row_digit(digits[k / 4u], k), ids.subgroup, low);
        }
    }

    // 3. The tiles before this one: the early look-back's prefixes, or, where a digit gave
    // up, the workgroup's look-back with the fallback (from tile g - 1 again: a prefix
    // is the same whichever statuses it was summed from). Whether a digit gave up is one
    // uniform load of `signal`, final since the owners raise it only before they rank.
    // Its barriers also end every read of `counts` above, which the stage overwrites (two
    // barriers instead of workgroup_max's three, which were slower; see
    // lab/perf-journal.md).
    var prefix: array<u32, DPT>;
    if workgroupUniformLoad(&signal) != 0u {
        if ids.index == 0u {
            atomicStore(&signal, 0u);  // for look_back's workgroup_max
        }
        workgroupBarrier();
        prefix = look_back(g, me, ids);
        for (var j = 0u; j < DPT; j++) {
            let d = me * DPT + j;
            if d < RADIX && g != 0u {
                atomicMax(&status[g * RADIX + d], INCLUSIVE | (prefix[j] + count[j]));
            }
        }
    } else {
        for (var j = 0u; j < DPT; j++) {
            let d = me * DPT + j;
            if d < RADIX {
                prefix[j] = atomicLoad(&fallback[d]);
            }
        }
    }
    // (No barrier: `digit_base` is read only after the stage's barrier.)
    for (var j = 0u; j < DPT; j++) {
        let d = me * DPT + j;
        if d < RADIX {
            digit_base[d] = offsets[params.pass_index * RADIX + d] + prefix[j] - start[j];
        }
    }

    // 4. Through workgroup memory to the output.
    for (var k = 0u; k < KPT; k++) {
        if row0 + k * grp.width < params.n {
            stage_store(pos[k], keys[k]);
        }
    }
    workgroupBarrier();
    var dst: array<u32, KPT>;
    for (var k = 0u; k < KPT; k++) {
        let j = k * WG + me;
        if j < kept {
            let key = stage_load(j);
            let to = digit_base[digit_of(key)] + j;
            dst[k] = to;
            if params.write_keys != 0u && to >= params.out_lo && to < params.out_hi {
                keys_out[to - params.out_lo] = key;
            }
        }
    }
{{VALUES}}
}
