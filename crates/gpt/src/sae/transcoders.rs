//! A transcoder for every MLP of a model, trained together from one forward pass: what circuit
//! tracing replaces the MLPs by (Ameisen et al. 2025). Layer `l`'s reads what block `l`'s MLP
//! reads and writes what it writes; its tensors are kept as `blocks.{l}.W_enc`, … in one set
//! of parameters, so that one trainer trains them all.

use super::config::SaeConfig;
use super::rows::{geometric_median, normalize_rows};
use super::weights::{Sae, SaeRef, B_DEC, W_DEC};
use crate::error::{Error, Result};
use crate::model::{HookPoint, Rewire};
use crate::params::Params;
use crate::words::files;
use crate::workspace::Workspace;

/// A transcoder per MLP, in one set of parameters.
#[derive(Clone, Debug)]
pub struct Transcoders {
    /// Every layer's settings but where it reads and writes (block 0's).
    config: SaeConfig,
    layers: usize,
    d_in: usize,
    params: Params,
}

impl Transcoders {
    /// Fresh transcoders, one per block of a model of `layers` blocks and `d_in` channels, each
    /// started as a lone transcoder of `config`'s kind would be (seeded `seed + layer`).
    pub fn new(config: SaeConfig, layers: usize, d_in: usize, seed: u64) -> Result<Transcoders> {
        let mut params = Params::default();
        for layer in 0..layers {
            let sae = Sae::new(Self::at(config, layer), layers, d_in, seed + layer as u64)?;
            let own = sae.params();
            for (name, value) in own.names.iter().zip(&own.values) {
                params.names.push(format!("blocks.{layer}.{name}"));
                params.values.push(value.clone());
            }
        }
        Ok(Transcoders { config: Self::at(config, 0), layers, d_in, params })
    }

    /// Transcoders with these weights (a saved set's), checked against `config` (the kind of each).
    pub fn from_params(config: SaeConfig, layers: usize, d_in: usize, params: Params) -> Result<Transcoders> {
        let fresh = Transcoders::new(config, layers, d_in, 0)?;
        let same = |(a, b): (&ndarray::ArrayD<f32>, &ndarray::ArrayD<f32>)| a.shape() == b.shape();
        if params.names != fresh.params.names || !params.values.iter().zip(&fresh.params.values).all(same) {
            return Err(Error::Format(files::transcoders_misfit(layers, d_in, config.d_sae(d_in))));
        }
        Ok(Transcoders { params, ..fresh })
    }

    /// `config`'s kind of transcoder, for block `layer`'s MLP.
    fn at(config: SaeConfig, layer: usize) -> SaeConfig {
        SaeConfig { point: HookPoint::MlpIn { layer }, output: Some(HookPoint::MlpOut { layer }), ..config }
    }

    /// Where block `layer`'s tensor `k` (in [`super::NAMES`]' order) is among the parameters.
    fn tensor(&self, layer: usize, k: usize) -> usize {
        layer * self.config.tensor_count() + k
    }

    /// Block 0's settings (every layer's but where it reads and writes).
    pub fn config(&self) -> &SaeConfig {
        &self.config
    }

    pub fn layers(&self) -> usize {
        self.layers
    }

    pub fn d_in(&self) -> usize {
        self.d_in
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub(crate) fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Block `layer`'s transcoder.
    pub fn layer(&self, layer: usize) -> SaeRef<'_> {
        let at = self.tensor(layer, 0);
        SaeRef::new(Self::at(self.config, layer), self.d_in, &self.params.values[at..self.tensor(layer + 1, 0)])
    }

    /// Every layer's transcoder, from block 0.
    pub fn each(&self) -> Vec<SaeRef<'_>> {
        (0..self.layers).map(|l| self.layer(l)).collect()
    }

    /// Sets block `layer`'s output bias to the geometric median of `sample` (rows of the MLP's
    /// output), as a lone transcoder starts.
    pub fn centre(&mut self, layer: usize, sample: &[f32]) {
        let median = geometric_median(sample, self.d_in);
        let at = self.tensor(layer, B_DEC);
        let b_dec = self.params.values[at].as_slice_mut().expect("standard layout");
        b_dec.iter_mut().zip(&median).for_each(|(b, &m)| *b = m);
    }

    pub(crate) fn normalize_decoders(&mut self) {
        for layer in 0..self.layers {
            let at = self.tensor(layer, W_DEC);
            let w = self.params.values[at].as_slice_mut().expect("standard layout");
            normalize_rows(w, self.d_in);
        }
    }

    /// The replacement of the model's MLPs by these transcoders, for a forward pass.
    pub fn replacement<'a>(&'a self, ws: &'a Workspace) -> Replacement<'a> {
        Replacement { transcoders: self, ws, errors: None, scaled: &[] }
    }

    /// The local replacement model of a prompt: each layer's transcoder plus its `errors` (what it
    /// missed on the prompt, (T, C) per layer), so that it is the model on the prompt; with the
    /// features `scaled` (layer, position, feature, factor: 0 knocks one out) wherever they fire.
    pub fn local_replacement<'a>(
        &'a self,
        ws: &'a Workspace,
        errors: &'a [Vec<f32>],
        scaled: &'a [Scaled],
    ) -> Replacement<'a> {
        Replacement { transcoders: self, ws, errors: Some(errors), scaled }
    }
}

/// A feature's activation scaled at one position: (layer, position, feature, factor).
pub type Scaled = (usize, usize, usize, f32);

/// The model with every MLP's output replaced by its transcoder's, from what the MLP reads in the
/// same pass: the replacement model; with a prompt's errors added, its local replacement model.
pub struct Replacement<'a> {
    transcoders: &'a Transcoders,
    ws: &'a Workspace,
    errors: Option<&'a [Vec<f32>]>,
    scaled: &'a [Scaled],
}

impl Rewire for Replacement<'_> {
    fn delta(&mut self, _: crate::model::Reader) -> Option<Vec<f32>> {
        None
    }

    fn mlp_output(&mut self, layer: usize, input: &[f32]) -> Option<Vec<f32>> {
        let transcoder = self.transcoders.layer(layer);
        let mut codes = transcoder.encode(self.ws, input);
        for &(_, position, feature, factor) in self.scaled.iter().filter(|s| s.0 == layer) {
            let row = codes.starts[position]..codes.starts[position + 1];
            for (j, value) in codes.features[row.clone()].iter().zip(&mut codes.values[row]) {
                if *j as usize == feature {
                    *value *= factor;
                }
            }
        }
        let mut out = transcoder.output(input, &codes);
        if let Some(errors) = self.errors {
            out.iter_mut().zip(&errors[layer]).for_each(|(o, e)| *o += e);
        }
        Some(out)
    }
}
