// Letting a worker's queued messages in between chunks of work.

/**
 * Resolves once the messages already queued for this worker have been handled. A message to
 * itself, not setTimeout(0): browsers clamp timers nested five deep to 4 ms, and a training loop
 * that yields after every step nests them, so each step waited 4 ms for nothing.
 */
export function yieldToMessages() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
