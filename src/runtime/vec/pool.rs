//! The buffer pool: scratch buffers that go back to the pool when dropped, large ones
//! kept at the last size asked for, and uniform buffers of kernel parameters by content.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::runtime::context::Ctx;

/// Small buffers kept for reuse, so a call like a blocking `reduce` creates no buffers
/// once warm. Work on one queue runs in the order it is queued (submitted, or held for
/// batching in call order), and wgpu orders the accesses of successive command buffers,
/// so a buffer can go back as soon as its work is queued.
///
/// Larger buffers are not pooled, except those asked for by [`Ctx::scratch_kept`] (the
/// sorts' ping-pong keys and values, their tile statuses): the last few returned are
/// kept in `large`, so repeated calls of one shape allocate nothing (and wgpu does not
/// zero the new buffers' memory again on first use). A request smaller than every kept
/// buffer that fits releases the larger ones first, so a long run of smaller work
/// does not hold the memory of one large call.
#[derive(Default)]
pub(crate) struct BufferPool {
    free: Mutex<HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>>,
    large: Mutex<Vec<(wgpu::BufferUsages, wgpu::Buffer)>>,
    /// Immutable uniform buffers by content (kernel parameters repeat call to call).
    constants: Mutex<HashMap<Vec<u8>, wgpu::Buffer>>,
}

/// Distinct parameter blocks kept; the cache starts over when full.
const CONSTANTS_KEPT: usize = 256;

/// Buffers up to this size are pooled; a few of each size and usage are kept.
const POOLED_MAX_BYTES: u64 = 1 << 20;
const POOLED_PER_KIND: usize = 8;
/// Large buffers kept ([`Ctx::scratch_kept`]): enough for one sort's (argsort: two key
/// buffers, the indices, the tile statuses; reduce-then-scan: its digit counts; a sort of
/// 8-byte keys: its words and order besides, and a copy of wide values).
const LARGE_KEPT: usize = 12;

/// A buffer from the pool; it goes back when dropped (unless marked otherwise).
pub(crate) struct Scratch {
    buffer: Option<wgpu::Buffer>,
    ctx: Ctx,
    usage: wgpu::BufferUsages,
    /// False while the buffer may be mapped or pending a map.
    pub(super) reusable: bool,
    /// A large buffer goes back to [`BufferPool`]'s `large` list ([`Ctx::scratch_kept`]).
    keep_large: bool,
}

impl std::ops::Deref for Scratch {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("present until drop")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // A buffer dropped here may be freed in the driver (its last handle). The door
        // is entered before the pool's locks, as everywhere.
        let _inside = crate::runtime::driver::enter();
        let Some(buffer) = self.buffer.take() else {
            return;
        };
        if !self.reusable {
            return;
        }
        if buffer.size() > POOLED_MAX_BYTES {
            if self.keep_large {
                let mut large = self
                    .ctx
                    .inner
                    .pool
                    .large
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                large.push((self.usage, buffer));
                if large.len() > LARGE_KEPT {
                    large.remove(0); // the longest unused
                }
            }
            return;
        }
        let mut free = self
            .ctx
            .inner
            .pool
            .free
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let list = free.entry((buffer.size(), self.usage)).or_default();
        if list.len() < POOLED_PER_KIND {
            list.push(buffer);
        }
    }
}

impl Ctx {
    /// A uniform buffer holding `bytes`, never written again: the same bytes give the
    /// same buffer, so a repeated call uploads nothing.
    pub(crate) fn uniform_constant(&self, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let _inside = crate::runtime::driver::enter();
        let mut constants = self
            .inner
            .pool
            .constants
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(b) = constants.get(bytes) {
            return Ok(b.clone());
        }
        let buffer = self.create_buffer(
            "kernel parameters",
            bytes.len() as u64,
            wgpu::BufferUsages::UNIFORM,
            true,
        )?;
        buffer
            .get_mapped_range_mut(..)
            .map_err(|e| {
                self.or_lost(Error::Internal {
                    op: "uniform_constant",
                    message: e.to_string(),
                })
            })?
            .copy_from_slice(bytes);
        buffer.unmap();
        if constants.len() >= CONSTANTS_KEPT {
            constants.clear();
        }
        constants.insert(bytes.to_vec(), buffer.clone());
        Ok(buffer)
    }

