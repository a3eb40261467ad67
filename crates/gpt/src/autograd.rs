//! Reverse-mode automatic differentiation over `f32` arrays.
//!
//! A [`Graph`] records each op's output and its backward half as the forward pass runs; the
//! parameters are borrowed, never copied, and take the first [`Var`] slots. [`Graph::backward`]
//! then walks the record in reverse and adds each parameter's gradient into caller-owned buffers.
//! The ops themselves live in `ops/`, one file per family, each backward beside its forward.
//! Buffers come from a [`Workspace`] and go back to it when the graph is dropped.

use crate::workspace::Workspace;
use ndarray::{ArrayD, ArrayViewMutD};

/// A handle to a value recorded in a [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Var(pub(crate) usize);

/// An op's inputs' values.
pub(crate) type Inputs<'a, 'b> = &'a [&'b ArrayD<f32>];

/// Each input's gradient, `None` where an op gives none.
pub(crate) type Grads = Vec<Option<ArrayD<f32>>>;

/// The backward half of an op.
pub(crate) trait Backward {
    /// Gradients with respect to each input (`None` where the op gives none), given the inputs,
    /// the output and the output's gradient; new buffers come from `ws`. An op implements this
    /// or [`Backward::backward_only`].
    fn backward(&self, inputs: Inputs, out: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        self.backward_only(inputs, out, dout, &vec![true; inputs.len()], ws)
    }

    /// [`Backward::backward`] when only the gradients of the inputs `wants` marks are read: an
    /// op may skip the others (giving `None`).
    fn backward_only(
        &self,
        inputs: Inputs,
        out: &ArrayD<f32>,
        dout: ArrayD<f32>,
        wants: &[bool],
        ws: &Workspace,
    ) -> Grads {
        let _ = wants;
        self.backward(inputs, out, dout, ws)
    }

    /// The buffers the op saved for its backward pass, for reuse once the graph is done.
    fn into_buffers(self: Box<Self>) -> Vec<Vec<f32>> {
        Vec::new()
    }
}

struct Node {
    value: ArrayD<f32>,
    inputs: Vec<Var>,
    op: Box<dyn Backward>,
    /// Whether a wanted parameter's gradient flows through this node (PyTorch's `requires_grad`).
    needs: bool,
}

/// The record of one forward pass.
pub struct Graph<'p> {
    params: &'p [ArrayD<f32>],
    ws: &'p Workspace,
    nodes: Vec<Node>,
    /// The parameters whose gradients the backward pass gives; none marked means every one.
    wanted: Option<Vec<bool>>,
}

impl<'p> Graph<'p> {
    /// A graph whose leaves are `params` (parameter `i` is `graph.param(i)`), taking its
    /// buffers from `ws`.
    pub fn new(params: &'p [ArrayD<f32>], ws: &'p Workspace) -> Self {
        Graph { params, ws, nodes: Vec::with_capacity(256), wanted: None }
    }

    /// This graph giving only the gradients of the parameters `wanted` marks (the others read as
    /// zeros), so the backward pass skips what reaches no wanted one: the layers below the lowest
    /// and the frozen weights' own gradients.
    pub fn wanting(mut self, wanted: &[bool]) -> Self {
        assert_eq!(wanted.len(), self.params.len(), "one mark per parameter");
        self.wanted = Some(wanted.to_vec());
        self
    }

    /// Whether a gradient with respect to `v` is needed.
    fn needs(&self, v: Var) -> bool {
        match v.0.checked_sub(self.params.len()) {
            None => self.wanted.as_ref().is_none_or(|w| w[v.0]),
            Some(n) => self.nodes[n].needs,
        }
    }

