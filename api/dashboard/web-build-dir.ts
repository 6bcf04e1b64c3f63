// Where the dashboard's build lives: web/dist under the package root, found from this module
// whether it runs from source (api/dashboard/) or compiled (dist/api/dashboard/).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function webBuildDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('openmq: package.json not found above the API module');
    dir = parent;
  }
  return path.join(dir, 'web', 'dist');
}
