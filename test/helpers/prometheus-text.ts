// Reading Prometheus text exposition in tests: an independent parser from npm
// (parse-prometheus-text-format) and `promtool check metrics` (Debian package `prometheus`).
import { spawnSync } from 'node:child_process';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';

export type { ParsedFamily, ParsedSample };

export interface Exposition {
  /** Families as the parser groups them: names, HELP, TYPE, and the samples of gauges and counters. */
  families: Map<string, ParsedFamily>;
  /**
   * Every sample line by its own name (`x_bucket`, `x_sum`, `x_count` for histograms), labels
   * included. The parser folds all label sets of a histogram into one and drops their labels
   * (yunyu/parse-prometheus-text-format#8, unfixed), so histograms are read from a second parse
   * of the text without its TYPE lines, where every sample keeps its labels.
   */
  samples: Map<string, ParsedSample[]>;
}

export function parseExposition(text: string): Exposition {
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const untyped = text
    .split('\n')
    .filter((l) => !l.startsWith('# TYPE '))
    .join('\n');
  const samples = new Map<string, ParsedSample[]>();
  for (const f of parsePrometheusTextFormat(untyped)) samples.set(f.name, [...(samples.get(f.name) ?? []), ...f.metrics]);
  return { families, samples };
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const x = a ?? {};
  const keys = Object.keys(x);
  return keys.length === Object.keys(b).length && keys.every((k) => x[k] === b[k]);
}

/** The value of the sample named `name` with exactly these labels. */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string>): number | undefined {
  const s = e.samples.get(name)?.find((m) => sameLabels(m.labels, labels));
  return s?.value === undefined ? undefined : Number(s.value);
}

/** A gauge or counter sample, checked to belong to a family of that name. */
export function gaugeValue(e: Exposition, family: string, labels: Record<string, string>): number | undefined {
  const s = e.families.get(family)?.metrics.find((m) => sameLabels(m.labels, labels));
  return s?.value === undefined ? undefined : Number(s.value);
}

export interface HistogramValue {
  /** Cumulative counts by `le` ("60", …, "+Inf"). */
  buckets: Record<string, number>;
  sum: number;
  count: number;
}

/** The histogram `family` with these labels (without `le`), or undefined when it has no such series. */
export function histogramValue(e: Exposition, family: string, labels: Record<string, string>): HistogramValue | undefined {
  if (e.families.get(family)?.type !== 'HISTOGRAM') return undefined;
  const buckets: Record<string, number> = {};
  for (const m of e.samples.get(`${family}_bucket`) ?? []) {
    const { le, ...rest } = m.labels ?? {};
    if (le !== undefined && sameLabels(rest, labels)) buckets[le] = Number(m.value);
  }
  const sum = sampleValue(e, `${family}_sum`, labels);
  const count = sampleValue(e, `${family}_count`, labels);
  if (sum === undefined || count === undefined) return undefined;
  return { buckets, sum, count };
}

export function promtoolAvailable(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
}

export const PROMTOOL_MISSING =
  'promtool is not installed (Debian package `prometheus`: apt-get install --no-install-recommends prometheus); .ci/run installs it';

/**
 * `promtool check metrics` on `text`: exit status 0 (clean), 3 (lint findings) or 1 (invalid),
 * and the findings, one per line.
 */
export function promtoolCheck(text: string): { status: number; findings: string[] } {
  const res = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const out = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  return {
    status: res.status ?? -1,
    findings: out
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 0),
  };
}
