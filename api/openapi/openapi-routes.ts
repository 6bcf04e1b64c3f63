// GET /v1/openapi.json (this service's description) and GET /v1/docs (a reference page rendered
// by Scalar's standalone bundle, served from node_modules so the page works without a network).
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { openApiDocument } from './document.js';
import { DOCUMENT_PATH, REFERENCE_SCRIPT_PATH } from './operations.js';
import type { OperationRoutes } from '../routing/operation-router.js';

const require = createRequire(import.meta.url);
const SCALAR_BUNDLE = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

// Fonts and telemetry off: the page must make no request beyond this service.
const SCALAR_CONFIGURATION = { url: DOCUMENT_PATH, withDefaultFonts: false, telemetry: false };

const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>openmq API reference</title>
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="${REFERENCE_SCRIPT_PATH}"></script>
    <script>Scalar.createApiReference('#api-reference', ${JSON.stringify(SCALAR_CONFIGURATION)});</script>
  </body>
</html>
`;

export function registerOpenApiRoutes(routes: OperationRoutes): void {
  const document = JSON.stringify(openApiDocument);
  routes.handle('getOpenApiDocument', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  routes.handle('getApiReference', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = REFERENCE_PAGE;
  });
  routes.handle('getApiReferenceScript', (ctx) => {
    ctx.type = 'text/javascript';
    // Changes only with the installed package version.
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = createReadStream(SCALAR_BUNDLE);
  });
}
