// A static file server for the repository root (or an assembled site, under a sub-path as a static
// host serves it), on 127.0.0.1 only. Usage: node scripts/serve.mjs [port]
// The page lives at web/; a file:// URL cannot load wasm modules, hence a server.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = resolve(fileURLToPath(new URL('..', import.meta.url)));
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ts': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
};

/**
 * Starts the server; resolves to { server, url } (the page's) once it listens. Port 0 picks a free
 * one. `root` is the folder served, at `base` (a path ending in /); anything outside is not found.
 */
export function serve(port = 8000, host = '127.0.0.1', { root = REPOSITORY, base = '/' } = {}) {
  const server = createServer(async (req, res) => {
    const full = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if ((full === '/' || full === base) && !existsSync(join(root, 'index.html'))) { // the repository has none
      res.writeHead(302, { Location: `${base}web/` }).end();
      return;
    }
    if (!full.startsWith(base)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${full}`);
      return;
    }
    const path = full.slice(base.length - 1);
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${path}`);
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok({ server, url: `http://${host}:${server.address().port}${base}web/` }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8000);
  serve(port).then(
    ({ url }) => console.log(`gpt-playground is at ${url}  (Ctrl-C stops the server)`),
    (e) => {
      console.error(e.code === 'EADDRINUSE' ? `error: port ${port} is in use; pass another, e.g. PORT=8080` : `error: ${e.message}`);
      process.exit(1);
    },
  );
}
