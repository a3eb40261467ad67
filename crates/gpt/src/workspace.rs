//! Buffers recycled from one forward/backward pass to the next. Every training step records the
//! same ops with the same shapes, so after the first step the passes allocate (almost) nothing,
//! and the allocator never hands memory back to the OS only to fault it in again. While the
//! weights are pinned (a step's shards, an evaluation's batches), it also keeps them packed for
//! the matrix products, so each is packed once rather than once a pass.

use ndarray::{ArrayD, IxDyn};
use std::marker::PhantomData;
use std::sync::Mutex;

/// A pool of `f32` buffers. Interior mutability lets ops take buffers through a shared borrow; a
/// mutex rather than a `RefCell` lets a model be shared by threads (each with its own pool, so
/// the lock is never contended).
#[derive(Debug, Default)]
pub struct Workspace {
    free: Mutex<Vec<Pooled>>,
    packed: Mutex<PackedWeights>,
    /// Trimmed as each pass's graph is dropped (see [`Workspace::trimming`]).
    trims_after_passes: bool,
}

/// The pinned weights' packed forms.
#[derive(Debug, Default)]
struct PackedWeights {
    /// Where the pinned weights start and end (both 0 when none are pinned).
    span: (usize, usize),
    /// Weight i's form used as it is at 2i, transposed at 2i + 1, once packed.
    forms: Vec<Option<Vec<f32>>>,
}

/// Weights that stay as they are while this lives (it borrows them), so that their packed forms
/// may be reused; unpinned when dropped.
pub struct Pinned<'w> {
    ws: &'w Workspace,
    weights: PhantomData<&'w [ArrayD<f32>]>,
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        self.ws.set_packed(PackedWeights::default());
    }
}

/// A free buffer, and whether a [`Workspace::trim`] has passed since it came back.
#[derive(Debug)]
struct Pooled {
    buffer: Vec<f32>,
    trimmed_once: bool,
}

impl Workspace {
    /// A pool trimmed after every pass recorded on it, for passes of any kind one after another
    /// with nobody to trim it between them (a model's own, looking inside it; a chain's): the
    /// buffers a pass gives back stay for the next, and the pool cannot grow.
    pub fn trimming() -> Self {
        Workspace { trims_after_passes: true, ..Workspace::default() }
    }

    /// Trims the pool if it trims after passes: a pass's graph is done with it.
    pub(crate) fn pass_done(&self) {
        if self.trims_after_passes {
            self.trim();
        }
    }

    /// A buffer of `n` values whose contents are left from earlier use, for callers that
    /// overwrite every element; zeroing it first would be wasted work. Reuses the smallest free
    /// buffer that fits.
    pub fn scratch(&self, n: usize) -> Vec<f32> {
        if n == 0 {
            return Vec::new(); // an evaluation's partial has no gradients: no pooled buffer for it
        }
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let capacity = |i: usize| free[i].buffer.capacity();
        let best = (0..free.len()).filter(|&i| capacity(i) >= n).min_by_key(|&i| capacity(i));
        match best {
            Some(i) => {
                let mut v = free.swap_remove(i).buffer;
                v.resize(n, 0.0);
                v
            }
            None => vec![0.0; n],
        }
    }

    /// A zeroed buffer of `n` values, for callers that accumulate into it.
    pub fn zeros(&self, n: usize) -> Vec<f32> {
        let mut v = self.scratch(n);
        v.fill(0.0);
        v
    }

    /// An array of `shape` for a caller that overwrites every element (see [`Workspace::scratch`]).
    pub fn array(&self, shape: &[usize]) -> ArrayD<f32> {
        let n = shape.iter().product();
        ArrayD::from_shape_vec(IxDyn(shape), self.scratch(n)).expect("sized to the shape")
    }

    /// A copy of `x` in a recycled buffer.
    pub fn copy(&self, x: &ArrayD<f32>) -> ArrayD<f32> {
        let mut out = self.array(x.shape());
        out.assign(x);
        out
    }

    /// Takes back a buffer for later passes.
    pub fn recycle(&self, v: Vec<f32>) {
        if v.capacity() > 0 {
            self.free.lock().unwrap_or_else(|e| e.into_inner()).push(Pooled { buffer: v, trimmed_once: false });
        }
    }

