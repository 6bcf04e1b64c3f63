// Starts a worker thread on a module beside the caller's. Under tsx (sources, tests) a worker does
// not inherit the parent's module loader, so it starts through tsx-worker-bootstrap.mjs, which
// registers tsx before importing the module; a compiled build starts the .js module directly.
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A thread running `name` (without extension), a module in the directory of `callerUrl` (the caller's import.meta.url). */
export function startModuleThread(callerUrl: string, name: string): Worker {
  const ext = path.extname(fileURLToPath(callerUrl));
  const module = new URL(`./${name}${ext}`, callerUrl);
  // None of the process's own flags: some are refused in a worker (--input-type), none is needed.
  if (ext === '.js') return new Worker(module, { execArgv: [] });
  return new Worker(new URL('./tsx-worker-bootstrap.mjs', import.meta.url), { execArgv: [], workerData: { module: module.href } });
}
