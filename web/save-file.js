// Files the page hands the learner: a model, an export, a circuit.

/** Downloads `bytes` (or text) as a file called `filename`. */
export function saveFile(bytes, filename, type = 'application/octet-stream') {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type }));
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}
