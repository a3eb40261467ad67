// An attribution graph drawn as circuit tracing draws it: the prompt's positions across, layers up
// (the tokens' embeddings at the bottom, the explained next tokens at the top), each active
// feature a dot labelled by the token it fires on most, each error a square, and each kept edge a
// line (blue raises what it feeds, red lowers it; thicker is stronger). Dots are picked by click,
// tap or Enter; picked features can be grouped by hand into a supernode, whose edges are its
// members' summed. An edge between positions carries its head loadings (which heads carry it),
// named on hover and given to `onEdge` on a click or tap.
import { decimal, t } from './i18n.js';
import { tokenLabel } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const SPACE = 16; // px between dots in one cell, across
const LINE = 12; // and down, when a busy cell wraps
const PER_LINE = 8; // dots across a cell before it wraps
const MARGIN = { left: 46, bottom: 30, top: 26, right: 12 };
/** Edges drawn at most, strongest first: more is a thicket. */
const MOST_EDGES = 600;

/** The kind of a Neuronpedia node. */
const kindOf = (n) => ({ 'cross layer transcoder': 'feature', 'mlp reconstruction error': 'error', embedding: 'token', logit: 'logit' })[n.feature_type];

function element(name, attributes = {}, text = null) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

export const signed = (x) => (x >= 0 ? '+' : '') + decimal(x, 3);

/** A next token's node as a short name: its token (its `clerp` is `Output "x" (p=0.25)`). */
const logitName = (n) => t('graph.short-logit', { token: JSON.stringify(tokenLabel(n.clerp.match(/"(.*)"/s)?.[1] ?? '')) });

/** An edge's head loadings, strongest first: each `{ layer, head }` (from 1) with its part. */
export function headParts(edge) {
  const { perLayer } = edge;
  // A head above the edge's target carries none of it: it is left out.
  return (edge.heads ?? []).map((part, i) => ({ layer: Math.floor(i / perLayer) + 1, head: (i % perLayer) + 1, part }))
    .filter((h) => h.part !== 0).sort((a, b) => Math.abs(b.part) - Math.abs(a.part));
}

export class GraphView {
  /** Draws into `svg`; `onPick(node)` hears of each feature picked (null when none is), `onEdge(edge)` of each edge clicked. */
  constructor(svg, onPick, onEdge) {
    this.svg = svg;
    this.onPick = onPick;
    this.onEdge = onEdge;
    this.file = null;
    this.edges = []; // the edges drawn: { source, target, weight, heads, perLayer }
    this.groups = []; // each a list of node ids
    this.picked = new Set(); // ids of picked nodes (a group by its first member)
  }

  /** A new graph: no groups, nothing picked. */
  show(file) {
    this.file = file;
    this.groups = [];
    this.picked.clear();
    this.draw();
  }

  /** The picked features, each as the core names one (a group: each member). */
  pickedFeatures() {
    const nodes = new Map(this.file?.nodes.map((n) => [n.node_id, n]) ?? []);
    return [...this.picked].flatMap((id) => this.groupOf(id) ?? [id]).map((id) => nodes.get(id))
      .filter((n) => n && kindOf(n) === 'feature')
      .map((n) => ({ layer: Number(n.layer), feature: Number(n.node_id.split('_')[1]), position: n.ctx_idx }));
  }

  /** Groups the picked features into one supernode. */
  group() {
    const members = [...this.picked].flatMap((id) => this.groupOf(id) ?? [id]);
    if (members.length < 2) return;
    this.groups = this.groups.filter((g) => !g.some((id) => members.includes(id)));
    this.groups.push(members);
    this.picked = new Set([members[0]]);
    this.draw();
  }

  ungroup() {
    this.groups = [];
    this.draw();
  }

  groupOf(id) {
    return this.groups.find((g) => g.includes(id));
  }

