//! A sparse autoencoder's weights, under SAELens's names, and its two halves: the encoder, which
//! turns a token's activations into a few firing features, and the decoder, which adds their
//! directions back up (for a transcoder, at the MLP's output, from what the MLP reads). Its decoder's rows (one direction per feature) are kept at unit norm.

use super::codes::Codes;
use super::config::{Architecture, SaeConfig, JUMP_START};
use super::rows::{geometric_median, normalize_rows};
use crate::error::{Error, Result};
use crate::ops::gemm::gemm;
use crate::params::{Init, Params};
use crate::rng::Rng;
use crate::words::files;
use crate::workspace::Workspace;
use ndarray::{ArrayD, ArrayView2, ArrayViewMut2};

/// SAELens's tensor names, in the order of the flat buffers: `W_enc` (d_in, d_sae), `b_enc`
/// (d_sae), `W_dec` (d_sae, d_in), `b_dec` (d_in), a skip transcoder's `W_skip` (d_in, d_in:
/// out by in, as SAELens and circuit-tracer keep it), and a thresholded architecture's
/// `threshold` (d_sae), always the last. An autoencoder holds those its config names
/// ([`SaeConfig::tensors`]).
pub const NAMES: [&str; 6] = ["W_enc", "b_enc", "W_dec", "b_dec", "W_skip", "threshold"];
pub(crate) const W_ENC: usize = 0;
pub(crate) const B_ENC: usize = 1;
pub(crate) const W_DEC: usize = 2;
pub(crate) const B_DEC: usize = 3;
pub(crate) const W_SKIP: usize = 4;
const THRESHOLD: usize = 5;

/// Each tensor's shape for `d_in` channels and `d_sae` features, in [`NAMES`]' order.
pub(crate) fn shapes(d_in: usize, d_sae: usize) -> [Vec<usize>; 6] {
    [vec![d_in, d_sae], vec![d_sae], vec![d_sae, d_in], vec![d_in], vec![d_in, d_in], vec![d_sae]]
}

/// The encoder starts as the decoder's transpose times this: SAELens's start (decoder rows of
/// norm 0.1, and the encoder their transpose) seen with unit-norm rows, so that a fresh
/// autoencoder's reconstruction is small whatever its architecture.
const ENCODER_START: f32 = 0.01;

/// A sparse autoencoder: its settings, its sizes and its weights.
#[derive(Clone, Debug)]
pub struct Sae {
    config: SaeConfig,
    d_in: usize,
    params: Params,
}

impl Sae {
    /// A fresh autoencoder for a model of `layers` layers and `d_in` channels: decoder rows drawn
    /// at random and scaled to unit norm, the encoder their transpose (Gao et al. 2024) scaled by
    /// [`ENCODER_START`], zero biases until [`Sae::centre`].
    pub fn new(config: SaeConfig, layers: usize, d_in: usize, seed: u64) -> Result<Sae> {
        config.validate(layers, d_in)?;
        let d_sae = config.d_sae(d_in);
        let mut rng = Rng::new(seed);
        let mut params = Params::default();
        params.add(NAMES[W_ENC].into(), &[d_in, d_sae], Init::Zeros, &mut rng);
        params.add(NAMES[B_ENC].into(), &[d_sae], Init::Zeros, &mut rng);
        params.add(NAMES[W_DEC].into(), &[d_sae, d_in], Init::Normal(1.0), &mut rng);
        params.add(NAMES[B_DEC].into(), &[d_in], Init::Zeros, &mut rng);
        if config.skip {
            // Zero, so a fresh skip transcoder is a fresh transcoder (SAELens's start).
            params.add(NAMES[W_SKIP].into(), &[d_in, d_in], Init::Zeros, &mut rng);
        }
        if config.architecture.thresholded() {
            params.add(NAMES[THRESHOLD].into(), &[d_sae], Init::Zeros, &mut rng);
        }
        let mut sae = Sae { config, d_in, params };
        sae.normalize_decoder();
        // BatchTopK's threshold starts at 0 and follows the batches; JumpReLU's is learnt.
        let start = if let Architecture::JumpRelu { .. } = config.architecture { JUMP_START } else { 0.0 };
        sae.threshold_mut().into_iter().for_each(|t| t.fill(start));
        let w_dec = sae.params.values[W_DEC].clone();
        sae.params.values[W_ENC].assign(&(w_dec.t().to_owned() * ENCODER_START));
        Ok(sae)
    }

