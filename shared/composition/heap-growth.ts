// How far V8 lets the heap grow past what survived its last full collection before it collects
// again. V8 chooses up to four times when a process allocates fast, which suits a process whose
// live data is small. The all-in-one process keeps every collection of the embedded store in its
// heap, so four times what lives is mostly garbage that a container's memory limit still counts:
// ten reports of 100,000 runs peaked near 1.6 GiB resident with about 350 MiB live
// (docs/operations.md#memory-of-the-embedded-store, docs/benchmarks.md).
import v8 from 'node:v8';

/**
 * The default with the embedded store: those ten reports peak near 900 MiB, later reports about
 * 11 % slower and /healthz still under 250 ms (docs/decisions.md). Unlike a heap limit it never
 * ends the process with an out-of-memory error as the store grows: it only makes full
 * collections more frequent.
 */
export const EMBEDDED_HEAP_GROWING_PERCENT = 60;

/**
 * Makes every later heap limit 1 + percent/100 times what survived the last full collection;
 * 0 leaves V8's own choice. V8 reads the flag each time it sets a limit, so setting it once the
 * process runs takes effect (test/unit/runtime/heap-growth.test.ts measures it); it cannot be
 * given in NODE_OPTIONS, which refuses V8's own flags.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