  draw() {
    const { svg, file } = this;
    if (!file) return svg.replaceChildren();
    const tokens = file.metadata.prompt_tokens;
    const layers = Math.max(0, ...file.nodes.filter((n) => kindOf(n) === 'logit').map((n) => Number(n.layer) - 1));
    const row = (n) => ({ token: 0, logit: layers + 1 })[kindOf(n)] ?? Number(n.layer) + 1;
    // A supernode stands for its members: drawn once, at their mean place.
    const representative = new Map(this.groups.flatMap((g) => g.map((id) => [id, g[0]])));
    const shown = file.nodes.filter((n) => !representative.has(n.node_id) || representative.get(n.node_id) === n.node_id);
    const cells = new Map();
    for (const n of shown) {
      const key = `${row(n)}:${n.ctx_idx}`;
      cells.set(key, [...(cells.get(key) ?? []), n]);
    }
    // Each position as wide as its busiest cell (wrapping past PER_LINE dots), each layer as tall:
    // positions with only their token stay narrow.
    const busiest = tokens.map(() => 1);
    let deepest = 1;
    // The next tokens stay on one line, labelled: there are 10 at most.
    const across = (key, list) => (key.startsWith(`${layers + 1}:`) ? list.length : Math.min(list.length, PER_LINE));
    for (const [key, list] of cells) {
      const p = Number(key.split(':')[1]);
      busiest[p] = Math.max(busiest[p], across(key, list));
      deepest = Math.max(deepest, Math.ceil(list.length / across(key, list)));
    }
    const rowHeight = 52 + (deepest - 1) * LINE;
    const widths = busiest.map((n) => Math.max(n === 1 ? 26 : 40, n * SPACE + 10));
    const starts = widths.map((_, p) => MARGIN.left + widths.slice(0, p).reduce((a, b) => a + b, 0));
    const centre = (p) => starts[p] + widths[p] / 2;
    const width = MARGIN.left + widths.reduce((a, b) => a + b, 0) + MARGIN.right;
    const height = MARGIN.top + (layers + 1) * rowHeight + MARGIN.bottom;
    const place = new Map();
    for (const [key, list] of cells) {
      const [r, p] = key.split(':').map(Number);
      list.sort((a, b) => (b.influence ?? 0) - (a.influence ?? 0));
      const line = across(key, list);
      list.forEach((n, i) => place.set(n.node_id, {
        x: centre(p) + ((i % line) - (line - 1) / 2) * SPACE,
        y: MARGIN.top + (layers + 1 - r) * rowHeight - Math.floor(i / line) * LINE,
        labelled: list.length <= line, // a wrapped cell's labels would overlap
      }));
    }
    const at = (id) => place.get(representative.get(id) ?? id);
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    const parts = [];
    for (let r = 0; r <= layers + 1; r++) {
      const y = MARGIN.top + (layers + 1 - r) * rowHeight;
      const name = r === 0 ? 'tokens' : r === layers + 1 ? 'next' : `L${r}`;
      parts.push(element('line', { x1: MARGIN.left, x2: width - MARGIN.right, y1: y, y2: y, class: 'graph-row' }));
      parts.push(element('text', { x: 4, y: y + 4, class: 'graph-axis' }, name));
    }
    tokens.forEach((t, p) => parts.push(element('text', { x: centre(p), y: height - 8, class: 'graph-axis graph-token' }, tokenLabel(t))));
    // Edges between what is drawn, a supernode's summed (and so its head loadings).
    const merged = new Map();
    for (const l of file.links) {
      const [source, target] = [representative.get(l.source) ?? l.source, representative.get(l.target) ?? l.target];
      if (source === target || !place.has(source) || !place.has(target)) continue;
      const edge = merged.get(`${source}\n${target}`) ?? { source, target, weight: 0, heads: null, perLayer: file.metadata.heads_per_layer };
      edge.weight += l.weight;
      if (l.heads) edge.heads = edge.heads ? edge.heads.map((h, i) => h + l.heads[i]) : [...l.heads];
      merged.set(`${source}\n${target}`, edge);
    }
    this.edges = [...merged.values()].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight)).slice(0, MOST_EDGES);
    const strongest = Math.max(1e-9, ...this.edges.map((e) => Math.abs(e.weight)));
    for (const edge of [...this.edges].reverse()) {
      const [s, t] = [at(edge.source), at(edge.target)];
      const strength = Math.abs(edge.weight) / strongest;
      const ends = { x1: s.x, y1: s.y, x2: t.x, y2: t.y };
      const link = element('g', { class: 'graph-link' });
      link.append(element('line', { ...ends, class: 'graph-link-hit' }), element('line', {
        ...ends, class: edge.weight >= 0 ? 'graph-edge up' : 'graph-edge down',
        'stroke-width': (0.4 + 3.6 * strength).toFixed(2), 'stroke-opacity': (0.15 + 0.75 * strength).toFixed(2),
      }), element('title', {}, this.edgeText(edge)));
      link.addEventListener('click', () => this.onEdge(edge));
      parts.push(link);
    }
    // Most influential first: the order Tab takes.
    const byInfluence = [...shown].sort((a, b) => (b.influence ?? -1) - (a.influence ?? -1));
    for (const n of byInfluence) parts.push(this.node(n, place.get(n.node_id)));
    svg.replaceChildren(...parts);
    // The output is at the right: show that end first.
    const canvas = svg.parentElement;
    if (canvas) canvas.scrollLeft = canvas.scrollWidth;
  }

  /** Node `n` at `p`: a dot to pick, with its label and what a screen reader says of it. */
  node(n, p) {
    const kind = kindOf(n);
    const group = this.groupOf(n.node_id);
    const g = element('g', { class: `graph-node ${kind}${group ? ' supernode' : ''}${this.picked.has(n.node_id) ? ' picked' : ''}`, 'data-node': n.node_id });
    const size = kind === 'feature' ? 5 : 4;
    g.append(group
      ? element('rect', { x: p.x - 9, y: p.y - 7, width: 18, height: 14, rx: 4, class: 'dot' })
      : kind === 'error' ? element('rect', { x: p.x - size, y: p.y - size, width: 2 * size, height: 2 * size, class: 'dot' })
        : element('circle', { cx: p.x, cy: p.y, r: size, class: 'dot' }));
    const said = this.describe(n, group);
    g.append(element('title', {}, said));
    const label = kind === 'logit' ? tokenLabel(n.clerp.match(/"(.*)"/s)?.[1] ?? '') : kind === 'feature' ? (group ? `×${group.length}` : tokenLabel(n.clerp)) : '';
    if (label && p.labelled) g.append(element('text', { x: p.x, y: kind === 'logit' ? p.y - 9 : p.y + 15, class: 'graph-label' }, label));
    if (kind === 'feature') {
      // A target a finger can hit, over the dot and its label.
      const hit = p.labelled ? { y: p.y - 9, height: 28 } : { y: p.y - LINE / 2, height: LINE }; // a wrapped cell's are packed
      g.prepend(element('rect', { x: p.x - SPACE / 2, width: SPACE, ...hit, class: 'graph-hit' }));
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.setAttribute('aria-pressed', String(this.picked.has(n.node_id)));
      g.setAttribute('aria-label', said);
      const pick = () => this.pick(n);
      g.addEventListener('click', pick);
      g.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), pick()));
    }
    return g;
  }

  /** The node with id `id`, by its short name: `L2F811@3`, an error, a token or a next token. */
  shortName(id) {
    const n = this.file.nodes.find((node) => node.node_id === id);
    const group = this.groupOf(id);
    const name = ({
      feature: () => `L${Number(n.layer) + 1}F${n.node_id.split('_')[1]}@${n.ctx_idx}`,
      error: () => t('graph.short-error', { layer: Number(n.layer) + 1, position: n.ctx_idx }),
      token: () => `${JSON.stringify(tokenLabel(this.file.metadata.prompt_tokens[n.ctx_idx] ?? ''))}@${n.ctx_idx}`,
      logit: () => logitName(n),
    })[kindOf(n)]();
    return group ? `${name} +${group.length - 1}` : name;
  }

  /** What hovering over `edge` says: its ends, its weight and the heads that carry most of it. */
  edgeText(edge) {
    const ends = `${this.shortName(edge.source)} \u2192 ${this.shortName(edge.target)}: ${signed(edge.weight)}`;
    const top = headParts(edge).slice(0, 3).map((h) => `L${h.layer}H${h.head} ${signed(h.part)}`);
    return top.length ? `${ends}; ${t('graph.edge-via', { heads: top.join(', ') })}` : ends;
  }

  /** The edges drawn into the node with id `id` whose heads are known, strongest first. */
  edgesInto(id) {
    return this.edges.filter((e) => e.target === id && e.heads);
  }

  describe(n, group) {
    const tokens = this.file.metadata.prompt_tokens;
    const at = t('graph.node-at', { position: n.ctx_idx, token: JSON.stringify(tokenLabel(tokens[n.ctx_idx] ?? '')) });
    switch (kindOf(n)) {
      case 'feature': {
        const [layer, feature] = n.node_id.split('_');
        const own = t('graph.node-feature', { layer: Number(layer) + 1, feature, at, top: JSON.stringify(tokenLabel(n.clerp)), activation: decimal(n.activation, 2) });
        return group ? t('graph.node-supernode', { n: group.length, own }) : own;
      }
      case 'error': return t('graph.node-error', { layer: Number(n.layer) + 1, at });
      case 'token': return t('graph.node-token', { at });
      default: return n.clerp;
    }
  }

  /** Picks `n` or lets it go; the newest pick's card is shown. */
  pick(n) {
    const id = n.node_id;
    if (this.picked.has(id)) this.picked.delete(id);
    else this.picked.add(id);
    this.draw();
    this.svg.querySelector(`[data-node="${CSS.escape(id)}"]`)?.focus();
    this.onPick(this.picked.has(id) ? n : null);
  }
}
