//! Segmented sorts of keys that are not one 32-bit word (the 8-byte keys, `f16`), built
//! from the radix sorts, which take every [`RadixKey`].
//!
//! Each element gets a group: the start of its segment, or for an element outside every
//! segment its own position (so it is a group of one and stays in place). Groups ascend
//! with the position, so a stable argsort by key followed by a stable sort of that order
//! by group sorts every segment and moves nothing else. The group is found by an
//! `upper_bound` of the element's position in the offsets. The keys and values are then
//! gathered in that order (argsort: the order less the group's start). Three sorts and
//! their gathers: a slower path than the one-word keys' tiles in workgroup memory.

use crate::error::Result;
use crate::ops::kernel::{Access, Args, record_statements};
use crate::ops::sort::{KeyForm, RadixKey, Sort, SortValue, gather_in_place, half_bits};
use crate::runtime::context::Ctx;
use crate::runtime::record::Work;
use crate::runtime::vec::GpuVec;
use crate::runtime::view::View;

/// What a wide segmented sort writes.
pub(super) enum WideOut<'a, V: SortValue> {
    /// The keys, in place.
    Keys,
    /// The keys in place and these values with them.
    KeysValues(&'a mut GpuVec<V>),
    /// The indices within the segments (`u32::MAX` outside them); the keys are read only.
    Indices(&'a mut GpuVec<u32>),
}

impl Ctx {
    /// The segmented sort of `keys` (not one-word keys) by `offsets`, writing what `out`
    /// says; `offsets` checked only for emptiness here.
    pub(super) fn segmented_sort_wide<K: RadixKey, V: SortValue>(
        &self,
        op: &'static str,
        keys: &GpuVec<K>,
        offsets: &GpuVec<u32>,
        sort: &Sort,
        out: WideOut<'_, V>,
    ) -> Result<()> {
        keys.require_host_len(op)?;
        offsets.require_host_len(op)?;
        super::check_offsets(op, offsets)?;
        let n = keys.len();
        View::of(keys).check_bound_whole(op, "keys", "sort")?;
        View::of(offsets).check_bound_whole(op, "offsets", "sort")?;
        if (n as u64) >= super::MAX_KEYS {
            return Err(super::too_many(op, "keys", n as u64));
        }
        let order = self.argsort_with(keys, sort)?;
        if n == 0 {
            return Ok(());
        }
        let position = self.iota(op, n)?;
        let bound = self.upper_bound(offsets, &position)?;
        let group = self.zeros::<u32>(n)?;
        let mut work = Work::new(self, op);
        let mut args = Args::new(op);
        args.vec("group", View::of(&group), Access::Write);
        args.vec("ub", View::of(&bound), Access::Read);
        args.vec("off", View::of(offsets), Access::Raw);
        args.scalar("entries", offsets.len() as u32);
        record_statements(
            self,
            &mut work,
            "group = select(i, off[max(ub, 1u) - 1u], ub >= 1u && ub < entries);",
            args,
        )?;
        work.submit()?;
        let mut by_group = self.gather(&group, &order)?;
        let mut order = order;
        // Groups of ascending offsets are positions below n.
        let bits = 32 - (n as u32 - 1).leading_zeros();
        self.sort_by_key_with(&mut by_group, &mut order, &Sort::ascending().bits(0..bits))?;
        match out {
            WideOut::Indices(indices) => {
                let mut work = Work::new(self, op);
                let mut args = Args::new(op);
                args.vec("at", View::of(&*indices), Access::Write);
                args.vec("o", View::of(&order), Access::Read);
                args.vec("g", View::of(&group), Access::Read);
                args.vec("ub", View::of(&bound), Access::Read);
                args.scalar("entries", offsets.len() as u32);
                record_statements(
                    self,
                    &mut work,
                    "at = select(0xffffffffu, o - g, ub >= 1u && ub < entries);",
                    args,
                )?;
                work.submit()
            }
            WideOut::Keys => self.gather_keys(op, keys, &order),
            WideOut::KeysValues(values) => {
                self.gather_keys(op, keys, &order)?;
                gather_in_place(self, op, View::of(&*values), View::of(&order))
            }
        }
    }

    /// `keys[i] = keys[order[i]]` (as they were): 8-byte keys by the sorts' gather of
    /// whole elements, `f16` two to a word from a copy.
    fn gather_keys<K: RadixKey>(
        &self,
        op: &'static str,
        keys: &GpuVec<K>,
        order: &GpuVec<u32>,
    ) -> Result<()> {
        if K::FORM != KeyForm::Half {
            return gather_in_place(self, op, View::of(keys), View::of(order));
        }
        let copy = keys.try_clone()?;
        let mut work = Work::new(self, op);
        let mut args = Args::new(op);
        args.vec("w", View::of(keys).exact_words(), Access::Write);
        args.vec("src", View::of(&copy).exact_words(), Access::Raw);
        args.vec("o", View::of(order), Access::Raw);
        args.scalar("nk", keys.len() as u32);
        let code = format!(
            "let a = o[2u * i]; let b = o[min(2u * i + 1u, nk - 1u)]; \
             w = {} | select(0u, {} << 16u, 2u * i + 1u < nk);",
            half_bits("src", "a"),
            half_bits("src", "b")
        );
        record_statements(self, &mut work, &code, args)?;
        work.submit()
    }
}
