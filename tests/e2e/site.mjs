// The end-to-end tests drive the page as a static host serves it: the site that scripts/site.mjs
// assembles (afresh for each test file, from the builds there are), under a sub-path.
import { assembleSite } from '../../scripts/site.mjs';
import { serve } from '../../scripts/serve.mjs';

/** Where the tests' site lives on their server, as GitHub Pages serves a repository's. */
export const BASE = '/gpt-playground/';

/** Assembles the site and serves it at BASE on a free port: resolves to { server, url }. */
export const serveSite = () => serve(0, '127.0.0.1', { root: assembleSite(), base: BASE });
