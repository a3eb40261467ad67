// A toy job (the core's ToyJob) trained in a toy worker (toy-worker.js) for one of the
// Superposition section's forms: its Train button off and Stop on while it runs, its progress
// shown as it comes, its end announced (`toy-trained`, which a lesson waits for), its failure said.

/**
 * A function that trains a job in a new worker (ending the form's last one): `newWorker()` makes
 * the worker, `show(progress, seconds)` shows each report, `kind` names the job to a lesson
 * (`toy` or `autoencoder`), `stopped()` says a stop by hand and `refused()` what the status says
 * after a failure (undefined: as it was).
 */
export function toyTrainer({ newWorker, train, stop, status, error, kind, show, stopped, refused = () => undefined }) {
  let worker = null;
  const end = (why) => {
    worker?.terminate();
    worker = null;
    train.disabled = false;
    stop.disabled = true;
    if (why) status.textContent = why;
  };
  const fail = (message) => {
    error.textContent = message;
    end(refused());
  };
  stop.addEventListener('click', () => end(stopped()));
  return (job) => {
    end();
    error.textContent = '';
    worker = newWorker();
    const started = performance.now();
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') show(data.progress, (performance.now() - started) / 1000);
      else if (data.type === 'done') {
        end();
        document.dispatchEvent(new CustomEvent('toy-trained', { detail: kind }));
      } else if (data.type === 'error') fail(data.message);
    };
    worker.onerror = (e) => fail(e.message);
    worker.postMessage({ type: 'train', job });
    train.disabled = true;
    stop.disabled = false;
  };
}
