// The training worker's side of a run's dictionaries (its autoencoder and its transcoders): their
// requests answered, their training a chunk of time at a time with the helpers, measured every so
// often, paused for the model's own training, and brought back with a reopened run.
import { yieldToMessages } from './yield.js';

/** The engine's words when a run has no autoencoder or transcoders yet: nothing to restore. */
const NOT_STARTED = new Set(['dictionaries.no_autoencoder', 'dictionaries.no_transcoders']);

/** The message type of each dictionary's answers (and `-paused` once Pause stops its training). */
const ANSWERS = { autoencoder: 'features', transcoders: 'transcoders' };
/**
 * A dictionary is measured every 50 steps, but at most a twentieth of its time: a measure
 * comes once the steps since the last one took 19 times as long as that one did.
 */
const MEASURE_EVERY = 50;
const MEASURE_PACE = 19;

export class Dictionaries {
  /** `hooks`: the worker's `trainer`, `post(message)`, `save()` and `report(context, error)`. */
  constructor(hooks) {
    this.hooks = hooks;
    this.training = 0; // counts the trainings: Pause (or a new one) ends the old
    this.paused = -1; // the count Pause set, so the training it ends says so (a new one does not)
    this.loop = Promise.resolve(); // the training under way, if any
  }

  /** Answers `request` of dictionary `of` ('autoencoder' or 'transcoders'), and with `train` trains it on. */
  async ask(of, request, train) {
    const { trainer, post } = this.hooks;
    const answer = trainer.run.features({ ...request, of });
    post({ type: ANSWERS[of], answer, asked: request.do, memory: trainer.memory() });
    if (train) await (this.loop = this.train(trainer.run, of, answer));
  }

  /** Pauses the training under way, if any. */
  pause() {
    this.paused = ++this.training;
  }

  /** Pauses it and waits for it to end. */
  async stop() {
    this.pause();
    await this.loop;
  }

  /**
   * Trains `run`'s dictionary `of` (`answer`: where it stands) a chunk of time at a time, its
   * steps shared with the helpers as the model's are, until it is done or paused.
   */
  async train(run, of, answer) {
    const { trainer, post, save } = this.hooks;
    const [ticket, id] = [++this.training, trainer.modelId];
    let [trainedMs, measureMs] = [0, 0]; // training since the last measure, and what that one took
    for (;;) {
      await yieldToMessages();
      if (ticket !== this.training || run !== trainer.run) {
        if (run === trainer.run && this.paused === this.training) {
          post({ type: `${ANSWERS[of]}-paused`, answer: run.features({ of, do: 'measure' }) });
          save();
        }
        return;
      }
      const began = performance.now();
      const taken = await trainer.stepFeatures(id, answer);
      if (taken === null) return;
      const asked = performance.now();
      trainedMs += asked - began;
      const [before, after] = [answer.step, answer.step + taken].map((s) => Math.floor(s / MEASURE_EVERY));
      answer = run.features({ of, do: 'report', measure: after > before && trainedMs >= MEASURE_PACE * measureMs });
      if (answer.measures) [trainedMs, measureMs] = [0, performance.now() - asked];
      post({ type: ANSWERS[of], answer, asked: 'train', memory: trainer.memory() });
      if (answer.step >= answer.steps) return save();
    }
  }

  /** Shows the autoencoder and transcoders a checkpoint brought back with `run`, if it kept them. */
  restore(run) {
    const { post, report } = this.hooks;
    for (const [of, type] of Object.entries(ANSWERS)) {
      let answer;
      try {
        answer = run.features({ of, do: 'measure' });
      } catch (e) {
        if (!NOT_STARTED.has(e.words?.code)) report(type, e);
        continue;
      }
      post(answer.step < answer.steps ? { type: `${type}-paused`, answer } : { type, answer, asked: 'train' });
    }
  }
}
