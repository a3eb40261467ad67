// Medians of a list of numbers, which the benches that read a speed from rounds on a shared
// machine report.

/** The median: the mean of the middle two for an even count. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/** The upper median: the higher of the middle two for an even count, always a value measured. */
export const upperMedian = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
