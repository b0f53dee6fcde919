import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { notFound, serviceUnavailable } from '../shared/errors.js';
import type { App } from './types.js';

/** Where the operators' console is served (its Vite build has `base: '/console/'`). */
export const CONSOLE_PATH = '/console';

// The types of what a Vite build writes; anything else is sent as bytes.
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/**
 * The console's Content-Security-Policy: scripts, connections, fonts and frames from our origin only;
 * inline styles, which MUI's emotion injects; pictures from our origin, data: and blob: URLs (previews of
 * files being uploaded) and the origins public files are served from when they are not ours.
 */
export function consoleDirectives(imageOrigins: string[]): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:', ...imageOrigins],
    'connect-src': ["'self'"],
    'font-src': ["'self'", 'data:'],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'object-src': ["'none'"],
  };
}

/** The origin of each absolute URL (a CDN in front of public files); relative ones are our own origin. */
export const foreignOrigins = (...urls: string[]) => [
  ...new Set(urls.flatMap((url) => (URL.canParse(url) ? [new URL(url).origin] : []))),
];

const NOT_BUILT =
  'The console is not built: run `npm run build` (or `npm start`, which builds it when it is missing), then reload.';
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1>
<p>Build it where the sources and dev dependencies are: <code>npm run build</code> (or <code>npm start</code>, which
builds it when it is missing or older than its sources), then reload this page. A Docker image ships it built.</p>
</body></html>
`;

/** A path of the request, relative to the console, as path segments; null when it could leave the directory. */
function segmentsOf(path: string): string[] | null {
  const parts = path.split('/');
  const unsafe = (p: string) => p === '..' || p === '.' || p.startsWith('.') || p.includes('\\') || p.includes('\0');
  return parts.some(unsafe) ? null : parts;
}

/** The file's bytes, or null when there is no file there (a client-side route, a directory). */
async function fileAt(dir: string, segments: string[]): Promise<Buffer | null> {
  if (segments.some((s) => s === '')) return null;
  const path = resolve(dir, ...segments);
  if (!path.startsWith(dir + sep)) return null;
  try {
    return await readFile(path);
  } catch (err) {
    if (['ENOENT', 'EISDIR', 'ENOTDIR', 'ENAMETOOLONG'].includes((err as NodeJS.ErrnoException).code ?? ''))
      return null;
    throw err;
  }
}

const typeOf = (name: string) => TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';

/**
 * The operators' console, a Vite single-page app built into `dir` (CONSOLE_DIR): hashed assets under
 * /console/assets/ kept a year, every other path the page itself (index.html, revalidated each time, so
 * a new build is seen at once) unless a file of the build is there. Files are read on each request: a
 * build swapped in while the server runs is served at once.
 */
export function consoleRoutes(opts: { dir: string; imageOrigins?: string[] }) {
  const dir = resolve(opts.dir);
  // X-Frame-Options says what frame-ancestors says, for browsers that read only the former.
  const helmet = {
    contentSecurityPolicy: { useDefaults: false, directives: consoleDirectives(opts.imageOrigins ?? []) },
    xFrameOptions: { action: 'deny' as const },
  };
  const route = (cache: 'page' | 'immutable'): RouteShorthandOptions => ({
    config: { access: 'Public', cache },
    schema: { hide: true },
    helmet,
  });

  async function sendPage(req: FastifyRequest, reply: FastifyReply) {
    const page = await fileAt(dir, ['index.html']);
    if (page) return reply.type(TYPES['.html']!).send(page);
    if (!req.headers.accept?.includes('text/html')) throw serviceUnavailable(NOT_BUILT);
    return reply.code(503).type(TYPES['.html']!).send(NOT_BUILT_PAGE);
  }

  return async (app: App) => {
    if (!existsSync(join(dir, 'index.html'))) {
      app.log.warn(
        { consoleDir: dir },
        `console not built: ${CONSOLE_PATH} answers 503 until ${join(dir, 'index.html')} exists (npm run build)`,
      );
    }

    app.get(`${CONSOLE_PATH}/assets/*`, route('immutable'), async (req, reply) => {
      const name = (req.params as { '*': string })['*'];
      const segments = segmentsOf(name);
      const file = segments && (await fileAt(join(dir, 'assets'), segments));
      if (!file) throw notFound('File');
      // A hashed name stands for its bytes: it is their tag (weak: the bytes may be sent compressed).
      return reply.type(typeOf(name)).header('etag', `W/"${name}"`).send(file);
    });

    app.get(CONSOLE_PATH, route('page'), sendPage);
    app.get(`${CONSOLE_PATH}/*`, route('page'), async (req, reply) => {
      const path = (req.params as { '*': string })['*'];
      const segments = segmentsOf(path);
      if (!segments || segments[0] === 'assets') throw notFound('File');
      // A file of the build outside assets/ (an icon, robots.txt): not hashed, so revalidated as the page is.
      const file = await fileAt(dir, segments);
      return file ? reply.type(typeOf(path)).send(file) : sendPage(req, reply);
    });
  };
}
