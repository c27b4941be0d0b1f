fn gp_identity() -> A { return A(); }
fn gp_lift(x: T) -> A { return A(x); }
fn gp_combine(a: A, b: A) -> A { return a + b; }
fn gp_finish(a: A) -> T { return T(a); }
