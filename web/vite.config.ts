// The dashboard's build: web/ is Vite's root, the output goes to web/dist, which the API serves
// (api/dashboard/serve-dashboard.ts). In development `npm run web:dev` proxies /v1 to a running
// `npm start`.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
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
