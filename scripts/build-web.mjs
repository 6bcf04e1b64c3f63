// `npm run build:web`: builds the dashboard (web/ → web/dist) when it is missing or stale;
// `--force` builds anyway.
import { ensureWebBuild } from './lib/web-build.mjs';

const built = await ensureWebBuild({ force: process.argv.includes('--force') });
if (!built) console.log('web/dist is up to date');
