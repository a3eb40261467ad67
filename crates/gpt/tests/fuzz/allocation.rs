//! What a checkpoint may allocate as it opens, and what it did: a counting allocator measures
//! each thread's peak, and the bound is what the file's size and its task's settings justify.

use gpt::data::tasks::ENUMERATE_LIMIT;
use gpt::TaskConfig;
use safetensors::SafeTensors;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts each thread's live bytes and their peak, so a test sees what one call allocated at
/// most while other tests run beside it. (Bytes freed by another thread than allocated them only
/// lower a count, which never hides an allocation.)
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + delta);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` had allocated at once beyond what was live before it, and its result.
pub fn peak_allocation<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let result = f();
    ((PEAK.with(Cell::get) - before) as usize, result)
}

/// What a file justifies: a model whose weights fill it, with AdamW's two moments beside it (three
/// times), the weights read once more, and a little for the header and tokenizer; and, for a
/// task's run, the split of the problems its settings make.
pub fn justified(bytes: &[u8]) -> usize {
    4 * bytes.len() + (1 << 20) + task_split(bytes)
}

/// What splitting a valid task setting's problems takes at most: one hash each, while they are
/// few enough to list (a damaged `p` may ask for a million problems, as a user may).
pub fn task_split(bytes: &[u8]) -> usize {
    let Ok((_, header)) = SafeTensors::read_metadata(bytes) else { return 0 };
    let task = header.metadata().as_ref().and_then(|m| m.get("task"));
    let Some(config) = task.and_then(|t| serde_json::from_str::<TaskConfig>(t).ok()) else { return 0 };
    if config.validate().is_err() || config.count() > ENUMERATE_LIMIT {
        return 0;
    }
    8 * config.count() as usize
}
