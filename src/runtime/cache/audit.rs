//! The check that equal kernel configurations render equal WGSL, across every context
//! of the process: with the `internals` feature (the tests turn it on), each compiled
//! configuration's source is remembered by key, and a configuration equal to one seen
//! before whose source differs is an [`Error::Internal`]. [`KernelSource::wgsl`] takes
//! only the configuration, so this holds unless a render reads something else (a
//! global, the environment); the test suite's contexts differ in limits and features,
//! so such a read would show.

use super::*;
#[cfg(feature = "internals")]
use crate::error::Error;

#[cfg(feature = "internals")]
struct Seen {
    key: Box<dyn DynKey>,
    entry: &'static str,
    source: u64,
}

#[cfg(feature = "internals")]
static SEEN: Mutex<Option<HashMap<u64, Vec<Seen>>>> = Mutex::new(None);
#[cfg(feature = "internals")]
static COMPARED: AtomicUsize = AtomicUsize::new(0);

/// Records that `config` with `entry` rendered `wgsl`; an equal configuration seen
/// with another source is an error.
#[cfg(feature = "internals")]
pub(crate) fn record<K: KernelSource>(config: &K, entry: &'static str, wgsl: &str) -> Result<()> {
    let mut h = DefaultHasher::new();
    wgsl.hash(&mut h);
    let source = h.finish();
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let bucket = seen
        .get_or_insert_with(HashMap::new)
        .entry(key_hash(config, entry))
        .or_default();
    match bucket
        .iter()
        .find(|s| s.entry == entry && s.key.eq_dyn(config))
    {
        Some(s) => {
            COMPARED.fetch_add(1, Ordering::Relaxed);
            if s.source != source {
                return Err(Error::Internal {
                    op: config.name(),
                    message: format!(
                        "two equal kernel configurations rendered different WGSL: {config:?}"
                    ),
                });
            }
        }
        None => bucket.push(Seen {
            key: Box::new(config.clone()),
            entry,
            source,
        }),
    }
    Ok(())
}

#[cfg(not(feature = "internals"))]
pub(crate) fn record<K: KernelSource>(_: &K, _: &'static str, _: &str) -> Result<()> {
    Ok(())
}

/// Distinct (configuration, entry) pairs compiled so far in this process, and how
/// many compiles found an equal configuration seen before (and compared sources).
#[cfg(feature = "internals")]
pub fn counts() -> (usize, usize) {
    let seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let distinct = seen.as_ref().map_or(0, |m| m.values().map(Vec::len).sum());
    (distinct, COMPARED.load(Ordering::Relaxed))
}
