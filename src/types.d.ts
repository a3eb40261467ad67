// The shapes the page passes to the engine and gets back (appended to pkg/gpt_playground.d.ts).
/** nanoGPT's GPTConfig plus the norm, activation, weight-tying, RoPE and QK-norm choices. */
export interface ModelConfig {
  vocab_size?: number; block_size?: number; n_layer?: number; n_head?: number; n_embd?: number;
  dropout?: number; bias?: boolean; norm?: "layernorm" | "rmsnorm";
  activation?: "gelu" | "gelu_tanh" | "relu"; tie_weights?: boolean; rope?: boolean; qk_norm?: boolean;
}
/** Optimisation settings (nanoGPT's CPU Shakespeare recipe when left out; null: follow max_iters). */
export interface TrainConfig {
  batch_size?: number; max_iters?: number; learning_rate?: number; min_lr?: number;
  warmup_iters?: number; lr_decay_iters?: number | null; decay_lr?: boolean; weight_decay?: number;
  beta1?: number; beta2?: number; grad_clip?: number; seed?: number;
  eval_interval?: number | null; eval_iters?: number;
  /** What trains the block matrices (AdamW keeps the rest under Muon), Muon's peak rate and momentum. */
  optimizer?: "adamw" | "muon"; muon_lr?: number; muon_momentum?: number;
}
/** A task and its settings; a task reads only its own fields (repeat, reverse, sort: length and symbols; addition: digits; modular: p). */
export interface TaskConfig {
  name?: "repeat" | "reverse" | "sort" | "addition" | "modular"; length?: number; symbols?: number;
  digits?: number; p?: number; train_fraction?: number;
}
/** A task as the Corpus menu lists it, with the settings it reads beside train_fraction. */
export interface TaskInfo { name: string; title: string; fields: string[]; }
/** What a task's settings make: `problems` in all (`train_problems` of them train, when countable), the least block size. */
export interface TaskSummary { watch_for: string; example: string; problems: number; train_problems?: number | null; max_len: number; }
/** A run's settings; the model's vocab_size is set by the tokenizer fitted to the text, or by the task. */
export interface Settings {
  model?: ModelConfig; train?: TrainConfig; tokenizer?: "char" | "bpe"; bpe_vocab_size?: number; task?: TaskConfig | null;
}
/** A setting that differs among compared runs: its path (`train.learning_rate`) and each run's value. */
export interface Difference { field: string; values: string[]; }
/** How large a model the page lets a user build. */
export interface Budget { max_params: number; max_training_bytes: number; }
export interface Preset { name: string; description: string; settings: Settings; }
export interface ModelSize { params: number; training_bytes: number; vocab_size: number; uniform_loss: number; }
/** An invalid setting: its path (`train.max_iters`, `bpe_vocab_size`, `text`; thrown errors carry it as `field`). */
export interface FieldError { field: string; message: string; }
/** Every problem of some settings, or (when there is none) the size of the model they build. */
export interface Description { errors: FieldError[]; size?: ModelSize | null; }
export interface TextStats { chars: number; vocab_size: number; }
/** What the steps since the last report did: `losses` holds each step's loss, `stopped` why training ended early. */
export interface TrainReport {
  step: number; max_iters: number; losses: number[]; lr: number; grad_norm: number; tokens_per_s: number;
  tokens_per_s_per_worker: number; workers: number; elapsed_s: number; eta_s: number; stopped?: string | null;
}
/** A replica's sum of shards `first..first + count`: their weighted loss and flat gradients. */
/** A matrix of Muon's update, as a replica orthogonalises it. */
export interface Matrix { k: number; rows: number; cols: number; values: Float32Array; }
/** Work in progress: its plan (JSON) for the replicas, and each worker's [first, end) units. */
export interface Work { plan: string; shards: [number, number][]; }
export interface Partial { first: number; count: number; loss: number; exact: number; grads: Float32Array; }
export interface Status {
  step: number; max_iters: number; vocab_size: number; uniform_loss: number; has_text: boolean;
  eval_due: boolean; steps_to_next_eval: number; workers: number; shards: number; params: number;
  best_val_loss?: number | null; task?: string | null;
}
/** Losses and, for a task, the share of training and held-out problems answered exactly right. */
export interface Evaluation {
  step: number; train_loss: number; val_loss: number; train_accuracy?: number | null; val_accuracy?: number | null;
}
export interface History { losses: number[]; evals: Evaluation[]; }
/** The chart's marks: an induction head's onset; a task's accuracy reaching 100% on training problems, 95% held out. */
export interface Milestones {
  induction?: { step: number; layer: number; head: number; score: number } | null;
  memorised?: number | null; generalised?: number | null;
}
/** A run's task: a held-out problem for the attention view, the two sets' sizes when countable. */
export interface TaskDetails { config: TaskConfig; held_out_example: string; sizes?: [number, number] | null; }
export interface Details {
  settings: Settings; history: History; merges: [string, string][]; last_sample?: SampleOptions | null;
  task?: TaskDetails | null; milestones: Milestones;
}
/** A problem with the model's greedy answer, and which set it is in (`outside`: not a problem the task makes). */
export interface Solution { prompt: string; answer: string; expected: string; correct: boolean; origin: "training" | "held_out" | "outside"; }
export interface SampleOptions { prompt?: string; temperature?: number; top_k?: number; seed?: number; max_new_tokens?: number; }
/** One candidate next token: its text and the model's probability for it. */
export interface NextToken { token: string; prob: number; }
/** The most likely next tokens at `temperature` (1 when greedy decoding, temperature 0, was asked). */
export interface NextTokens { temperature: number; greedy: boolean; tokens: NextToken[]; }
/** Attention probabilities of every layer and head: `weights[((l * n_head + h) * t + query) * t + key]`. */
export interface AttentionMaps { tokens: string[]; n_layer: number; n_head: number; t: number; weights: Float32Array; }
/** The views inside the model (see the README's section on them). */
export interface Inside {
  step: number; n_layer: number; n_head: number;
  probe: { token: string; loss?: number | null; guesses: NextToken[] }[];
  loss_by_position: number[];
  embeddings: { tokens: string[]; points: [number, number][]; explained: number[] };
  positions: { t: number; c: number; values: number[]; cosine: number[] };
  residual: { t: number; stream: number[]; attn: number[]; mlp: number[] };
  mlp: { active: number[]; histogram: number[][]; range: [number, number] };
  temperatures: { temperatures: number[]; tokens: string[]; probs: number[][] };
  lens: NextToken[][];
  heads: { step: number; entropy: number[]; previous_token: number[]; induction: number[] }[];
  induction_onset?: { step: number; layer: number; head: number; score: number } | null;
}
/** Attention snapshots: `weights` holds `steps.length` maps of (n_layer, n_head, t, t), one after another. */
export interface Timelapse { tokens: string[]; steps: number[]; n_layer: number; n_head: number; t: number; weights: Float32Array; }
