// The median of a list of numbers (the mean of the middle two for an even count), which the
// benches that read a speed from rounds on a shared machine report.
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
