// Serves the dashboard's built assets (web/, built to web/dist by scripts/build-web.mjs) from
// `/`. Mounted after every router, so it only sees requests nothing else answered, and it never
// answers under the API's own prefixes: an unknown /v1 route stays a JSON 404.
import type { Middleware } from 'koa';
import send from 'koa-send';

const API_PREFIXES = ['/v1', '/v2', '/auth', '/healthz', '/readyz', '/metrics', '/webhooks', '/flaky-tests/bundle-uploads'];
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** In any letter case: another spelling of an API path is the API's 404, never a page. */
const isApiPath = (p: string) => {
  const lower = p.toLowerCase();
  return API_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
};

/**
 * The dashboard's pages (web/src/main.tsx): `/`, `/sign-in`, `/cli-login`, and `/<org slug>` with
 * what lies under its merge-queue and flaky-tests sections and its tokens and API keys pages. Any other path
 * stays the API's JSON 404.
 */
const PAGE = /^\/(?:sign-in|cli-login|[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\/(?:merge-queue|flaky-tests)(?:\/.*)?|\/tokens|\/api-keys)?)?$/;

/** Vite names every file under assets/ by its content hash: a new build never reuses a name. */
const isHashedAsset = (p: string) => p.startsWith('/assets/');

export function serveDashboard(root: string): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path)) return next();
    if (isHashedAsset(ctx.path)) {
      const served = await sendIfPresent(() => send(ctx, ctx.path, { root, immutable: true, maxage: YEAR_MS }));
      return served ? undefined : next();
    }
    // A page of the single-page app (a deep link) gets index.html, which must be revalidated so
    // a new build is picked up at once.
    if (!PAGE.test(ctx.path)) return next();
    const served = await sendIfPresent(() => send(ctx, '/index.html', { root, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
    return served ? undefined : next();
  };
}

async function sendIfPresent(sendFile: () => Promise<string>): Promise<boolean> {
  try {
    await sendFile();
    return true;
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 404) return false;
    throw err;
  }
}
