@group(0) @binding(5) var<storage, read> gp_offsets: array<u32>;
fn gp_begin(s: u32) -> u32 { return gp_offsets[min(s, gp_reduce.segments)]; }
fn gp_end(s: u32) -> u32 { return gp_offsets[min(s + 1u, gp_reduce.segments)]; }
fn gp_upper(x: u32, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if gp_begin(mid) <= x { lo = mid + 1u; } else { hi = mid; }
    }
    return lo;
}
fn gp_lower(x: u32, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if gp_begin(mid) < x { lo = mid + 1u; } else { hi = mid; }
    }
    return lo;
}
// The segment of element i (as gp_segment_of) searched outward from a guess:
// a few loads where the guess is near, twice a binary search at worst.
fn gp_find(i: u32, lo: u32, hi: u32, guess: u32) -> u32 {
    var a = lo;
    var b = max(hi, lo + 1u);
    let g = clamp(guess, a, b - 1u);
    var step = 1u;
    if gp_begin(g) <= i {
        a = g;
        while a + step < b {
            if gp_begin(a + step) > i { b = a + step; break; }
            a += step;
            step = min(step * 2u, 1u << 30u);
        }
    } else {
        b = g;
        while b - a > step {
            if gp_begin(b - step) <= i { a = b - step; break; }
            b -= step;
            step = min(step * 2u, 1u << 30u);
        }
    }
    return gp_segment_of(i, a, b);
}
// gp_lower(x, lo, hi) searched outward from a guess, as gp_find.
fn gp_lower_near(x: u32, lo: u32, hi: u32, guess: u32) -> u32 {
    var a = lo;
    var b = hi;
    if a >= b {
        return a;
    }
    let g = clamp(guess, a, b - 1u);
    var step = 1u;
    if gp_begin(g) >= x {
        b = g;
        while b - a > step {
            let p = b - step;
            if gp_begin(p) < x { a = p + 1u; break; }
            b = p;
            step = min(step * 2u, 1u << 30u);
        }
    } else {
        a = g + 1u;
        while b - a > step {
            let p = a + step;
            if gp_begin(p) >= x { b = p; break; }
            a = p + 1u;
            step = min(step * 2u, 1u << 30u);
        }
    }
    return gp_lower(x, a, b);
}
