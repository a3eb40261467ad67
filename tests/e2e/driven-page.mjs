// The page as the WebDriver tests (Firefox, WebKit) see it: controls found by their label's own
// words (its text, and the catalog's words the page put in it) or their button text, as a user
// names them; fields changed as typing does; waits that say what the page showed when they time out.
import { PAGE_STATE } from './browsers.mjs';
import { SHOTS } from './session.mjs';

const HELPERS = `
  const named = (name) => [...document.querySelectorAll('label')]
    .find((l) => [...l.childNodes].filter((n) => n.nodeType === 3 || n.dataset?.i18n !== undefined).map((n) => n.textContent).join('').trim() === name)?.control
    ?? [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === name);
  const set = (name, value) => {
    const el = named(name);
    el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  };
  const status = () => document.getElementById('status').textContent;
  const stats = () => document.getElementById('stats').textContent;
`;

/** Collects every error the page raises in `window.errors`, and accepts every confirm. */
const WATCH_ERRORS = `window.errors = [];
  addEventListener('error', (e) => errors.push(e.message));
  addEventListener('unhandledrejection', (e) => errors.push(String(e.reason)));
  window.confirm = () => true;`;

/** Wraps a WebDriver handle (webdriver.mjs) with the helpers above; `prefix` names its screenshots. */
export function drivenPage(driver, prefix) {
  const run = (body) => driver.run(`${HELPERS}${body}`);
  const until = (expression, options) => driver.until(`(() => { ${HELPERS} return ${expression}; })()`, { explain: PAGE_STATE, ...options });
  const statusMatches = (re, timeout = 30000) => until(`/${re.source}/.test(status()) && status()`, { timeout, what: `status ${re}` });
  /** Presses the button `name` once it is enabled, as a person waits for it (it may wait for the text to be counted). */
  const press = async (name, timeout = 30000) => {
    await until(`!named(${JSON.stringify(name)}).disabled`, { timeout, what: `${name} enabled` });
    await run(`named(${JSON.stringify(name)}).click();`);
  };
  return {
    run, until, statusMatches, press,
    /** Opens `url` (or reloads), waits for Ready or `ready`, and starts collecting errors. */
    async open(url, ready = /^Ready/) {
      await (url ? driver.open(url) : driver.reload());
      await statusMatches(ready, 60000);
      await driver.run(WATCH_ERRORS);
    },
    shot: (name) => driver.screenshot(`${SHOTS}${prefix}-${name}.png`),
  };
}
