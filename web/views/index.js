// Every view inside the model, in the order the section shows them. Each is one module that
// builds its figure and draws its part of the engine's data (crates/gpt/src/inspect/, where the
// same names are listed): a new view is one module here and one line in this list.
import { AblationView } from './ablation-view.js';
import { AttributionView } from './attribution-view.js';
import { CircuitView } from './circuit-view.js';
import { CompositionView } from './composition-view.js';
import { EmbeddingsView } from './embeddings-view.js';
import { FourierView } from './fourier-view.js';
import { HeadsView } from './heads-view.js';
import { LensView } from './lens-view.js';
import { LlcView } from './llc-view.js';
import { MlpView } from './mlp-view.js';
import { PatchingView } from './patching-view.js';
import { PositionsView } from './positions-view.js';
import { ResidualView } from './residual-view.js';
import { SurpriseView } from './surprise-view.js';
import { TemperatureView } from './temperatures-view.js';
import { TimelapseView } from './timelapse-view.js';

export const VIEWS = [
  HeadsView, TimelapseView, SurpriseView, EmbeddingsView, PositionsView, ResidualView, MlpView, TemperatureView, LensView,
  AblationView, PatchingView, AttributionView, CompositionView, CircuitView, FourierView, LlcView,
];
