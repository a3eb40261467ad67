//! Buffers recycled from one forward/backward pass to the next. Every training step records the
//! same ops with the same shapes, so after the first step the passes allocate (almost) nothing,
//! and the allocator never hands memory back to the OS only to fault it in again.

use ndarray::{ArrayD, IxDyn};
use std::sync::Mutex;

/// A pool of `f32` buffers. Interior mutability lets ops take buffers through a shared borrow; a
/// mutex rather than a `RefCell` lets a model be shared by threads (each with its own pool, so
/// the lock is never contended).
#[derive(Debug, Default)]
pub struct Workspace {
    free: Mutex<Vec<Pooled>>,
}

/// A free buffer, and whether a [`Workspace::trim`] has passed since it came back.
#[derive(Debug)]
struct Pooled {
    buffer: Vec<f32>,
    trimmed_once: bool,
}

impl Workspace {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
