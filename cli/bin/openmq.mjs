#!/usr/bin/env node
// The `openmq` command. In a clone with its development dependencies it runs the TypeScript
// sources through tsx, so an edit takes effect without a build; in a production install (the
// Docker image, `npm ci --omit=dev`) tsx is absent and it runs the compiled CLI that `npm run
// build` writes to dist/. Sources win when both exist, so a stale dist/ never shadows an edit.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../main.ts', import.meta.url);
const compiled = new URL('../../dist/cli/main.js', import.meta.url);

async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw err;
  }
}

const register = existsSync(fileURLToPath(source)) ? await tsxRegister() : null;
if (register) {
  register();
  await import(source.href);
} else if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  console.error('openmq: the CLI is not built here — run `npm run build` (or `npm ci` to run it from its sources)');
  process.exit(1);
}
