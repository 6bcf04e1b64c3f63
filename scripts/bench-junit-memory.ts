// JUnit parser memory benchmark: peak heap growth and peak RSS while streaming one generated
// ~100 MB report (one test whose failure is 30 MB and whose output is 10 MB, then ~120,000
// tests with ~780-byte failures or outputs). The target: heap growth stays below 40 MB, since
// the parser streams and keeps at most 64 KiB of any one text.
//
//   npx tsx scripts/bench-junit-memory.ts [--runs 5]
//
// Each run is a fresh Node process (--expose-gc), so one run's garbage cannot count in the
// next. Heap is sampled after a forced GC every 4 MB of input — from the producer, so samples see
// the parser mid-document, inside the giant node too — and RSS at the same moments. The script
// checks that every test was parsed and the giant texts were truncated, then prints the medians.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { machineSummary, median } from './lib/bench-stats.js';
import { parseJUnit } from '../shared/flaky-tests/formats/junit/index.js';

const MiB = 1024 * 1024;
const TOTAL_BYTES = 100 * MiB;
const GIANT_OUTPUT_BYTES = 30 * MiB;
const SAMPLE_EVERY_BYTES = 4 * MiB;
const KEPT_TEXT_BYTES = 64 * 1024;
const HEAP_TARGET_BYTES = 40 * MiB;

interface RunResult {
  peakHeapGrowth: number;
  peakRss: number;
  baselineRss: number;
  samples: number;
  seconds: number;
}

/** The report, generated lazily; `sample` is called every few MB of produced input. */
function generatedReport(sample: () => void): { stream: Readable; expected: { testcases: number; failed: number } } {
  const expected = { testcases: 0, failed: 0 };
  const filler = 'lorem ipsum dolor sit amet 0123456789 '.repeat(20);
  function* gen(): Generator<string> {
    let produced = 0;
    let nextSample = 0;
    const emit = (s: string): string => {
      produced += s.length;
      if (produced >= nextSample) {
        sample();
        nextSample = produced + SAMPLE_EVERY_BYTES;
      }
      return s;
    };
    yield emit(
      '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="big">\n<testsuite name="giant">\n<testcase name="noisy" classname="Giant"><failure message="m">',
    );
    expected.testcases++;
    expected.failed++;
    const block = 'x'.repeat(64 * 1024);
    for (let n = 0; n < GIANT_OUTPUT_BYTES; n += block.length) yield emit(block);
    yield emit('</failure><system-out>');
    for (let n = 0; n < GIANT_OUTPUT_BYTES / 3; n += block.length) yield emit(block);
    yield emit('</system-out></testcase>\n</testsuite>\n');
    let suite = 0;
    let i = 0;
    while (produced < TOTAL_BYTES) {
      let chunk = `<testsuite name="pkg.Suite${suite}" timestamp="2024-01-01T00:00:00Z">\n`;
      for (let k = 0; k < 200; k++, i++) {
        expected.testcases++;
        if (i % 10 === 0) {
          expected.failed++;
          chunk += `<testcase classname="pkg.C${i % 500}" name="test_${i}" time="0.01"><failure message="expected ${i} &amp; more" type="AssertionError"><![CDATA[${filler}]]></failure></testcase>\n`;
        } else {
          chunk += `<testcase classname="pkg.C${i % 500}" name="test_${i}" time="0.01"><system-out>${filler}</system-out></testcase>\n`;
        }
      }
      chunk += '</testsuite>\n';
      suite++;
      yield emit(chunk);
    }
    yield emit('</testsuites>\n');
  }
  return { stream: Readable.from(gen(), { objectMode: false }), expected };
}

/** One measured parse, in this process (started with --expose-gc by the parent). */
async function measureOnce(): Promise<RunResult> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with node --expose-gc (the parent process does this)');
  gc();
  const baselineHeap = process.memoryUsage().heapUsed;
  const baselineRss = process.memoryUsage.rss();
  let peakHeapGrowth = 0;
  let peakRss = baselineRss;
  let samples = 0;
  const sample = (): void => {
    gc();
    samples++;
    peakHeapGrowth = Math.max(peakHeapGrowth, process.memoryUsage().heapUsed - baselineHeap);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  };
  const started = performance.now();
  let runs = 0;
  let failed = 0;
  let giant: { detail: number; systemOut: number; truncated: boolean } | null = null;
  const { stream, expected } = generatedReport(sample);
  for await (const item of parseJUnit(stream)) {
    if (item.kind !== 'run') continue;
    runs++;
    if (item.outcome === 'failed') failed++;
    if (item.name === 'noisy') giant = { detail: item.detail?.text?.length ?? 0, systemOut: item.systemOut?.length ?? 0, truncated: item.truncated === true };
  }
  sample();
  const seconds = (performance.now() - started) / 1000;
  if (runs !== expected.testcases || failed !== expected.failed) {
    throw new Error(`parsed ${runs} runs (${failed} failed), expected ${expected.testcases} (${expected.failed} failed)`);
  }
  if (!giant || giant.detail !== KEPT_TEXT_BYTES || giant.systemOut !== KEPT_TEXT_BYTES || !giant.truncated) {
    throw new Error(`the giant test case was not truncated to ${KEPT_TEXT_BYTES} bytes: ${JSON.stringify(giant)}`);
  }
  return { peakHeapGrowth, peakRss, baselineRss, samples, seconds };
}

function runChild(): Promise<RunResult> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--child'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as RunResult) : reject(new Error(`a measured run exited with ${code}`))));
  });
}

const mb = (bytes: number): string => (bytes / MiB).toFixed(1);

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, child: { type: 'boolean', default: false } } });

if (values.child) {
  process.stdout.write(JSON.stringify(await measureOnce()));
} else {
  const count = Number(values.runs);
  console.log(`JUnit parser memory: ~${TOTAL_BYTES / MiB} MB report, ${count} runs (fresh process each)`);
  console.log(machineSummary());
  const results: RunResult[] = [];
  for (let i = 0; i < count; i++) {
    const r = await runChild();
    results.push(r);
    console.log(
      `run ${i + 1}: heap growth ${mb(r.peakHeapGrowth)} MB, peak RSS ${mb(r.peakRss)} MB (baseline ${mb(r.baselineRss)} MB), ${r.samples} samples, ${r.seconds.toFixed(1)} s`,
    );
  }
  const heap = median(results.map((r) => r.peakHeapGrowth));
  console.log(
    `median peak heap growth ${mb(heap)} MB (target < ${mb(HEAP_TARGET_BYTES)} MB), median peak RSS ${mb(median(results.map((r) => r.peakRss)))} MB, median ${median(results.map((r) => r.seconds)).toFixed(1)} s`,
  );
  if (heap >= HEAP_TARGET_BYTES) process.exitCode = 1;
}
