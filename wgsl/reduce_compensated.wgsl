fn gp_identity() -> A { return A(); }
fn gp_lift(x: T) -> A { return A(x, 0.0); }
fn gp_opaque(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ gp_reduce.opaque_zero); }
// Knuth's two-sum: s + e is exactly p.x + q.x.
fn gp_combine(p: A, q: A) -> A {
    let s = gp_opaque(p.x + q.x);
    let v = gp_opaque(s - p.x);
    let e = (p.x - (s - v)) + (q.x - v);
    return A(s, (p.y + q.y) + e);
}
fn gp_finish(a: A) -> T { return a.x + a.y; }