    /// An autoencoder with these weights (a saved one's), checked against its settings.
    pub fn from_params(config: SaeConfig, layers: usize, d_in: usize, params: Params) -> Result<Sae> {
        config.validate(layers, d_in)?;
        let d_sae = config.d_sae(d_in);
        let count = config.tensor_count();
        if params.names.len() != count {
            return Err(Error::Format(files::sae_tensors(params.names.len(), count)));
        }
        let shapes = shapes(d_in, d_sae);
        for (at, k) in config.tensors().into_iter().enumerate() {
            let (name, shape) = (NAMES[k], &shapes[k]);
            if params.names.get(at).map(String::as_str) != Some(name) || params.values[at].shape() != shape {
                return Err(Error::Format(files::sae_tensor(name, format!("{shape:?}"), d_in, d_sae)));
            }
        }
        Ok(Sae { config, d_in, params })
    }

    pub fn config(&self) -> &SaeConfig {
        &self.config
    }

    /// The model's channels, which it reads and writes.
    pub fn d_in(&self) -> usize {
        self.d_in
    }

    /// Its features.
    pub fn d_sae(&self) -> usize {
        self.view().d_sae()
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub(crate) fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Scales every decoder row to unit norm, so that a feature's activation is its length along
    /// its direction.
    pub(crate) fn normalize_decoder(&mut self) {
        normalize_rows(self.params.values[W_DEC].as_slice_mut().expect("standard layout"), self.d_in);
    }

    /// A thresholded architecture's thresholds, one per feature, to set.
    pub(crate) fn threshold_mut(&mut self) -> Option<&mut [f32]> {
        let last = self.params.values.len() - 1;
        let values = self.config.architecture.thresholded().then(|| self.params.values[last].as_slice_mut());
        values.map(|v| v.expect("standard layout"))
    }

    /// Sets the decoder bias to the geometric median of `sample` (rows of `d_in` activations): the
    /// point the reconstruction starts from, as Gao et al. do.
    pub fn centre(&mut self, sample: &[f32]) {
        if sample.len() < self.d_in {
            return;
        }
        let median = geometric_median(sample, self.d_in);
        let b_dec = self.params.values[B_DEC].as_slice_mut().expect("standard layout");
        b_dec.copy_from_slice(&median);
    }

    /// Its weights as its two halves read them.
    pub fn view(&self) -> SaeRef<'_> {
        SaeRef::new(self.config, self.d_in, &self.params.values)
    }

    /// Which features fire on each row of `x` (rows of `d_in` activations), and how strongly.
    pub fn encode(&self, ws: &Workspace, x: &[f32]) -> Codes {
        self.view().encode(ws, x)
    }

    /// The reconstruction of each row from its codes (see [`SaeRef::decode`]).
    pub fn decode(&self, codes: &Codes) -> Vec<f32> {
        self.view().decode(codes)
    }

    /// Feature `j`'s direction in the model's activations: its decoder row.
    pub fn direction(&self, j: usize) -> &[f32] {
        self.view().direction(j)
    }
}

/// An autoencoder's weights as its encoder and decoder read them: an autoencoder's own
/// ([`Sae::view`]) or one layer's of a set of transcoders (its tensors in [`NAMES`]' order).
#[derive(Clone, Copy)]
pub struct SaeRef<'a> {
    config: SaeConfig,
    d_in: usize,
    values: &'a [ArrayD<f32>],
}

impl<'a> SaeRef<'a> {
    /// `values`' first tensors (as many as `config`'s kind has), shaped for `config` on `d_in` channels.
    pub(crate) fn new(config: SaeConfig, d_in: usize, values: &'a [ArrayD<f32>]) -> SaeRef<'a> {
        SaeRef { config, d_in, values }
    }

    pub fn config(&self) -> &SaeConfig {
        &self.config
    }

    pub fn d_in(&self) -> usize {
        self.d_in
    }

    pub fn d_sae(&self) -> usize {
        self.config.d_sae(self.d_in)
    }

    /// Its weights, counted one by one.
    pub fn param_count(&self) -> usize {
        self.tensors().iter().map(ArrayD::len).sum()
    }

    /// A thresholded architecture's thresholds, one per feature (its last tensor), or none.
    pub fn threshold(&self) -> Option<&'a [f32]> {
        self.config.architecture.thresholded().then(|| self.slice(self.config.tensor_count() - 1))
    }

