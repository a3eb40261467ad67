//! The most two cores give work that meets at a barrier every 10 ms, as a two-worker step does, on
//! this machine now: one thread against two in lockstep, alternating, for arithmetic that stays in
//! registers and for passes over 16 MB per thread (past a core's L2, as a step's activations are).
//! A shared host can hold either under 2x; then no split of a step can do better.
//! Usage: `cargo run --release -p gpt-cli --example lockstep [-- PAIRS]`
use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

/// Rounds a timing runs: about a second.
const ROUNDS: usize = 100;
/// How long one round of work takes on one thread.
const ROUND_MS: f64 = 10.0;
/// Floats each thread passes over in the memory test: 16 MB.
const MEMORY_FLOATS: usize = 1 << 22;

/// `n` passes of multiply-adds over `lanes`: 32 floats stay in registers, 16 MB do not.
fn work(lanes: &mut [f32], n: usize) -> f32 {
    for _ in 0..n {
        for x in lanes.iter_mut() {
            *x = *x * 0.999_999 + 1e-7;
        }
    }
    lanes[0]
}

/// Seconds for `threads` threads to each do `ROUNDS` rounds of `n` passes over `floats` floats,
/// meeting after each.
fn timed(threads: usize, floats: usize, n: usize) -> f64 {
    let barrier = Barrier::new(threads);
    let mut buffers: Vec<Vec<f32>> = (0..threads).map(|_| vec![1.0; floats]).collect();
    let start = Instant::now();
    std::thread::scope(|scope| {
        for lanes in &mut buffers {
            let barrier = &barrier;
            scope.spawn(move || {
                for _ in 0..ROUNDS {
                    black_box(work(black_box(lanes), black_box(n)));
                    barrier.wait();
                }
            });
        }
    });
    start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median over `pairs` timings of two threads' speed over one thread's, for work over
/// `floats` floats.
fn median_ratio(name: &str, floats: usize, pairs: usize) -> f64 {
    let probe = (3_000_000 / floats).max(1);
    let secs_per_pass = timed(1, floats, probe) / (ROUNDS * probe) as f64;
    let n = ((ROUND_MS / 1000.0 / secs_per_pass) as usize).max(1);
    let ratios = (0..pairs)
        .map(|_| {
            let (one, two) = (timed(1, floats, n), timed(2, floats, n));
            let ratio = 2.0 * one / two;
            println!("{name}: one thread {one:.3} s, two {two:.3} s: {ratio:.2}x");
            ratio
        })
        .collect();
    median(ratios)
}

fn main() {
    let pairs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7).max(1);
    let registers = median_ratio("registers", 32, pairs);
    let memory = median_ratio("16 MB", MEMORY_FLOATS, pairs);
    println!("medians over {pairs} pairs: registers {registers:.2}x, 16 MB {memory:.2}x");
}
