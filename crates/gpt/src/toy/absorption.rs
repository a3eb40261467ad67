//! Feature absorption on a hierarchy: how often a child feature fires while its own latent stays
//! silent and its parent's latent fires instead, the child's news carried by the parent's latent
//! (Chanin et al. 2024's absorption, read off activations whose truth is known).

use crate::sae::Codes;

/// Over every row where a child fires, the share in which the child's latent (`matched[child]`)
/// is silent and its parent's fires; `firing` holds the true activations (rows × features) and
/// `codes` the latents'. None without a child that fired and both latents matched.
pub fn absorption(
    codes: &Codes,
    firing: &[f32],
    matched: &[Option<usize>],
    parent: impl Fn(usize) -> Option<usize>,
) -> Option<f32> {
    let n = matched.len();
    let (mut fired, mut absorbed) = (0usize, 0usize);
    let pairs: Vec<(usize, usize, usize)> = (0..n)
        .filter_map(|c| {
            let p = parent(c)?;
            Some((c, matched[c]?, matched[p]?))
        })
        .collect();
    for row in 0..codes.rows() {
        let latents: Vec<usize> = codes.row(row).map(|(j, _)| j).collect();
        for &(child, own, parents) in &pairs {
            if firing[row * n + child] > 0.0 {
                fired += 1;
                absorbed += usize::from(!latents.contains(&own) && latents.contains(&parents));
            }
        }
    }
    (fired > 0).then(|| absorbed as f32 / fired as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_childs_firing_carried_by_its_parents_latent_counts_as_absorbed() {
        // Features 0 (parent) and 1 (its child), latents 5 and 3; the child fires on rows 0 and 1.
        let firing = [1.0, 1.0, /* row 1 */ 1.0, 0.5, /* row 2 */ 1.0, 0.0];
        let codes = Codes { starts: vec![0, 1, 3, 4], features: vec![5, 3, 5, 5], values: vec![1.0; 4] };
        let parent = |i: usize| (i == 1).then_some(0);
        // Row 0: only the parent's latent fires (absorbed); row 1: the child's fires too.
        assert_eq!(absorption(&codes, &firing, &[Some(5), Some(3)], parent), Some(0.5));
        assert_eq!(absorption(&codes, &firing, &[Some(5), None], parent), None);
    }
}
