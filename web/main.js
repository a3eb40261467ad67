// The page's entry point: loads the wasm engine and reports what it is.
import init, { version } from '../pkg/gpt_playground.js';

const status = document.getElementById('status');
try {
  await init();
  document.getElementById('version').textContent = `gpt-playground ${version()}`;
  status.textContent = 'Ready.';
} catch (e) {
  status.textContent = `The model engine failed to load: ${e.message}. Build it with wasm-pack build --target web.`;
  status.classList.add('error');
}