    /// Its tensors, in [`NAMES`]' order.
    pub fn tensors(&self) -> &'a [ArrayD<f32>] {
        &self.values[..self.config.tensor_count()]
    }

    pub(crate) fn slice(&self, k: usize) -> &'a [f32] {
        self.values[k].as_slice().expect("parameters are kept in standard layout")
    }

    /// The decoder, a row per feature: each feature's direction.
    pub fn decoder(&self) -> &'a [f32] {
        self.slice(W_DEC)
    }

    /// Feature `j`'s direction in the model's activations: its decoder row.
    pub fn direction(&self, j: usize) -> &'a [f32] {
        &self.decoder()[j * self.d_in..(j + 1) * self.d_in]
    }

    /// The encoder's pre-activations of `x` (rows of `d_in`): (x − b_dec) W_enc + b_enc, rows of
    /// `d_sae`; and `x − b_dec`, which the backward pass reads. A transcoder's b_dec is its output's
    /// bias, in another space than its input: it reads x as it is (SAELens's `Transcoder`).
    pub(crate) fn pre_activations(&self, ws: &Workspace, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let (d, m) = (self.d_in, self.d_sae());
        let rows = x.len() / d;
        let mut centred = ws.scratch(x.len());
        let shift = if self.config.is_transcoder() { 0.0 } else { 1.0 };
        for (c, row) in centred.chunks_exact_mut(d).zip(x.chunks_exact(d)) {
            c.iter_mut().zip(row).zip(self.slice(B_DEC)).for_each(|((c, &x), &b)| *c = x - shift * b);
        }
        let mut pre = ws.scratch(rows * m);
        for row in pre.chunks_exact_mut(m) {
            row.copy_from_slice(self.slice(B_ENC));
        }
        let a = ArrayView2::from_shape((rows, d), &centred[..]).expect("sized above");
        let w = ArrayView2::from_shape((d, m), self.slice(W_ENC)).expect("shaped W_enc");
        let mut c = ArrayViewMut2::from_shape((rows, m), &mut pre[..]).expect("sized above");
        gemm(1.0, &a, &w, true, &mut c);
        (pre, centred)
    }

    /// Which features fire on each row of `x` (rows of `d_in` activations), and how strongly.
    pub fn encode(&self, ws: &Workspace, x: &[f32]) -> Codes {
        let (pre, centred) = self.pre_activations(ws, x);
        let codes = Codes::of(&pre, self.d_sae(), self.config.architecture, self.threshold());
        ws.recycle(pre);
        ws.recycle(centred);
        codes
    }

    /// The reconstruction of each row from its codes: b_dec plus each firing feature's activation
    /// times its direction.
    pub fn decode(&self, codes: &Codes) -> Vec<f32> {
        let d = self.d_in;
        let mut out = Vec::with_capacity(codes.rows() * d);
        for n in 0..codes.rows() {
            let at = out.len();
            out.extend_from_slice(self.slice(B_DEC));
            self.add_directions(codes.row(n), &mut out[at..]);
        }
        out
    }

    /// What it writes for rows `x` (rows of `d_in`) that gave `codes`: [`SaeRef::decode`], plus a
    /// skip transcoder's `x W_skipᵀ`.
    pub fn output(&self, x: &[f32], codes: &Codes) -> Vec<f32> {
        let mut out = self.decode(codes);
        self.add_skip(x, &mut out);
        out
    }

    /// A skip transcoder's `W_skip` (d_in, d_in: out by in), or none.
    pub fn skip_weights(&self) -> Option<&'a [f32]> {
        self.config.skip.then(|| self.slice(W_SKIP))
    }

    /// Adds a skip transcoder's `x W_skipᵀ` to `out` (both rows of `d_in`); nothing without one.
    fn add_skip(&self, x: &[f32], out: &mut [f32]) {
        if !self.config.skip {
            return;
        }
        let d = self.d_in;
        let a = ArrayView2::from_shape((x.len() / d, d), x).expect("rows of d_in");
        let w = ArrayView2::from_shape((d, d), self.slice(W_SKIP)).expect("shaped W_skip");
        let mut c = ArrayViewMut2::from_shape((x.len() / d, d), out).expect("rows of d_in");
        gemm(1.0, &a, &w.t(), true, &mut c);
    }

    /// Adds each of `features`' activation times its direction to `row`.
    pub(crate) fn add_directions(&self, features: impl Iterator<Item = (usize, f32)>, row: &mut [f32]) {
        for (j, a) in features {
            row.iter_mut().zip(self.direction(j)).for_each(|(r, &w)| *r += a * w);
        }
    }
}
