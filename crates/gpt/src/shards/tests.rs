use super::*;

#[test]
fn shards_are_fixed_by_the_batch_and_balanced() {
    let counts: Vec<usize> = [1, 2, 3, 5, 8, 12, 16, 100].iter().map(|&b| shard_count(b, 1000)).collect();
    assert_eq!(counts, [1, 2, 2, 4, 8, 8, 8, 8]);
    // nano-cpu (12 × 64), tiny (16 × 32), a larger recipe (64 × 256): at least 192 tokens a shard.
    assert_eq!((shard_count(12, 64), shard_count(16, 32), shard_count(64, 256)), (4, 2, 8));
    let sizes: Vec<usize> = (0..8).map(|s| shard_rows(12, 8, s).len()).collect();
    assert_eq!(sizes, [1, 2, 1, 2, 1, 2, 1, 2]);
    let half = |k| worker_shards(8, 2, k).map(|s| shard_rows(12, 8, s).len()).sum::<usize>();
    assert_eq!((half(0), half(1)), (6, 6));
    let covered: Vec<usize> = (0..3).flat_map(|k| worker_shards(8, 3, k)).collect();
    assert_eq!(covered, (0..8).collect::<Vec<_>>());
}

fn leaf(first: usize, value: f32) -> Partial {
    Partial { first, count: 1, loss: value as f64, exact: 0, grads: vec![value] }
}

#[test]
fn any_split_into_workers_sums_in_the_same_order() {
    let ws = Workspace::default();
    // Values whose float sum depends on the order of addition.
    let values = [1e8f32, 1.0, -1e8, 1.0, 3.0, 1e-3, 7.5e7, -7.5e7];
    let by_workers = |workers: usize| {
        let mut partials = Vec::new();
        for k in 0..workers {
            let mut stack = Vec::new();
            for s in worker_shards(8, workers, k) {
                push_merging(&mut stack, leaf(s, values[s]), &ws);
            }
            partials.extend(stack);
        }
        combine(partials, 8, &ws).unwrap().grads[0].to_bits()
    };
    let one = by_workers(1);
    assert!((2..=8).all(|k| by_workers(k) == one));
    let tree =
        ((values[0] + values[1]) + (values[2] + values[3])) + ((values[4] + values[5]) + (values[6] + values[7]));
    assert_eq!(one, tree.to_bits());
}

#[test]
fn partials_that_do_not_tile_the_shards_are_refused() {
    let ws = Workspace::default();
    assert!(combine(vec![leaf(0, 1.0), leaf(2, 1.0)], 4, &ws).unwrap_err().to_string().contains("tile"));
    assert!(combine(vec![leaf(0, 1.0), leaf(1, 1.0)], 4, &ws).unwrap_err().to_string().contains("cover 2"));
    assert!(combine(vec![leaf(0, 1.0), leaf(0, 1.0)], 2, &ws).is_err());
}
