//! The attention time-lapse's store: every head's attention on the held-out probe, kept at each
//! evaluation of this session (not saved: they are large), thinned once there are too many.

/// Snapshots kept; past this, every other one is dropped.
const MAX_SNAPSHOTS: usize = 40;

/// Attention snapshots on the held-out probe at each evaluation, to replay how heads formed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timelapse {
    pub tokens: Vec<String>,
    pub steps: Vec<usize>,
    /// Per snapshot, (L, nh, T, T).
    pub maps: Vec<Vec<f32>>,
}

impl Timelapse {
    /// Keeps `maps`, the attention on `tokens` at `step`.
    pub fn push(&mut self, step: usize, tokens: Vec<String>, maps: Vec<f32>) {
        if self.steps.len() == MAX_SNAPSHOTS {
            let keep = |i: &usize| i.is_multiple_of(2);
            self.steps = self.steps.iter().enumerate().filter(|(i, _)| keep(i)).map(|(_, s)| *s).collect();
            self.maps = std::mem::take(&mut self.maps)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep(i))
                .map(|(_, m)| m)
                .collect();
        }
        self.tokens = tokens;
        self.steps.push(step);
        self.maps.push(maps);
    }
}
