// The dashboard's build: web/ is Vite's root, the output goes to web/dist, which the API serves
// (api/dashboard/serve-dashboard.ts). In development `npm run web:dev` proxies /v1 to a running
// `npm start`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The API reference page (GET /v1/docs) is Swagger UI, whose two files are copied into the build
 * here, so the service serves them without the package installed in production.
 */
function apiReferenceAssets(): Plugin {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return {
    name: 'openmq-api-reference-assets',
    generateBundle() {
      for (const [from, to] of [
        ['swagger-ui-bundle.js', 'api-reference/api-reference.js'],
        ['swagger-ui.css', 'api-reference/api-reference.css'],
        ['LICENSE', 'api-reference/LICENSE'],
        ['NOTICE', 'api-reference/NOTICE'],
      ] as const) {
        // The source map is not shipped: drop the comment that would make a browser ask for it.
        const source = readFileSync(path.join(dir, from), 'utf8').replace(/\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n');
        this.emitFile({ type: 'asset', fileName: to, source });
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), apiReferenceAssets()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // React, Chart.js and dagre in one file: about 210 kB gzipped, loaded once and cached for good.
    chunkSizeWarningLimit: 1000,
  },
  server: {
    proxy: { '/v1': process.env.OPENMQ_URL ?? 'http://localhost:8080' },
  },
});
