//! (random: under construction)
