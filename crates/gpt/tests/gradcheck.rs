//! Every op's analytic gradient against central finite differences.

use gpt::autograd::{Graph, Var};
use gpt::ops::{Activation, NormKind, IGNORE};
use gpt::rng::Rng;
use gpt::workspace::Workspace;
use ndarray::{ArrayD, IxDyn};

fn random(shape: &[usize], seed: u64) -> ArrayD<f32> {
    let mut rng = Rng::new(seed);
    ArrayD::from_shape_simple_fn(IxDyn(shape), || rng.normal())
}

/// Values at least 0.1 away from zero, so kinks (ReLU) sit outside the finite-difference step.
fn away_from_zero(shape: &[usize], seed: u64) -> ArrayD<f32> {
    random(shape, seed).mapv(|x| if x.abs() < 0.1 { x + 0.2f32.copysign(x) } else { x })
}

/// Checks d(sum(out ⊙ R))/d(input) for every element of every input, R random. Every pass
/// shares one workspace that starts out holding NaN-filled buffers, so an op that reads a
/// recycled buffer before writing all of it fails here.
fn check(inputs: Vec<ArrayD<f32>>, build: impl Fn(&mut Graph) -> Var) {
    let ws = Workspace::default();
    for n in [1, 4, 16, 64, 256, 1024, 4096] {
        ws.recycle(vec![f32::NAN; n]);
        ws.recycle(vec![f32::NAN; n + 1]);
    }
    let out_shape = {
        let mut g = Graph::new(&inputs, &ws);
        let out = build(&mut g);
        g.shape(out).to_vec()
    };
    let r = random(&out_shape, 999);
    let objective = |inputs: &[ArrayD<f32>]| -> f64 {
        let mut g = Graph::new(inputs, &ws);
        let out = build(&mut g);
        g.value(out).iter().zip(r.iter()).map(|(&a, &b)| a as f64 * b as f64).sum()
    };
    let mut grads: Vec<ArrayD<f32>> = inputs.iter().map(|x| ArrayD::zeros(x.raw_dim())).collect();
    {
        let mut g = Graph::new(&inputs, &ws);
        let out = build(&mut g);
        let mut views: Vec<_> = grads.iter_mut().map(|g| g.view_mut()).collect();
        g.backward_from(out, r.clone(), &mut views);
    }
    let eps = 1e-2f32;
    let mut probe = inputs.clone();
    for (i, grad) in grads.iter().enumerate() {
        for j in 0..inputs[i].len() {
            let orig = inputs[i].as_slice().unwrap()[j];
            probe[i].as_slice_mut().unwrap()[j] = orig + eps;
            let up = objective(&probe);
            probe[i].as_slice_mut().unwrap()[j] = orig - eps;
            let down = objective(&probe);
            probe[i].as_slice_mut().unwrap()[j] = orig;
            let numeric = ((up - down) / (2.0 * eps as f64)) as f32;
            let analytic = grad.as_slice().unwrap()[j];
            assert!(
                (numeric - analytic).abs() <= 1e-2 + 1e-2 * numeric.abs(),
                "input {i} element {j}: finite difference {numeric}, analytic {analytic}"
            );
        }
    }
}

#[test]
fn matmul_plain_and_shared_weight() {
    check(vec![random(&[2, 3], 1), random(&[3, 4], 2)], |g| g.matmul(p(g, 0), p(g, 1), false, false));
    // (B, T, C) @ W^T with W stored (out, in), as a linear layer.
    check(vec![random(&[2, 3, 4], 3), random(&[5, 4], 4)], |g| g.matmul(p(g, 0), p(g, 1), false, true));
    check(vec![random(&[2, 4, 3], 5), random(&[4, 5], 6)], |g| g.matmul(p(g, 0), p(g, 1), true, false));
}

#[test]
fn matmul_batched_with_transposes() {
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let a = if ta { [2, 2, 4, 3] } else { [2, 2, 3, 4] };
        let b = if tb { [2, 2, 5, 4] } else { [2, 2, 4, 5] };
        check(vec![random(&a, 7), random(&b, 8)], move |g| g.matmul(p(g, 0), p(g, 1), ta, tb));
    }
}

#[test]
fn add_broadcasts() {
    check(vec![random(&[2, 3, 4], 1), random(&[4], 2)], |g| g.add(p(g, 0), p(g, 1)));
    check(vec![random(&[2, 3, 4], 3), random(&[3, 1], 4)], |g| g.add(p(g, 0), p(g, 1)));
    check(vec![random(&[2, 3, 4], 5), random(&[1, 3, 4], 6)], |g| g.add(p(g, 0), p(g, 1)));
    // A value used twice (as the residual stream is) accumulates both gradients.
    check(vec![random(&[3, 4], 7)], |g| {
        let y = g.activation(Activation::GeluTanh, p(g, 0));
        g.add(y, y)
    });
}

