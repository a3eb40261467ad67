//! The most two cores give work that meets at a barrier every 10 ms, as a two-worker step does, on
//! this machine now: one thread against two in lockstep, alternating, for work in each level of a
//! core's caches. Passes over 4 KB per thread keep a core's arithmetic and loads busy from its L1
//! (two hyperthreads of one core would get 1x); loads at random in 1 MB per thread wait on its
//! L2 (which a step's tiles rely on, and which anything else on the core evicts); passes over 16 MB
//! per thread stream past it, as a step's activations do. A shared host can hold any of them under
//! 2x; then no split of a step can do better.
//! Usage: `cargo run --release -p gpt-cli --example lockstep [-- PAIRS]`
use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

/// Rounds a timing runs: about a second.
const ROUNDS: usize = 100;
/// How long one round of work takes on one thread.
const ROUND_MS: f64 = 10.0;
/// Floats each thread passes over in L1: 4 KB.
const L1_FLOATS: usize = 1 << 10;
/// Cache lines each thread visits at random in L2: 1 MB.
const L2_LINES: usize = 1 << 14;
/// Floats each thread streams through: 16 MB.
const STREAM_FLOATS: usize = 1 << 22;
/// 4-byte values in a 64-byte cache line.
const LINE: usize = 16;

/// One thread's work: `run(n)` does `n` units of it.
trait Work: Send {
    fn run(&mut self, n: usize) -> u32;
}

/// Multiply-adds over every lane, `n` times.
struct Lanes(Vec<f32>);

impl Lanes {
    /// `lanes` floats with a cache line of padding on each side, so that two threads' buffers,
    /// allocated side by side, never share a line (it would go back and forth between the cores
    /// at every pass, and be timed instead of the cores).
    fn new(lanes: usize) -> Lanes {
        Lanes(vec![1.0; lanes + 2 * LINE])
    }
}

impl Work for Lanes {
    fn run(&mut self, n: usize) -> u32 {
        let end = self.0.len() - LINE;
        let lanes = &mut self.0[LINE..end];
        for _ in 0..n {
            for x in lanes.iter_mut() {
                *x = *x * 0.999_999 + 1e-7;
            }
        }
        lanes[0].to_bits()
    }
}

/// `n` loads, each at the line the one before names: one cycle through every line in a random
/// order, so neither the prefetcher nor the out-of-order core can hide a load that misses.
struct Chase(Vec<u32>);

impl Chase {
    fn new(lines: usize, seed: u64) -> Chase {
        let mut order: Vec<usize> = (0..lines).collect();
        let mut state = seed | 1;
        for i in (1..lines).rev() {
            // xorshift64: any fixed shuffle does, and the example needs no dependency.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut next = vec![0; lines * LINE];
        for (k, &line) in order.iter().enumerate() {
            next[line * LINE] = (order[(k + 1) % lines] * LINE) as u32;
        }
        Chase(next)
    }
}

impl Work for Chase {
    fn run(&mut self, n: usize) -> u32 {
        let mut at = 0;
        for _ in 0..n {
            at = self.0[at as usize];
        }
        at
    }
}

/// Seconds for `threads` threads, each with its own `make(thread)`, to each do `ROUNDS` rounds of
/// `n` units, meeting after each. Each thread builds and warms its own work first, as a worker
/// owns its memory, and the clock starts once all are ready.
fn timed<W: Work>(threads: usize, make: &(impl Fn(usize) -> W + Sync), n: usize) -> f64 {
    let ready = Barrier::new(threads + 1);
    let round = Barrier::new(threads);
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let (ready, round) = (&ready, &round);
            scope.spawn(move || {
                let mut work = make(thread);
                black_box(work.run(black_box(n)));
                ready.wait();
                for _ in 0..ROUNDS {
                    black_box(work.run(black_box(n)));
                    round.wait();
                }
            });
        }
        ready.wait();
        // Leaving the scope joins the threads, so the clock reads after the last round.
        Instant::now()
    })
    .elapsed()
    .as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Units of the work `make` builds that take one thread about `ROUND_MS`, as a timing of all the
/// rounds finds: doubled until the timing takes 50 ms (a shorter one is at the mercy of the timer
/// and the host), then scaled.
fn units_per_round<W: Work>(make: &(impl Fn(usize) -> W + Sync)) -> usize {
    let mut n = 1;
    loop {
        let secs = timed(1, make, n);
        if secs >= 0.05 {
            return ((ROUND_MS / 1000.0 * ROUNDS as f64 / secs * n as f64) as usize).max(1);
        }
        n *= 2;
    }
}

/// The median over `pairs` timings of two threads' speed over one thread's, for the work `make`
/// builds.
fn median_ratio<W: Work>(name: &str, make: impl Fn(usize) -> W + Sync, pairs: usize) -> f64 {
    let n = units_per_round(&make);
    let ratios = (0..pairs)
        .map(|_| {
            let (one, two) = (timed(1, &make, n), timed(2, &make, n));
            let ratio = 2.0 * one / two;
            println!("{name}: one thread {one:.3} s, two {two:.3} s: {ratio:.2}x");
            ratio
        })
        .collect();
    median(ratios)
}

fn main() {
    let pairs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7).max(1);
    let l1 = median_ratio("4 KB (L1)", |_| Lanes::new(L1_FLOATS), pairs);
    let l2 = median_ratio("1 MB at random (L2)", |t| Chase::new(L2_LINES, 0x9E37_79B9 + t as u64), pairs);
    let stream = median_ratio("16 MB streamed", |_| Lanes::new(STREAM_FLOATS), pairs);
    println!(
        "medians over {pairs} pairs: 4 KB (L1) {l1:.2}x, 1 MB at random (L2) {l2:.2}x, 16 MB streamed {stream:.2}x"
    );
}
