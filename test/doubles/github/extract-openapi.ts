// Regenerates test/doubles/github/openapi-subset.json: the operations of GitHub's official REST
// description (@octokit/openapi, api.github.com.json) that the GitHub provider and the test double
// use, with every component they reference. The package unpacks to ~400 MB, so it is not a
// dependency: this script `npm pack`s the pinned version into a temporary directory and reads the
// one file it needs. Run: `npx tsx test/doubles/github/extract-openapi.ts`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GITHUB_OPERATIONS, OPENAPI_PACKAGE } from './operations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const OUT = fileURLToPath(new URL('./openapi-subset.json', import.meta.url));

function loadSpec(): JsonObject {
  const dir = mkdtempSync(path.join(tmpdir(), 'octokit-openapi-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', OPENAPI_PACKAGE], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop() ?? '';
    execFileSync('tar', ['-xzf', tarball, 'package/generated/api.github.com.json'], { cwd: dir });
    return JSON.parse(readFileSync(path.join(dir, 'package/generated/api.github.com.json'), 'utf8')) as JsonObject;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function asObject(value: Json | undefined, what: string): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value;
}

/**
 * Drops the per-field `example`s (unused) and collects the `$ref`s a value uses. The named
 * `examples` of operations are kept: the double builds its responses from GitHub's own examples.
 */
function strip(value: Json, refs: Set<string>): Json {
  if (Array.isArray(value)) return value.map((v) => strip(v, refs));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'example') continue;
    if (key === '$ref' && typeof v === 'string') refs.add(v);
    out[key] = strip(v, refs);
  }
  return out;
}

function main(): void {
  const spec = loadSpec();
  const paths = asObject(spec.paths, 'paths');
  const components = asObject(spec.components, 'components');
  const refs = new Set<string>();
  const outPaths: JsonObject = {};
  for (const { method, path: p } of GITHUB_OPERATIONS) {
    const op = asObject(asObject(paths[p], p)[method], `${method} ${p}`);
    const entry = (outPaths[p] ??= {}) as JsonObject;
    entry[method] = strip(op, refs);
  }
  const outComponents: Record<string, JsonObject> = {};
  const seen = new Set<string>();
  const pending = [...refs];
  while (pending.length > 0) {
    const ref = pending.pop() as string;
    if (seen.has(ref)) continue;
    seen.add(ref);
    const [, , kind = '', name = ''] = ref.split('/');
    const found = asObject(components[kind], kind)[name];
    if (found === undefined) throw new Error(`unresolved ${ref}`);
    const more = new Set<string>();
    (outComponents[kind] ??= {})[name] = strip(found, more);
    pending.push(...more);
  }
  const info = asObject(spec.info, 'info');
  const subset = {
    openapi: spec.openapi,
    info: {
      title: `${String(info.title)} (subset used by openmq's GitHub double)`,
      version: info.version,
      license: info.license ?? null,
      'x-source': `${OPENAPI_PACKAGE} generated/api.github.com.json (MIT, © GitHub); regenerate with test/doubles/github/extract-openapi.ts`,
    },
    paths: outPaths,
    components: outComponents,
  };
  writeFileSync(OUT, `${JSON.stringify(subset)}\n`);
  console.log(`wrote ${OUT}: ${GITHUB_OPERATIONS.length} operations, ${seen.size} components`);
}

main();
