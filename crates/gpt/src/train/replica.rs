//! A helper's copy of the model and its optimiser: it answers the trainer's orders (units of a plan,
//! a step's sums and pieces) and nothing else. It needs no text or tokenizer: an order carries the
//! plan, the run's whole state comes once (and again whenever the run is unsure of the copy), and
//! each step it adds the others' partial sums to its own and applies the same update as the run,
//! with the same code (`train/update.rs`), so no weights travel between steps.

use super::trainable::Trainable;
use super::update::Rules;
use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::optim::{complete, shares, Optimizer};
use crate::words::runs::bug;
use crate::work::order::{read, write, Assignment, Order, PartialSum, Reply, Results};
use crate::work::{combine, Partial, SyncState, Update, Work};
use crate::workspace::Workspace;
use ndarray::{ArrayD, IxDyn};
use std::ops::Range;

/// A copy of the model and its optimiser that computes what the trainer orders.
pub struct Replica<M> {
    model: M,
    ws: Workspace,
    grads: Workspace,
    /// The job whose plan it holds, and the plan: an evaluation's chunks come without it.
    work: Option<(u64, Work)>,
    /// What it steps by, once the run has sent its state.
    learner: Option<Learner>,
    /// Its own partial sums of the step under way, kept to add to the others'.
    held: Vec<Partial>,
    /// The step's update, while it waits for the pieces it did not compute.
    update: Option<Update>,
    /// What its last reply carries.
    outbox: Outbox,
}

/// The optimiser and the settings a copy steps by, and its steps so far.
struct Learner {
    optimizer: Box<dyn Optimizer>,
    train: TrainConfig,
    step: usize,
    uniform_loss: f32,
}

/// The floats of a reply.
enum Outbox {
    Nothing,
    /// These of its held partial sums.
    Held(Range<usize>),
    /// These pieces of its update.
    Pieces(Vec<usize>),
}

impl<M: Trainable> Replica<M> {
    /// A replica of `model` (shaped as the trainer's; its weights come with its first order).
    pub fn new(model: M) -> Replica<M> {
        let (ws, grads) = (Workspace::default(), Workspace::default());
        Replica { model, ws, grads, work: None, learner: None, held: vec![], update: None, outbox: Outbox::Nothing }
    }

    /// Answers the order `header`, whose buffer of `len` floats `read_data(at, out)` copies from,
    /// with a reply's header; [`Replica::reply_data`] holds the reply's floats.
    pub fn answer(&mut self, header: &str, len: usize, read_data: impl FnMut(usize, &mut [f32])) -> Result<String> {
        let order: Order = read(header, "an order")?;
        self.outbox = Outbox::Nothing;
        let results = match order.assignment {
            Assignment::Units { first, end, plan, step, sync } => {
                if let Some(plan) = plan {
                    self.drop_step();
                    self.work = Some((order.job, Work::from_json(plan.get())?));
                }
                if let Some(state) = sync {
                    self.sync(state, step, len, read_data)?;
                }
                self.check_step(step)?;
                self.units(order.job, first..end)?
            }
            Assignment::Sum { partials, workers } => {
                self.sum(order.job, order.helper, &partials, workers, len, read_data)?
            }
            Assignment::Pieces { pieces } => self.complete_update(&pieces, len, read_data)?,
        };
        Ok(write(&Reply { job: order.job, helper: order.helper, results }))
    }

    /// The floats of the last reply, piece by piece.
    pub fn reply_data(&self) -> Vec<&[f32]> {
        match &self.outbox {
            Outbox::Nothing => vec![],
            Outbox::Held(range) => self.held[range.clone()].iter().map(|p| &p.grads[..]).collect(),
            Outbox::Pieces(ks) => {
                let pieces = self.update.as_ref().map_or(&[][..], |u| &u.pieces);
                ks.iter().filter_map(|&k| pieces.get(k)).map(|p| &p.values[..]).collect()
            }
        }
    }

