// GET /v1/openapi.json (this service's description) and GET /v1/docs, the reference page of both
// APIs (v1's description, or with ?api=v2 the v2 contract served at /v2/openapi.json): Swagger UI, whose files the dashboard's build copies into web/dist (web/vite.config.ts), so the page
// works without a network and without the package in production. The page loads nothing from
// elsewhere; its policy (the dashboard's, plus its one inline script by hash and the styles
// Swagger UI sets) would refuse it anyway.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../../shared/platform/errors.js';
import { openApiDocument } from './document.js';
import { DOCUMENT_PATH, REFERENCE_PATH, REFERENCE_SCRIPT_PATH, REFERENCE_STYLES_PATH } from './operations.js';
import type { OperationRoutes } from '../routing/operation-router.js';
import { webBuildDir } from '../dashboard/web-build-dir.js';
import { V2_DOCUMENT_PATH } from '../v2/contract.js';

// No validator badge (it would send the description to validator.swagger.io).
const INIT_SCRIPT = [
  `const v2 = new URLSearchParams(location.search).get('api') === 'v2';`,
  `document.querySelector(v2 ? '#api-v2' : '#api-v1').setAttribute('aria-current', 'page');`,
  `window.ui = SwaggerUIBundle({ url: v2 ? ${JSON.stringify(V2_DOCUMENT_PATH)} : ${JSON.stringify(DOCUMENT_PATH)}, dom_id: '#api-reference', deepLinking: true, validatorUrl: null });`,
].join(' ');

const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>openmq API reference</title>
    <link rel="stylesheet" href="${REFERENCE_STYLES_PATH}" />
  </head>
  <body>
    <nav aria-label="API version" style="padding: 0.5rem 1rem; font-family: sans-serif">
      <a id="api-v1" href="${REFERENCE_PATH}">v1 API</a> · <a id="api-v2" href="${REFERENCE_PATH}?api=v2">v2 merge-queue API</a>
    </nav>
    <main id="api-reference"></main>
    <script src="${REFERENCE_SCRIPT_PATH}"></script>
    <script>${INIT_SCRIPT}</script>
  </body>
</html>
`;

const REFERENCE_PAGE_CSP = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${createHash('sha256').update(INIT_SCRIPT).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A file of the reference page from the dashboard's build. */
function referenceAsset(name: string): string {
  const file = path.join(webBuildDir(), 'api-reference', name);
  if (!existsSync(file)) {
    throw new AppError('unavailable', 'api_reference_not_built', 'the API reference page is not built: run `npm run build:web` (npm start builds it)');
  }
  return file;
}

export function registerOpenApiRoutes(routes: OperationRoutes): void {
  const document = JSON.stringify(openApiDocument);
  routes.handle('getOpenApiDocument', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  routes.handle('getApiReference', (ctx) => {
    ctx.set('Content-Security-Policy', REFERENCE_PAGE_CSP);
    ctx.type = 'text/html';
    ctx.body = REFERENCE_PAGE;
  });
  const asset = (operationId: string, name: string, type: string) =>
    routes.handle(operationId, (ctx) => {
      const file = referenceAsset(name);
      ctx.type = type;
      // Changes only with a new build of the service.
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = createReadStream(file);
    });
  asset('getApiReferenceScript', 'api-reference.js', 'text/javascript');
  asset('getApiReferenceStyles', 'api-reference.css', 'text/css');
}