    /// The parameters, as the graph's leaves hold them.
    pub(crate) fn params(&self) -> &'p [ArrayD<f32>] {
        self.params
    }

    /// Where ops take their buffers from.
    pub(crate) fn ws(&self) -> &'p Workspace {
        self.ws
    }

    /// The leaf for parameter `i`.
    pub fn param(&self, i: usize) -> Var {
        assert!(i < self.params.len(), "parameter {i} out of range");
        Var(i)
    }

    /// Whether `v` is a parameter's leaf.
    pub(crate) fn is_param(&self, v: Var) -> bool {
        v.0 < self.params.len()
    }

    /// The value of `v`.
    pub fn value(&self, v: Var) -> &ArrayD<f32> {
        match v.0.checked_sub(self.params.len()) {
            None => &self.params[v.0],
            Some(n) => &self.nodes[n].value,
        }
    }

    /// The shape of `v`.
    pub fn shape(&self, v: Var) -> &[usize] {
        self.value(v).shape()
    }

    /// Records an op's output. Every recorded value is in standard (C-contiguous) layout, so
    /// kernels can work on flat slices.
    pub(crate) fn push(&mut self, value: ArrayD<f32>, inputs: Vec<Var>, op: impl Backward + 'static) -> Var {
        debug_assert!(value.is_standard_layout());
        let needs = inputs.iter().any(|&v| self.needs(v));
        self.nodes.push(Node { value, inputs, op: Box::new(op), needs });
        Var(self.params.len() + self.nodes.len() - 1)
    }

    /// Back-propagates from the scalar `loss` scaled by `weight` (1 for its plain gradient),
    /// writing each parameter's gradient into `param_grads`.
    pub fn backward(&self, loss: Var, weight: f32, param_grads: &mut [ArrayViewMutD<f32>]) {
        let seed = ArrayD::from_elem(self.shape(loss), weight);
        self.backward_from(loss, seed, param_grads);
    }

    /// Back-propagates `seed` (the gradient of some scalar with respect to `out`), writing each
    /// parameter's gradient into `param_grads`, whose old contents are overwritten: the first
    /// contribution to a parameter is copied and later ones added, which is bit for bit what
    /// adding them all to zeros gives, without a pass to zero the buffers first.
    pub fn backward_from(&self, out: Var, seed: ArrayD<f32>, param_grads: &mut [ArrayViewMutD<f32>]) {
        self.backward_seeing(out, seed, param_grads, |_, _| {});
    }

    /// [`Graph::backward`], and the gradient of the loss with respect to each of `kept`'s values
    /// (none for one the loss does not depend on): what looking inside a training step shows.
    pub fn backward_keeping(
        &self,
        loss: Var,
        param_grads: &mut [ArrayViewMutD<f32>],
        kept: &[Var],
    ) -> Vec<Option<ArrayD<f32>>> {
        let seed = ArrayD::from_elem(self.shape(loss), 1.0);
        self.backward_from_keeping(loss, seed, param_grads, kept)
    }

    /// [`Graph::backward_from`], and the gradient with respect to each of `kept`'s values: what
    /// attribution reads.
    pub fn backward_from_keeping(
        &self,
        out: Var,
        seed: ArrayD<f32>,
        param_grads: &mut [ArrayViewMutD<f32>],
        kept: &[Var],
    ) -> Vec<Option<ArrayD<f32>>> {
        let mut found: Vec<Option<ArrayD<f32>>> = vec![None; kept.len()];
        self.backward_seeing(out, seed, param_grads, |node, grad| {
            for (k, _) in kept.iter().enumerate().filter(|(_, v)| v.0 == self.params.len() + node) {
                found[k] = Some(grad.clone());
            }
        });
        found
    }

    /// [`Graph::backward_from`], showing `seen` each node's whole gradient once it is summed.
    fn backward_seeing(
        &self,
        out: Var,
        seed: ArrayD<f32>,
        param_grads: &mut [ArrayViewMutD<f32>],
        mut seen: impl FnMut(usize, &ArrayD<f32>),
    ) {
        assert_eq!(param_grads.len(), self.params.len(), "one gradient buffer per parameter");
        assert_eq!(seed.shape(), self.shape(out), "seed gradient shape");
        let n_params = self.params.len();
        let mut written = vec![false; n_params];
        // Flat slices, not ndarray's zip, so these loops vectorise.
        let mut write = |i: usize, d: &ArrayD<f32>| {
            let (g, d) =
                (param_grads[i].as_slice_mut().expect("standard layout"), d.as_slice().expect("standard layout"));
            if std::mem::replace(&mut written[i], true) {
                g.iter_mut().zip(d).for_each(|(g, d)| *g += d);
            } else {
                g.copy_from_slice(d);
            }
        };
        let mut grads: Grads = (0..self.nodes.len()).map(|_| None).collect();
        match out.0.checked_sub(n_params) {
            None => write(out.0, &seed),
            Some(n) => grads[n] = Some(seed),
        }
        for n in (0..self.nodes.len()).rev() {
            let Some(dout) = grads[n].take() else { continue };
            seen(n, &dout);
            let node = &self.nodes[n];
            let inputs: Vec<&ArrayD<f32>> = node.inputs.iter().map(|&v| self.value(v)).collect();
            let wants: Vec<bool> = node.inputs.iter().map(|&v| self.needs(v)).collect();
            let dinputs = node.op.backward_only(&inputs, &node.value, dout, &wants, self.ws);
            for ((v, d), &want) in node.inputs.iter().zip(dinputs).zip(&wants) {
                let Some(d) = d else { continue };
                if !want {
                    self.ws.recycle_array(d);
                    continue;
                }
                // Kernels read gradients as flat slices.
                let d = standard(d);
                debug_assert_eq!(d.shape(), self.shape(*v));
                match v.0.checked_sub(n_params) {
                    None => {
                        write(v.0, &d);
                        self.ws.recycle_array(d);
                    }
                    Some(m) => match &mut grads[m] {
                        Some(acc) => {
                            *acc += &d;
                            self.ws.recycle_array(d);
                        }
                        slot => *slot = Some(d),
                    },
                }
            }
        }
        // A parameter the output does not depend on has a zero gradient.
        for (g, _) in param_grads.iter_mut().zip(&written).filter(|(_, &w)| !w) {
            g.fill(0.0);
        }
    }
}

/// `x` in standard layout, copied only if it is not already.
fn standard(x: ArrayD<f32>) -> ArrayD<f32> {
    if x.is_standard_layout() {
        x
    } else {
        x.as_standard_layout().into_owned()
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        for node in self.nodes.drain(..) {
            self.ws.recycle_array(node.value);
            node.op.into_buffers().into_iter().for_each(|b| self.ws.recycle(b));
        }
        self.ws.pass_done();
    }
}
