// Pull-style entry points over JUnitStreamParser: an async iterable of runs and issues that reads
// the next chunk only when the consumer asks for more (so back-pressure reaches the byte source),
// and a collecting helper for small inputs and tests.
import { JUnitStreamParser } from './stream-parser.js';
import type { ByteSource, JUnitIssue, JUnitItem, JUnitParseOptions, JUnitRun } from './types.js';

/** Bytes handed to the parser per step; bounds how many items one step can produce. */
const STEP_BYTES = 64 * 1024;

function* slices(chunk: Uint8Array | string): Generator<Uint8Array | string> {
  if (chunk.length <= STEP_BYTES) {
    yield chunk;
    return;
  }
  for (let i = 0; i < chunk.length; i += STEP_BYTES) {
    yield typeof chunk === 'string' ? chunk.slice(i, i + STEP_BYTES) : chunk.subarray(i, i + STEP_BYTES);
  }
}

/**
 * Parses one JUnit document. Never throws for bad content or a failing source: problems arrive as
 * `{kind: 'issue'}` items (level `error` for documents that are not usable JUnit), so one bad file
 * cannot break a batch. Runs arrive in document order as each testcase completes. The source is
 * read to its end even after a fatal issue, so multiplexed sources (tar entries, multipart file
 * streams) keep flowing; stop iterating to abandon it instead.
 */
export async function* parseJUnit(source: ByteSource, options: JUnitParseOptions = {}): AsyncGenerator<JUnitItem, void, undefined> {
  const queue: JUnitItem[] = [];
  const parser = new JUnitStreamParser((item) => queue.push(item), options);
  const drain = function* (): Generator<JUnitItem> {
    for (let i = 0; i < queue.length; i++) yield queue[i]!;
    queue.length = 0;
  };
  try {
    for await (const chunk of source) {
      for (const piece of slices(chunk)) {
        parser.write(piece);
        if (queue.length > 0) yield* drain();
      }
    }
  } catch (err) {
    parser.fail(`reading the report failed: ${(err as Error).message}`);
  }
  parser.end();
  yield* drain();
}

export interface CollectedJUnit {
  runs: JUnitRun[];
  issues: JUnitIssue[];
}

/** Collects a whole document (for small inputs and tests; production code should stream). */
export async function collectJUnit(source: ByteSource, options: JUnitParseOptions = {}): Promise<CollectedJUnit> {
  const runs: JUnitRun[] = [];
  const issues: JUnitIssue[] = [];
  for await (const item of parseJUnit(source, options)) {
    if (item.kind === 'run') {
      const { kind: _kind, ...run } = item;
      runs.push(run);
    } else {
      const { kind: _kind, ...issue } = item;
      issues.push(issue);
    }
  }
  return { runs, issues };
}

/** Convenience: parse an in-memory document. */
export function collectJUnitString(xml: string | Uint8Array, options: JUnitParseOptions = {}): Promise<CollectedJUnit> {
  return collectJUnit(
    (async function* () {
      yield xml;
    })(),
    options,
  );
}

/** True when the document produced an error-level issue (unusable or partially usable). */
export function hasJUnitErrors(issues: readonly JUnitIssue[]): boolean {
  return issues.some((i) => i.level === 'error');
}
