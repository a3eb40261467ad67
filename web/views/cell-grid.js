// A grid of cells painted on a canvas, read one cell at a time: by pointing at it (a mouse
// hovering, a finger touching) or by moving through it with the arrow keys once it has focus.
// The cell read is outlined. The phase diagram and the autoencoder's match grid are such grids.
import { onPoint } from '../pointing.js';

/** Each arrow key's move, in rows and columns: the canvas is drawn left to right in every language. */
const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/**
 * A grid on `canvas`: `fill(row, col)` is a cell's CSS colour (white until it has one), and
 * `read(row, col)` is called when a cell is pointed at or stepped to.
 */
export function cellGrid(canvas, { fill, read }) {
  let [rows, cols, at] = [0, 0, null];
  const ctx = canvas.getContext('2d');
  const box = (row, col) => {
    const [w, h] = [canvas.width / cols, canvas.height / rows];
    return [col * w, row * h, w, h];
  };
  const grid = {
    /** Starts over with `rows` × `cols` empty cells. */
    reset(r, c) {
      [rows, cols, at] = [r, c, null];
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.strokeStyle = '#d1d5db';
      ctx.strokeRect(0.5, 0.5, canvas.width - 1, canvas.height - 1);
    },
    /** Paints the cell at `row`, `col` anew (and reads it again if it is the one read). */
    paint(row, col) {
      const [x, y, w, h] = box(row, col);
      ctx.fillStyle = fill(row, col) ?? '#ffffff';
      ctx.fillRect(x, y, Math.ceil(w), Math.ceil(h));
      if (at?.[0] === row && at?.[1] === col) grid.select(row, col);
    },
    paintAll() {
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) grid.paint(r, c);
    },
    /** Outlines the cell at `row`, `col` and reads it. */
    select(row, col) {
      const before = at;
      at = [row, col];
      if (before && (before[0] !== row || before[1] !== col)) grid.paint(...before);
      const [x, y, w, h] = box(row, col);
      ctx.strokeStyle = '#111827';
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, w - 2, h - 2);
      read(row, col);
    },
  };
  onPoint(canvas, (event) => {
    if (!rows) return;
    const rect = canvas.getBoundingClientRect();
    const col = Math.floor(((event.clientX - rect.left) / rect.width) * cols);
    const row = Math.floor(((event.clientY - rect.top) / rect.height) * rows);
    if (row >= 0 && row < rows && col >= 0 && col < cols) grid.select(row, col);
  }, () => {});
  canvas.addEventListener('keydown', (event) => {
    if (!rows || !(event.key in STEPS)) return;
    event.preventDefault();
    const [row, col] = at ?? [0, 0];
    const [dr, dc] = STEPS[event.key];
    grid.select(Math.min(rows - 1, Math.max(0, row + dr)), Math.min(cols - 1, Math.max(0, col + dc)));
  });
  canvas.addEventListener('focus', () => rows && !at && grid.select(0, 0));
  return grid;
}
