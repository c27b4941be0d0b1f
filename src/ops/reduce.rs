//! (reduce: under construction)