#[test]
fn embedding_scatter_adds_repeated_ids() {
    check(vec![random(&[5, 3], 1)], |g| g.embedding(p(g, 0), &[1, 4, 1, 0, 1, 2], &[2, 3]));
}

#[test]
fn layer_norm_and_rms_norm() {
    let (x, w, b) = (random(&[2, 3, 8], 1), random(&[8], 2), random(&[8], 3));
    check(vec![x.clone(), w.clone(), b], |g| g.norm(NormKind::LayerNorm, p(g, 0), p(g, 1), Some(p(g, 2))));
    check(vec![x.clone(), w.clone()], |g| g.norm(NormKind::LayerNorm, p(g, 0), p(g, 1), None));
    check(vec![x, w], |g| g.norm(NormKind::RmsNorm, p(g, 0), p(g, 1), None));
}

#[test]
fn activations() {
    for kind in [Activation::Gelu, Activation::GeluTanh, Activation::Relu] {
        check(vec![away_from_zero(&[3, 7], 1)], move |g| g.activation(kind, p(g, 0)));
    }
}

#[test]
fn causal_attention() {
    check(vec![random(&[2, 5, 12], 1)], |g| g.causal_attention(p(g, 0), 2, None, None));
    check(vec![random(&[1, 4, 12], 2)], |g| g.causal_attention(p(g, 0), 4, None, None));
}

#[test]
fn frozen_attention_reads_the_values_through_a_given_pattern() {
    // A causal pattern, each row a distribution over the positions up to its own.
    let (b, n_head, t) = (2, 2, 5);
    let mut pattern: Vec<f32> = random(&[b * n_head * t * t], 7).iter().map(|x| x.abs()).collect();
    for (i, row) in pattern.chunks_exact_mut(t).enumerate() {
        row[i % t + 1..].fill(0.0);
        let sum: f32 = row.iter().sum();
        row.iter_mut().for_each(|p| *p /= sum);
    }
    check(vec![random(&[b, t, 12], 8)], |g| g.frozen_attention(p(g, 0), n_head, &pattern));
}

#[test]
fn causal_attention_with_dropout() {
    // A fresh generator with the same seed per evaluation gives the same mask each time.
    check(vec![random(&[2, 5, 12], 3)], |g| g.causal_attention(p(g, 0), 2, Some((0.3, &mut Rng::new(5))), None));
}

#[test]
fn dropout() {
    check(vec![random(&[4, 6], 1)], |g| g.dropout(p(g, 0), 0.4, &mut Rng::new(9)));
}

#[test]
fn rope_turns_queries_and_keys() {
    // (B, T, 3C) with C = 8 in 2 heads of 4: queries and keys turn with position, values pass.
    check(vec![random(&[2, 5, 24], 6)], |g| g.rope(p(g, 0), 2));
}

#[test]
fn qk_norm_divides_queries_and_keys_by_their_rms() {
    // (B, T, 3C) with C = 8 in 2 heads of 4: each query and key head normalised, values pass.
    check(vec![random(&[2, 5, 24], 7)], |g| g.qk_norm(p(g, 0), 2));
}

#[test]
fn take_puts_a_blocks_gradient_back_in_place() {
    // A head's q, k and v rows of a fused projection; its columns of the output projection.
    check(vec![random(&[12, 5], 31)], |g| g.take(p(g, 0), &[1..3, 5..7, 9..11], 0..5));
    check(vec![random(&[4, 6], 32)], |g| g.take(p(g, 0), std::slice::from_ref(&(0..4)), 2..4));
    check(vec![random(&[12], 33)], |g| g.take(p(g, 0), &[1..3, 9..11], 0..1));
}

#[test]
fn cross_entropy() {
    check(vec![random(&[2, 3, 5], 1)], |g| g.cross_entropy(p(g, 0), &[0, 4, 2, 2, 1, 3]));
}

#[test]
fn cross_entropy_skips_ignored_targets() {
    // A task's loss: the answer's positions count, the prompt's and the padding's do not.
    check(vec![random(&[2, 3, 5], 2)], |g| g.cross_entropy(p(g, 0), &[IGNORE, 4, IGNORE, IGNORE, 1, 3]));
    check(vec![random(&[1, 2, 5], 3)], |g| g.cross_entropy(p(g, 0), &[IGNORE, IGNORE]));
}

#[test]
fn attention_is_causal_and_rows_sum_to_one() {
    let x = vec![random(&[1, 6, 18], 4)];
    let ws = Workspace::default();
    let mut g = Graph::new(&x, &ws);
    let mut probs = vec![];
    g.causal_attention(g.param(0), 3, None, Some(&mut probs));
    assert_eq!(probs.len(), 3 * 6 * 6);
    for row in probs.chunks(6).enumerate().map(|(i, r)| (i % 6, r)) {
        let (t, p) = row;
        assert!(p[t + 1..].iter().all(|&v| v == 0.0), "row {t} looks ahead");
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
}

/// Parameter `i` of the graph (the inputs under test are the graph's parameters).
fn p(g: &Graph, i: usize) -> Var {
    g.param(i)
}
