//! A helper's copy of the model: it answers the run's orders (units of a plan, an optimiser's
//! pieces) and nothing else. It needs no text, tokenizer or optimiser state: an order carries the
//! plan and the weights, and the run adds up what comes back.

use super::order::{read, write, Assignment, Order, PartialSum, Reply, Results};
use super::partial::Partial;
use super::plan::Work;
use crate::error::{Error, Result};
use crate::fields::{self, Reader, Values};
use crate::model::GPT;
use crate::optim::{optimizer_named, Piece};
use crate::workspace::Workspace;

/// A copy of the model that computes what the run orders.
pub struct Replica {
    model: GPT,
    ws: Workspace,
    grads: Workspace,
    /// The job whose plan it holds, and the plan: an evaluation's chunks come without it.
    work: Option<(u64, Work)>,
}

/// A reply: its header, and its floats in pieces, one after another.
pub struct Answer {
    pub header: String,
    pub data: Vec<Vec<f32>>,
    /// Whether its buffers came from the replica's gradient pool (a step's partial sums), to go
    /// back to it once sent. An optimiser's pieces are not: pooled, they would pile up unused.
    pooled: bool,
}

impl Replica {
    /// A replica of a model shaped by `config`; its weights come with its first order.
    pub fn new(config: crate::GPTConfig) -> Result<Replica> {
        let (ws, grads) = (Workspace::default(), Workspace::default());
        Ok(Replica { model: GPT::new(config, 0)?, ws, grads, work: None })
    }

    /// Answers the order `header`, whose buffer of `len` floats `read_data(at, out)` copies from.
    pub fn answer(&mut self, header: &str, len: usize, mut read_data: impl FnMut(usize, &mut [f32])) -> Result<Answer> {
        let order: Order = read(header, "an order")?;
        let pooled = matches!(order.assignment, Assignment::Units { .. });
        let (results, data) = match order.assignment {
            Assignment::Units { first, end, plan, weights } => {
                if let Some(plan) = plan {
                    self.work = Some((order.job, Work::from_json(plan.get())?));
                }
                if weights {
                    self.model.params_mut().read_flat(len, &mut read_data)?;
                }
                self.units(order.job, first..end)?
            }
            Assignment::Pieces { optimizer, settings, pieces } => {
                compute_pieces(&optimizer, &settings, &pieces, len, read_data)?
            }
        };
        Ok(Answer { header: write(&Reply { job: order.job, helper: order.helper, results }), data, pooled })
    }

    /// Units `range` of job `job`'s plan, as partial sums and their gradients.
    fn units(&self, job: u64, range: std::ops::Range<usize>) -> Result<(Results, Vec<Vec<f32>>)> {
        let work = match &self.work {
            Some((held, work)) if *held == job => work,
            _ => return Err(Error::Config("no plan for this order: a job's first order brings it".into())),
        };
        let partials = work.partials(&self.model, range, &self.ws, &self.grads)?;
        let sums = partials.iter().map(|p| PartialSum { first: p.first, count: p.count, loss: p.loss, exact: p.exact });
        let results = Results::Partials { partials: sums.collect() };
        Ok((results, partials.into_iter().map(|p: Partial| p.grads).filter(|g| !g.is_empty()).collect()))
    }

    /// Floats in a flat buffer of every weight.
    pub fn len(&self) -> usize {
        self.model.params().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes back an answer's pooled buffers once they have been sent.
    pub fn recycle(&self, answer: Answer) {
        if answer.pooled {
            answer.data.into_iter().for_each(|buffer| self.grads.recycle(buffer));
        }
    }
}

/// `optimizer`'s `pieces` (`[number, rows, columns]`, `len` values in all, which `read_data`
/// copies), computed by its own `settings`.
fn compute_pieces(
    optimizer: &str,
    settings: &Values,
    pieces: &[[usize; 3]],
    len: usize,
    mut read_data: impl FnMut(usize, &mut [f32]),
) -> Result<(Results, Vec<Vec<f32>>)> {
    let kind = optimizer_named(optimizer)
        .ok_or_else(|| Error::Data(format!("an order names an unknown optimizer {optimizer:?}")))?;
    let errors = fields::errors(kind.fields, settings, "");
    if let Some(bad) = errors.first() {
        return Err(Error::Data(format!("an order's optimizer settings: {}", bad.message)));
    }
    let own = Reader { fields: kind.fields, values: settings };
    let total =
        pieces.iter().try_fold(0usize, |sum, &[_, rows, cols]| rows.checked_mul(cols).and_then(|n| sum.checked_add(n)));
    if total != Some(len) {
        return Err(Error::Data(format!("an order's pieces do not hold the {len} values it brought")));
    }
    let mut at = 0;
    let mut computed = Vec::with_capacity(pieces.len());
    for &[_, rows, cols] in pieces {
        let mut values = vec![0.0; rows * cols];
        read_data(at, &mut values);
        at += values.len();
        let mut piece = Piece { rows, cols, values, cost: 0, done: false };
        (kind.compute)(&mut piece, own);
        computed.push(piece.values);
    }
    Ok((Results::Pieces { pieces: pieces.iter().map(|&[k, _, _]| k).collect() }, computed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_optimizers_pieces_do_not_pile_up_in_the_gradient_pool() {
        let mut replica = Replica::new(crate::GPTConfig::default()).unwrap();
        let settings: Values = serde_json::from_value(serde_json::json!({})).unwrap();
        let assignment = Assignment::Pieces { optimizer: "muon".into(), settings, pieces: vec![[0, 4, 8]] };
        let header = write(&Order { job: 1, helper: 1, assignment });
        for _ in 0..3 {
            let answer = replica.answer(&header, 32, |_, out| out.fill(0.5)).unwrap();
            assert_eq!(answer.data.iter().map(Vec::len).sum::<usize>(), 32);
            replica.recycle(answer);
        }
        assert_eq!(replica.grads.free_buffers(), 0, "each step's pieces stayed in the pool");
    }
}
