// The embedded store's share of a first flaky-test report: creating `--tests` test documents
// through the flaky-tests repository (DbTestCaseRepository.insertNew, in the ingest's batches of
// 500, with the collection's indexes) in a persisted data directory, as the first report of that
// many new tests does — the floor under that report's end-to-end rate (docs/benchmarks.md).
//
//   npx tsx scripts/bench-embedded-insert.ts [--tests 100000] [--runs 5]
//   node --expose-gc --import tsx scripts/bench-embedded-insert.ts   # also the heap the documents hold
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openEmbeddedDatabase } from '../shared/platform/database/embedded/embedded-database.js';
import { DbTestCaseRepository, type SeenTest } from '../shared/flaky-tests/store/test-case-repository.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({ options: { tests: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' } } });
const TESTS = Number(values.tests);
const RUNS = Number(values.runs);
const BATCH = 500;

function seen(n: number, at: Date): SeenTest {
  const testId = n.toString(16).padStart(40, '0');
  const module = Math.floor(n / 50);
  return {
    caseId: `repo-1:${testId}`,
    orgId: 'org-1',
    repoId: 'repo-1',
    testId,
    name: `test_case_${String(n).padStart(7, '0')}`,
    classname: `big.module${module}.Tests`,
    parent: 'big',
    file: `src/big/module${module}/tests.py`,
    fileHint: null,
    variant: '',
    codeowners: null,
    firstRunAt: at,
    lastRunAt: at,
    expiresAt: new Date(at.getTime() + 30 * 86_400_000),
    lastEvidenceAt: null,
  };
}

/** Heap in use after a full collection, where --expose-gc makes one available. */
function heapAfterCollection(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  return process.memoryUsage().heapUsed;
}

const heaps: number[] = [];

async function once(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openmq-bench-insert-'));
  const empty = heapAfterCollection();
  const db = await openEmbeddedDatabase({ dataDir: dir });
  try {
    const tests = new DbTestCaseRepository(db);
    await tests.ensureIndexes();
    const at = new Date();
    const started = performance.now();
    for (let i = 0; i < TESTS; i += BATCH) {
      await tests.insertNew(Array.from({ length: Math.min(BATCH, TESTS - i) }, (_, k) => seen(i + k, at)));
    }
    const elapsed = performance.now() - started;
    const full = heapAfterCollection();
    if (empty !== null && full !== null) heaps.push(full - empty);
    return elapsed;
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const times: number[] = [];
for (let r = 0; r < RUNS; r++) {
  times.push(await once());
  console.error(`run ${r + 1}: ${Math.round(times.at(-1)!)} ms`);
}
const ms = median(times);
console.log(
  `${machineSummary()}: ${TESTS.toLocaleString('en')} test documents created in ${Math.round(ms)} ms (median of ${RUNS}), ${Math.round(TESTS / (ms / 1000)).toLocaleString('en')} tests/s`,
);
if (heaps.length > 0) console.log(`heap held by the store after a collection: ${Math.round(median(heaps) / 2 ** 20)} MiB`);
