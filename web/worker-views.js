// In the training worker: what the page draws from the current weights (attention maps, the
// next-token list, the views inside the model), computed when the page shows them.

/** How many of the most likely next tokens the page lists. */
const NEXT_TOKENS = 8;
/** How many held-out problems a task's run shows answered. */
const SOLUTIONS = 8;

export class Views {
  /**
   * `post(message, transfer)` to the page; `report(context, error)` for failures; `training()`
   * whether the model is training now.
   */
  constructor(post, report, training) {
    Object.assign(this, { post, report, training });
    this.attentionText = '';
    this.nextQuery = null; // the prompt and temperature whose next-token list the page shows
    this.inside = { views: [], probe: '', questions: {} }; // the views the page shows (open), on what probe, asked what
    this.walkRequest = null; // what the walk through the model follows, while the page shows it
    this.lapseSent = -1; // evaluations in the time-lapse the page has
  }

  /** A new model: the page has none of its views yet. */
  reset(attentionText) {
    this.attentionText = attentionText;
    this.lapseSent = -1;
  }

  attention(run) {
    if (!run || !this.attentionText) return;
    try {
      const maps = run.attention(this.attentionText);
      this.post({ type: 'attention', maps }, [maps.weights.buffer]);
    } catch (e) {
      this.report('attention', e);
    }
  }

  nextTokens(run) {
    if (!run || !this.nextQuery) return;
    try {
      const { prompt, temperature } = this.nextQuery;
      this.post({ type: 'next-tokens', next: run.ask({ ask: 'next_tokens', prompt, temperature, k: NEXT_TOKENS }).next_tokens });
    } catch (e) {
      this.report('next', e);
    }
  }

  /** The views inside the model the page shows; the time-lapse's snapshots only when they grew. */
  insideViews(run) {
    if (!run || this.inside.views.length === 0) return;
    try {
      const { views, probe, questions } = this.inside;
      // An LLC estimate asked while the model trains waits until it stops, to run then on every
      // worker (`pending`), not stall the training on the run's own.
      const held = this.training() && questions.llc?.estimate;
      const asked = { ...questions, ...(held && { llc: { ...questions.llc, estimate: false } }), shown: SOLUTIONS };
      const { inside } = run.ask({ ask: 'inside', views, probe, prompt: this.nextQuery?.prompt ?? '', asked });
      const steps = inside.views.timelapse?.steps.length;
      const lapse = steps !== undefined && steps !== this.lapseSent ? run.attention() : undefined;
      if (lapse) this.lapseSent = steps;
      this.post({ type: 'inside', inside, timelapse: lapse, asked }, lapse ? [lapse.weights.buffer] : []);
      // Finding a circuit or estimating the LLC is asked once (each takes seconds): later
      // refreshes show the records, and the last estimate.
      const { circuit, llc } = this.inside.questions;
      if (circuit?.find) this.inside.questions = { ...this.inside.questions, circuit: { ...circuit, find: false } };
      if (llc?.estimate && !held) this.inside.questions = { ...this.inside.questions, llc: { ...llc, estimate: false } };
    } catch (e) {
      this.report('inside', e);
    }
  }

  /** The walk through the model the page shows: the core's view called "walk", asked what to follow. */
  walk(run) {
    if (!run || !this.walkRequest) return;
    try {
      const asked = { walk: this.walkRequest, shown: 0 };
      const { walk } = run.ask({ ask: 'inside', views: ['walk'], probe: '', prompt: '', asked }).inside.views;
      if (walk?.error) this.post({ type: 'error', context: 'walk', message: walk.error });
      else this.post({ type: 'walk', walk });
    } catch (e) {
      this.report('walk', e);
    }
  }

  /** What the page shows of the whole model, refreshed at each evaluation: the views inside it and the walk. */
  deep(run) {
    this.insideViews(run);
    this.walk(run);
  }

  /** A task's held-out problems with the model's answers (nothing for a text). */
  solutions(run) {
    if (!run?.status.task) return;
    try {
      this.post({ type: 'solutions', solutions: run.ask({ ask: 'solutions', n: SOLUTIONS }).solutions });
    } catch (e) {
      this.report('solutions', e);
    }
  }

  /** Attention, next tokens and a task's answers: cheap enough to refresh while training. */
  live(run) {
    this.attention(run);
    this.nextTokens(run);
    this.solutions(run);
  }

  /** What the page keeps of the views when a run is saved, to show them again when it comes back. */
  fields() {
    return { attentionText: this.attentionText, probe: this.inside.probe, prompt: this.nextQuery?.prompt ?? '' };
  }
}
