// The package's root directory (where package.json is), found from this module whether it runs
// from source (shared/platform/runtime/) or compiled (dist/shared/platform/runtime/): files the
// package ships beside its code (web/dist, openapi/) are found from it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('openmq: package.json not found above the running module');
    dir = parent;
  }
  return dir;
}
