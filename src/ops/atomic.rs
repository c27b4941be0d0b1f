//! (atomic: under construction)