    /// Drops the buffers nobody took since the previous trim. Some ops' outputs (a norm's
    /// parameter gradients, the loss) are not drawn from the pool but come back to it, so
    /// without a trim after each training pass the pool would grow by them at every step.
    pub fn trim(&self) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.retain_mut(|p| !std::mem::replace(&mut p.trimmed_once, true));
    }

    /// Takes back an array's buffer.
    pub fn recycle_array(&self, x: ArrayD<f32>) {
        self.recycle(x.into_raw_vec_and_offset().0);
    }

    /// Pins `weights` for as long as the result lives. Pass after pass then packs each weight's
    /// matrix products' operand only once ([`Workspace::with_packed`]).
    pub fn pin<'w>(&'w self, weights: &'w [ArrayD<f32>]) -> Pinned<'w> {
        let start = weights.as_ptr() as usize;
        let span = (start, start + std::mem::size_of_val(weights));
        self.set_packed(PackedWeights { span, forms: (0..2 * weights.len()).map(|_| None).collect() });
        Pinned { ws: self, weights: PhantomData }
    }

    /// Replaces the pinned weights' record, taking back the old one's buffers.
    fn set_packed(&self, packed: PackedWeights) {
        let old = std::mem::replace(&mut *self.packed.lock().unwrap_or_else(|e| e.into_inner()), packed);
        old.forms.into_iter().flatten().for_each(|v| self.recycle(v));
    }

    /// Calls `f` with `weight` (transposed or not) packed by `pack` into a buffer of `len` if
    /// `weight` is one of the pinned weights (packed the first time only), or with `None`.
    pub(crate) fn with_packed<R>(
        &self,
        weight: &ArrayD<f32>,
        transposed: bool,
        (len, pack): (usize, impl FnOnce(&mut [f32])),
        f: impl FnOnce(Option<&[f32]>) -> R,
    ) -> R {
        let mut packed = self.packed.lock().unwrap_or_else(|e| e.into_inner());
        let (start, end) = packed.span;
        let at = weight as *const ArrayD<f32> as usize;
        let size = std::mem::size_of::<ArrayD<f32>>();
        if len == 0 || !(start..end).contains(&at) || !(at - start).is_multiple_of(size) {
            drop(packed);
            return f(None);
        }
        let slot = &mut packed.forms[2 * ((at - start) / size) + transposed as usize];
        let form = slot.get_or_insert_with(|| {
            let mut buffer = self.scratch(len);
            pack(&mut buffer);
            buffer
        });
        f(Some(form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_weights_are_packed_once_and_others_never() {
        let ws = Workspace::default();
        let weights = vec![ArrayD::zeros(IxDyn(&[2, 3])), ArrayD::ones(IxDyn(&[3, 2]))];
        let other = ArrayD::ones(IxDyn(&[3, 2]));
        let packs = &std::cell::Cell::new(0);
        let pack = |value: f32| (4, move |out: &mut [f32]| (out.fill(value), packs.set(packs.get() + 1)).0);
        let first =
            |w: &ArrayD<f32>, transposed, value| ws.with_packed(w, transposed, pack(value), |p| p.map(|p| p[0]));
        assert_eq!(first(&weights[1], false, 1.0), None, "nothing is pinned yet");
        {
            let _pinned = ws.pin(&weights);
            assert_eq!(first(&weights[1], false, 1.0), Some(1.0));
            assert_eq!(first(&weights[1], false, 9.0), Some(1.0), "packed already");
            assert_eq!(first(&weights[1], true, 2.0), Some(2.0), "the transposed form is another");
            assert_eq!(first(&weights[0], false, 3.0), Some(3.0));
            assert_eq!(first(&other, false, 4.0), None, "not a pinned weight");
            assert_eq!(packs.get(), 3);
        }
        assert_eq!(first(&weights[1], false, 5.0), None, "unpinned: the forms are gone");
        let _again = ws.pin(&weights);
        assert_eq!(first(&weights[1], false, 6.0), Some(6.0), "pinned anew, packed anew");
    }

    #[test]
    fn a_trim_drops_what_no_pass_took_since_the_last_one() {
        let ws = Workspace::default();
        ws.recycle(vec![0.0; 8]);
        ws.recycle(vec![0.0; 64]);
        ws.trim();
        let taken = ws.scratch(8); // taken and given back: it stays
        ws.recycle(taken);
        ws.trim();
        let free = ws.free.lock().unwrap();
        assert_eq!(free.iter().map(|p| p.buffer.capacity()).collect::<Vec<_>>(), [8]);
    }

    #[test]
    fn a_trimming_pool_stays_the_size_of_a_pass_where_another_grows_by_each() {
        let model =
            crate::GPT::new(crate::GPTConfig { vocab_size: 11, ..crate::GPTConfig::small(2, 2, 16, 8) }, 1).unwrap();
        let idx = [1, 2, 3, 4, 5, 6, 7, 8];
        for (ws, grows) in [(Workspace::default(), true), (Workspace::trimming(), false)] {
            let mut sizes = vec![];
            for _ in 0..3 {
                // A scored pass: its loss comes back to the pool without coming from it.
                model.score_in(&ws, &idx, &idx, 1, 8).unwrap();
                sizes.push(ws.free.lock().unwrap().len());
            }
            assert_eq!(sizes[2] > sizes[1], grows, "{sizes:?}");
        }
    }

    #[test]
    fn reuses_the_smallest_buffer_that_fits_and_zeroes_it() {
        let ws = Workspace::default();
        let (mut a, b) = (ws.zeros(100), ws.zeros(10));
        a[5] = 3.0;
        let ptr = a.as_ptr();
        ws.recycle(a);
        ws.recycle(b);
        let c = ws.zeros(50);
        assert_eq!((c.as_ptr(), c.len()), (ptr, 50));
        assert!(c.iter().all(|&x| x == 0.0));
    }
}
