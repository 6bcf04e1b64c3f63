// The dashboard's build (web/ → web/dist), made when it is missing or older than any of its
// sources. Used by `npm start`, `npm run build:web`, the browser tests and the screenshots.
// Plain JavaScript: start.mjs runs it without tsx.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const webDir = path.join(root, 'web');
export const WEB_BUILD_DIR = path.join(webDir, 'dist');
const marker = path.join(WEB_BUILD_DIR, 'index.html');

/** Newest modification time of the dashboard's inputs: web/ (but its build) and the lock file. */
function newestSource(dir = webDir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (full === WEB_BUILD_DIR) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return dir === webDir ? Math.max(newest, statSync(path.join(root, 'package-lock.json')).mtimeMs) : newest;
}

export function webBuildStale() {
  return !existsSync(marker) || statSync(marker).mtimeMs < newestSource();
}

/** Builds the dashboard when stale (or always, with force). Returns whether it built. */
export async function ensureWebBuild({ force = false, quiet = false } = {}) {
  if (!force && !webBuildStale()) return false;
  const { build } = await import('vite');
  await build({ configFile: path.join(webDir, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  return true;
}
