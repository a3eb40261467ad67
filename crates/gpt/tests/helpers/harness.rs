//! Helpers as the page's Web Workers are, here on one thread: copies of the run's model (or its
//! dictionary) that answer its orders in turn, and the run driven through a job with them.

use super::common::no_clock;
use gpt::run::{DictionaryShape, HelperCopy};
use gpt::work::{Data, Outgoing};
use gpt::{Next, Outcome, Progress, Run, RunJob};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};

/// A helper's copy of the run's model, shaped as it is, or of the dictionary `dictionary` shapes
/// on it (its weights come with its first order).
pub fn replica(run: &Run, dictionary: Option<DictionaryShape>) -> HelperCopy {
    HelperCopy::new(run.model().config().clone(), dictionary).unwrap()
}

/// Helpers as the page's Web Workers are: each answers its orders in the order they were sent,
/// and an order may outlive the job that sent it (the run never waits for a step's last ones).
pub struct Helpers {
    pub replicas: Vec<HelperCopy>,
    /// The dictionary's step, when they hold copies of a dictionary.
    pub dictionary: Option<RunJob>,
    /// Each helper's id, by which the run knows its copy.
    pub ids: Vec<u32>,
    /// Orders not yet answered: the helper, the header and the floats.
    queue: VecDeque<(usize, String, Vec<f32>)>,
    /// Orders that brought the run's whole state.
    pub syncs: usize,
    /// The header of every order sent.
    pub headers: Vec<String>,
}

impl Helpers {
    pub fn new(run: &Run, count: usize) -> Helpers {
        Helpers::holding(run, count, None)
    }

    pub fn holding(run: &Run, count: usize, dictionary: Option<DictionaryShape>) -> Helpers {
        static MADE: AtomicU32 = AtomicU32::new(0);
        let replicas = (0..count).map(|_| replica(run, dictionary)).collect();
        let ids = (0..count).map(|_| MADE.fetch_add(1, Ordering::Relaxed)).collect();
        let dictionary = dictionary.map(|d| match d {
            DictionaryShape::Autoencoder(_) => RunJob::FeatureStep,
            DictionaryShape::Transcoders(_) => RunJob::TranscoderStep,
        });
        Helpers { replicas, dictionary, ids, queue: VecDeque::new(), syncs: 0, headers: vec![] }
    }

    pub fn send(&mut self, run: &Run, orders: Vec<Outgoing>) {
        for order in orders {
            self.syncs += usize::from(order.data == Data::Sync);
            let data: Vec<f32> = run.order_data(&order.data).concat();
            self.headers.push(order.header.clone());
            self.queue.push_back((order.to, order.header, data));
        }
    }

    /// Answers the oldest order, if any: the reply goes to the run, which may free more orders.
    pub fn answer_one(&mut self, run: &mut Run) -> bool {
        let Some((to, header, data)) = self.queue.pop_front() else { return false };
        let replica = &mut self.replicas[to - 1];
        let read = |at: usize, out: &mut [f32]| out.copy_from_slice(&data[at..at + out.len()]);
        let reply = replica.answer(&header, data.len(), read, self.dictionary.is_some());
        let flat = replica.reply_data().concat();
        let more = run.accept(&reply.unwrap(), flat.len(), |at, out| out.copy_from_slice(&flat[at..at + out.len()]));
        self.send(run, more.unwrap());
        true
    }

    /// Does `kind` on `run`, a helper answering the oldest order on every turn of the run's loop,
    /// so that replies come in while the run works.
    pub fn perform(&mut self, run: &mut Run, kind: RunJob) -> Outcome {
        let mut progress = run.begin(kind, &self.ids, 0.0).unwrap();
        loop {
            self.send(run, std::mem::take(&mut progress.orders));
            if let Some(outcome) = progress.outcome {
                return outcome;
            }
            if self.answer_one(run) {
                progress = Progress { orders: vec![], next: Next::Work, outcome: None };
                continue;
            }
            assert!(!matches!(progress.next, Next::Wait), "the run waits only while a helper has its order");
            progress = run.advance(&no_clock).unwrap();
        }
    }

    /// A step of the dictionary `job` steps, alone: its loss in bits.
    pub fn dictionary_step(&mut self, run: &mut Run, job: RunJob) -> u32 {
        self.dictionary = Some(job);
        self.step(run)
    }

    /// A step's loss, in bits.
    pub fn step(&mut self, run: &mut Run) -> u32 {
        match self.perform(run, self.dictionary.clone().unwrap_or(RunJob::Step)) {
            Outcome::Step(stats) => stats.loss.to_bits(),
            other => panic!("a step ended as {other:?}"),
        }
    }
}

pub fn alone(run: &mut Run) -> u32 {
    run.step(&no_clock).unwrap().loss.to_bits()
}