    /// A buffer of at least `bytes` with `usage`, from the pool if one is free.
    pub(crate) fn scratch(
        &self,
        what: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<Scratch> {
        let size = bytes.max(256).next_power_of_two();
        let pooled = if size <= POOLED_MAX_BYTES {
            let mut free = self
                .inner
                .pool
                .free
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            free.get_mut(&(size, usage)).and_then(Vec::pop)
        } else {
            None
        };
        let buffer = match pooled {
            Some(b) => b,
            None => self.create_buffer(what, size, usage, false)?,
        };
        Ok(Scratch {
            buffer: Some(buffer),
            ctx: self.clone(),
            usage,
            reusable: true,
            keep_large: false,
        })
    }

    /// A scratch buffer of `len` words (padded to whole vec4 units, as the sorts' are),
    /// kept by the context for the next call of the same size ([`Ctx::scratch_kept`],
    /// with the sorts' usage, so they and these share the kept buffers).
    pub(crate) fn large_scratch(&self, what: &str, len: usize) -> Result<Scratch> {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        self.scratch_kept(what, 4 * len.next_multiple_of(4).max(4) as u64, usage)
    }

    /// [`Ctx::scratch`] for buffers that may be larger than the pool's limit and are
    /// wanted again at the same size by the next call (a sort's ping-pong buffers): a
    /// kept buffer of `usage` from `bytes` to twice `bytes` is reused; otherwise the kept
    /// buffers larger than that are released and a buffer of exactly `bytes` (rounded up
    /// to 256) is made. It is kept when dropped (see [`BufferPool`]).
    pub(crate) fn scratch_kept(
        &self,
        what: &str,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<Scratch> {
        if bytes.max(256).next_power_of_two() <= POOLED_MAX_BYTES {
            return self.scratch(what, bytes, usage);
        }
        // Releasing the kept buffers frees them in the driver.
        let _inside = crate::runtime::driver::enter();
        let kept = {
            let mut large = self
                .inner
                .pool
                .large
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let fits = |b: &wgpu::Buffer| b.size() >= bytes && b.size() / 2 < bytes;
            match large.iter().position(|(u, b)| *u == usage && fits(b)) {
                Some(i) => Some(large.remove(i).1),
                None => {
                    // A smaller size than the kept ones: those were for larger work, and
                    // are released. Smaller kept ones stay (a sort of 8-byte keys asks
                    // for buffers of two sizes), until newer ones push them out.
                    large.retain(|(_, b)| b.size() < bytes);
                    None
                }
            }
        };
        let buffer = match kept {
            Some(b) => b,
            None => self.create_buffer(what, bytes.next_multiple_of(256), usage, false)?,
        };
        Ok(Scratch {
            buffer: Some(buffer),
            ctx: self.clone(),
            usage,
            reusable: true,
            keep_large: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::Ctx;

    fn kept(ctx: &Ctx) -> Vec<u64> {
        let large = ctx.inner.pool.large.lock().unwrap();
        large.iter().map(|(_, b)| b.size()).collect()
    }

    /// [`Ctx::scratch_kept`]: a large buffer comes back to the next call of its size (up
    /// to twice the size asked for), a call of a smaller size releases the larger kept
    /// ones first, a larger one keeps the smaller, and small ones stay in the ordinary
    /// pool.
    #[test]
    fn large_scratch_of_the_last_size_is_kept() {
        let ctx = Ctx::new().unwrap();
        let usage = wgpu::BufferUsages::STORAGE;
        let mib = 1u64 << 20;
        let first = ctx.scratch_kept("test", 3 * mib, usage).unwrap();
        let first_buffer = (*first).clone();
        assert_eq!(first.size(), 3 * mib);
        drop(first);
        assert_eq!(kept(&ctx), [3 * mib]);
        let again = ctx.scratch_kept("test", 2 * mib, usage).unwrap();
        assert!(
            *again == first_buffer,
            "a kept buffer up to twice the size is reused"
        );
        let second = ctx.scratch_kept("test", 3 * mib, usage).unwrap();
        assert!(*second != first_buffer);
        drop((again, second));
        assert_eq!(kept(&ctx), [3 * mib, 3 * mib]);
        // A size under half of the kept ones: those are released first.
        let other = ctx.scratch_kept("test", mib + 4, usage).unwrap();
        assert_eq!(other.size(), mib + 256);
        assert_eq!(kept(&ctx), [] as [u64; 0]);
        drop(other);
        assert_eq!(kept(&ctx), [mib + 256]);
        // A larger size: the smaller kept one stays beside it.
        drop(ctx.scratch_kept("test", 5 * mib, usage).unwrap());
        assert_eq!(kept(&ctx), [mib + 256, 5 * mib]);
        // Small requests are the ordinary pool's.
        drop(ctx.scratch_kept("test", 1000, usage).unwrap());
        assert_eq!(kept(&ctx), [mib + 256, 5 * mib]);
    }
}
