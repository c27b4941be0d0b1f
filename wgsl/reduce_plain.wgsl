fn gp_identity() -> A { {{IDENTITY}} }
fn gp_lift(x: T) -> A { return x; }
fn gp_combine(a: A, b: A) -> A { return {{COMBINE}}; }
fn gp_finish(a: A) -> T { return a; }
