// The page's start: wires each panel once the engine has loaded (here only for cheap calls:
// presets, validation, text summaries; the model itself lives in the training worker).
import { t } from './i18n.js';
import './language.js';
import { catalog, loadError, simd } from './wasm.js';
import { initAttention } from './attention-panel.js';
import { initCheckpoints } from './checkpoints.js';
import { initData } from './data-panel.js';
import { initInside } from './inside-panel.js';
import { corpusChosen, initModel, validate } from './model-panel.js';
import { render, setPhase, state } from './phase.js';
import { initSampling } from './sample-panel.js';
import { initProblems } from './problems-panel.js';
import { initTraining, showOverlays, uniformLoss } from './training-panel.js';
import { initLibrary } from './library-panel.js';
import { initShareLink, readSetup } from './share-link.js';
import { initTextFit } from './text-fit.js';
import { initWalk } from './walk-panel.js';
import { initFeatures } from './features-panel.js';
import { initGraph } from './graph-panel.js';
import { initSuperposition } from './superposition-panel.js';
import { initLessonPanel } from './lesson-panel.js';
import { initLessonMenu } from './lesson-menu.js';
import { initLanguageMenu } from './language-menu.js';
import { carriesLesson } from './lesson/link.js';
import { send, start } from './engine.js';

/** The address as the page opened: the form rewrites it with its setup at once. */
const opened = location.hash;
try {
  if (loadError()) throw new Error(loadError());
  document.getElementById('version').textContent = `gpt-playground ${catalog().version}`;
  document.getElementById('engine').textContent = `wasm ${simd()}`;
  initLanguageMenu();
  initTraining();
  initCheckpoints();
  initSampling();
  initProblems();
  initAttention();
  initInside(uniformLoss);
  initWalk();
  initFeatures();
  initGraph();
  initSuperposition();
  initTextFit();
  initShareLink();
  initLibrary(showOverlays);
  // A shared link opens its setup (or lesson); otherwise the last run comes back as it was.
  const setup = readSetup();
  initModel(setup);
  await initData(validate, setup?.corpus, corpusChosen);
  initLessonPanel();
  initLessonMenu(opened);
  start();
  // A link's lesson sets the page up as a link's setup does; the last run stays in Saved runs.
  if (!setup && !carriesLesson(opened)) send({ type: 'restore' });
} catch (e) {
  setPhase('crashed', t('page.failed', { reason: e.message }), true);
}
if (state.phase !== 'crashed') render();
