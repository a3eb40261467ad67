// A dictionary's measures and a feature's dashboard, as the autoencoder's panel and the attribution
// graph's both show them: named measures, and a feature's strongest contexts with the tokens
// shaded by its activation, and the tokens it promotes and suppresses through the unembedding.
import { count, tokenLabel } from './format.js';
import { decimal, t } from './i18n.js';

/** `tokens` as spans shaded by `activations` against `max`, `at` marked. */
export function shaded(tokens, activations, max, at) {
  return tokens.map((token, i) => {
    const span = document.createElement('span');
    span.className = i === at ? 'token strongest' : 'token';
    span.textContent = tokenLabel(token);
    const a = activations[i];
    span.style.setProperty('--shade', String(max > 0 ? Math.max(0, a) / max : 0));
    span.title = `${tokenLabel(token)}: ${decimal(a, 3)}`;
    return span;
  });
}

/** `contexts` (a card's) as list items: the activation at its strongest token, then the tokens. */
export function contextItems(contexts, max) {
  return contexts.map((c) => {
    const li = document.createElement('li');
    const value = document.createElement('span');
    value.className = 'value';
    value.textContent = decimal(c.activations[c.at], 2);
    li.append(value, ...shaded(c.tokens, c.activations, max, c.at));
    return li;
  });
}

/** Fills list `host` with `tokens` (each {token, logit}). */
export function tokenList(host, tokens) {
  host.replaceChildren(...tokens.map((t) => {
    const li = document.createElement('li');
    li.textContent = `${tokenLabel(t.token)} ${t.logit >= 0 ? '+' : ''}${decimal(t.logit, 2)}`;
    return li;
  }));
}

/** A share as a percentage to a tenth. */
export const percent = (x) => `${decimal(100 * x, 1)}%`;

/** Fills `host` (a <dl>) with measures, each [term, value, what it means]. */
export function fillMeasures(host, items) {
  host.replaceChildren(...items.map(([term, value, title]) => {
    const pair = document.createElement('div');
    pair.title = title;
    const [dt, dd] = [document.createElement('dt'), document.createElement('dd')];
    dt.textContent = term;
    dd.textContent = value;
    pair.append(dt, dd);
    return pair;
  }));
}

/** A dictionary's training speed as its status says it: tokens a second, workers, time left. */
export function trainingSpeed(report) {
  return t('common.speed', { n: report.workers, rate: count(Math.round(report.tokens_per_s)), left: Math.ceil(report.eta_s) });
}
