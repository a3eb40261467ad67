// The loss chart's smoothed curves: an exponential moving average of each step's loss.

/** Weight of the newest loss in the smoothed curve. */
const SMOOTHING = 0.05;

/**
 * Appends to `smooth` the exponentially smoothed `losses`, the first being step `done` + 1, from
 * the running average `ema`; returns the new average. The zero start is divided out, as
 * TensorBoard's debiased smoothing does.
 */
export function smoothInto(smooth, losses, ema, done) {
  losses.forEach((loss, i) => {
    ema = ema * (1 - SMOOTHING) + loss * SMOOTHING;
    smooth.push(ema / (1 - (1 - SMOOTHING) ** (done + i + 1)));
  });
  return ema;
}