    /// Takes the run's state from an order's buffer: every weight, then the optimiser's tensors.
    fn sync(
        &mut self,
        state: SyncState,
        step: usize,
        len: usize,
        mut read_data: impl FnMut(usize, &mut [f32]),
    ) -> Result<()> {
        let SyncState { train, dropout, uniform_loss, optimizer_steps, tensors } = state;
        let kind = train
            .kind()
            .ok_or_else(|| Error::Data(bug(format!("an order names an unknown optimizer {:?}", train.optimizer))))?;
        let n = self.model.params().count();
        let sizes: Vec<usize> = tensors.iter().map(|(_, shape)| shape.iter().product()).collect();
        let held: usize = self.model.held_parts().iter().map(|p| p.len()).sum();
        if n + sizes.iter().sum::<usize>() + held != len {
            return Err(Error::Data(bug(format!(
                "the run's state came as {len} floats, which do not hold its weights and optimizer"
            ))));
        }
        self.model.params_mut().read_flat(n, &mut read_data)?;
        self.model.set_dropout(dropout)?;
        let mut at = n;
        let mut saved = Vec::with_capacity(tensors.len());
        for ((name, shape), size) in tensors.into_iter().zip(sizes) {
            let mut values = vec![0.0; size];
            read_data(at, &mut values);
            at += size;
            let tensor = ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| Error::Data(bug(e.to_string())))?;
            saved.push((name, tensor));
        }
        let mut optimizer = (kind.create)(self.model.params(), &train.hyper());
        optimizer.restore(&|name: &str, shape: &[usize]| {
            let found = saved.iter().find(|(n, _)| n == name).map(|(_, t)| t);
            match found {
                Some(t) if t.shape() != shape => {
                    Err(Error::Data(bug(format!("the run's optimizer tensor {name} has another shape"))))
                }
                found => Ok(found.cloned()),
            }
        })?;
        optimizer.set_steps(optimizer_steps);
        for part in self.model.held_parts_mut()? {
            read_data(at, part);
            at += part.len();
        }
        self.learner = Some(Learner { optimizer, train, step, uniform_loss });
        Ok(())
    }

    /// Refuses work on weights other than the run's.
    fn check_step(&self, step: usize) -> Result<()> {
        match &self.learner {
            Some(l) if l.step == step => Ok(()),
            Some(l) => Err(Error::Data(bug(format!(
                "this worker's copy of the model is at step {}, the run's at {step}: the run must send its state",
                l.step
            )))),
            None => Err(Error::Data(bug("this worker has no copy of the run's state: the run must send it"))),
        }
    }

    /// Units `range` of job `job`'s plan, as partial sums: a step's are held for its sums, and
    /// with a chain's their floats go back.
    fn units(&mut self, job: u64, range: Range<usize>) -> Result<Results> {
        let work = match &self.work {
            Some((held, work)) if *held == job => work,
            _ => return Err(Error::Config(bug("no plan for this order: a job's first order brings it"))),
        };
        let partials = super::units::partials(&self.model, work, range, &self.ws, &self.grads)?;
        let results = Results::Partials { partials: partials.iter().map(Partial::figures).collect() };
        if matches!(work, Work::Step(_) | Work::Llc(_)) {
            let from = self.held.len();
            self.held.extend(partials);
            self.outbox = Outbox::Held(from..self.held.len());
        }
        Ok(results)
    }

    /// Adds `partials` (the others', or the root, their gradients from `read_data`) to its own, begins the
    /// step's update as the run does, and computes its share (as `helper` of `workers`) of the
    /// pieces; with none, it applies the update at once.
    fn sum(
        &mut self,
        job: u64,
        helper: usize,
        partials: &[PartialSum],
        workers: usize,
        len: usize,
        mut read_data: impl FnMut(usize, &mut [f32]),
    ) -> Result<Results> {
        let shards = match &self.work {
            Some((held, Work::Step(plan))) if *held == job => plan.shards,
            _ => return Err(Error::Config(bug("a step's sums came for no step this worker computed"))),
        };
        let learner =
            self.learner.as_ref().ok_or_else(|| Error::Data(bug("this worker has no copy of the run's state")))?;
        let n = self.model.grad_len();
        if len != n * partials.len() {
            return Err(Error::Data(bug(format!(
                "the run sent {len} gradients; {} partial sums take {}",
                partials.len(),
                n * partials.len()
            ))));
        }
        let mut all = std::mem::take(&mut self.held);
        if partials.iter().any(|p| p.count == shards) {
            all.drain(..).for_each(|p| self.grads.recycle(p.grads)); // the root came: its own are in it
        }
        for (i, p) in partials.iter().enumerate() {
            let mut grads = self.grads.scratch(n);
            read_data(i * n, &mut grads);
            all.push(Partial { first: p.first, count: p.count, loss: p.loss, exact: p.exact, grads });
        }
        let root = combine(all, shards, &self.grads)?;
        let rules = Rules { train: &learner.train, step: learner.step, uniform_loss: learner.uniform_loss };
        let mut update = match rules.begin(root, self.model.params(), learner.optimizer.as_ref(), &self.grads) {
            // The run refuses the step as well, and sends its state again with the next order.
            Err(Error::Diverged(_)) => return Ok(Results::Stepped),
            update => update?,
        };
        if update.pieces.is_empty() {
            self.apply(update)?;
            return Ok(Results::Stepped);
        }
        let costs: Vec<usize> = update.pieces.iter().map(|p| p.cost).collect();
        update.mine = shares(&costs, workers).into_iter().nth(helper).unwrap_or_default();
        let mine: Vec<_> =
            update.pieces.iter_mut().enumerate().filter(|(k, _)| update.mine.contains(k)).map(|(_, p)| p).collect();
        complete(learner.optimizer.kind(), learner.train.hyper().own, mine, 1);
        let pieces = update.mine.clone();
        self.outbox = Outbox::Pieces(pieces.clone());
        self.update = Some(update);
        Ok(Results::Pieces { pieces })
    }

    /// Takes the pieces it did not compute (`pieces`, their values from `read_data`) and applies
    /// the step's update.
    fn complete_update(
        &mut self,
        pieces: &[usize],
        len: usize,
        read_data: impl FnMut(usize, &mut [f32]),
    ) -> Result<Results> {
        let mut update = self.update.take().ok_or_else(|| Error::Config(bug("pieces came for no update under way")))?;
        update.fill(pieces, len, read_data)?;
        self.apply(update)?;
        Ok(Results::Stepped)
    }

    /// Applies `update` to its copy, as the run does to the model.
    fn apply(&mut self, update: Update) -> Result<()> {
        let learner =
            self.learner.as_mut().ok_or_else(|| Error::Data(bug("this worker has no copy of the run's state")))?;
        let rules = Rules { train: &learner.train, step: learner.step, uniform_loss: learner.uniform_loss };
        let applied = rules.finish(update, self.model.params_mut(), learner.optimizer.as_mut(), &self.grads)?;
        self.model.after_step(&applied.tallies);
        learner.step += 1;
        Ok(())
    }

    /// Gives up what is left of a step (a new job's plan has come): its buffers go back to the pool.
    fn drop_step(&mut self) {
        self.held.drain(..).for_each(|p| self.grads.recycle(p.grads));
        if let Some(update) = self.update.take() {
            self.grads.recycle(update.grads);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_on_weights_it_does_not_hold_is_refused() {
        let mut replica = Replica::new(crate::GPT::new(crate::GPTConfig::default(), 0).unwrap());
        let assignment = Assignment::Units { first: 0, end: 1, plan: None, step: 3, sync: None };
        let header = write(&Order { job: 1, helper: 1, assignment });
        let error = replica.answer(&header, 0, |_, _| {}).unwrap_err().to_string();
        assert!(error.contains("no copy of the run's state"), "{error}");
    }
}
