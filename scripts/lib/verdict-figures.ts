// The simulator's figures for acting on verdicts (issue 26): seeded workloads where 5 % of pull
// requests break the build, 3 % of runs flake on a test known as flaky and 1 % fail for their
// infrastructure (no test results uploaded), played through the engine with the flaky re-test on
// and the verdict rules off (notItsFaultRetries 0) and on (1), without and with batching, and with
// batching the interaction check off and on (its cost: a culprit blamed on top of other members is
// tested alone once more). One markdown table: innocent ejections per 100 pull requests, CI runs
// per merged pull request, the median time in queue, and the plays in which a group was held (it
// waits for a person there).
// scripts/simulate-verdicts.ts prints it; scripts/simulate-efficiency.ts puts it in docs/efficiency.md.
import { RUNNERS, workloadOf } from '../../shared/merge-queue/simulation/efficiency-benchmark.js';
import { DEFAULT_SETTINGS, type FullSettings } from '../../shared/merge-queue/simulation/what-if.js';
import { playWorkload } from '../../shared/merge-queue/simulation/workload.js';
import { medianFigures, playFigures, type PlayFigures } from './play-figures.js';

export const VERDICT_RATES = { load: 0.8, failureRate: 0.05, flakeRate: 0.03, infraFailureRate: 0.01 };
/** A held group waits for a person; a play stops after this many events rather than wait forever. */
const MAX_EVENTS = 20_000;

export interface VerdictFiguresOptions {
  pullRequests: number;
  seeds: readonly number[];
  ciDurations: readonly number[];
  /** Called with each row as it is measured (progress). */
  onRow?: (line: string) => void;
}

function configs(ciMinutes: number): { name: string; settings: FullSettings }[] {
  const base = { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS, flakyRetries: 1 };
  return [
    { name: `concurrency ${RUNNERS}, no batching`, settings: base },
    { name: `concurrency ${RUNNERS}, batches of 4`, settings: { ...base, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: ciMinutes / 4 } },
  ];
}

interface Result extends PlayFigures {
  /** Plays stopped with a group held (nobody there to restart or cancel it). */
  held: number;
}

interface Rules {
  notItsFaultRetries: number;
  checkInteractions: boolean;
}

async function measure(o: VerdictFiguresOptions, settings: FullSettings, ciMinutes: number, rules: Rules): Promise<Result> {
  const plays: PlayFigures[] = [];
  let held = 0;
  for (const seed of o.seeds) {
    const workload = {
      ...workloadOf({ ...VERDICT_RATES, ciMinutes }, o.pullRequests, seed),
      flakyTestResults: true,
      infraFailureRate: VERDICT_RATES.infraFailureRate,
    };
    const outcome = await playWorkload({ ...settings, ...rules }, workload, { maxEvents: MAX_EVENTS });
    if (!outcome.truncated) plays.push(playFigures(outcome, o.pullRequests));
    else if (outcome.entries.some((e) => e.lastReason === 'test_run_held_not_its_fault')) held++;
    else throw new Error(`seed ${seed} did not finish`);
  }
  return { ...medianFigures(plays), held };
}

/** The table's lines, header first. */
export async function verdictTable(o: VerdictFiguresOptions): Promise<string[]> {
  const lines = [
    '| CI (min) | queue | verdict rules | interaction check | innocent ejections / 100 PRs | CI runs / merged PR | time in queue p50 (min) | plays held |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const ci of o.ciDurations) {
    for (const c of configs(ci)) {
      // Without batches nothing is bisected, so the check has nothing to do.
      const checks = c.settings.batch ? [false, true] : [true];
      for (const retries of [0, 1]) {
        for (const checkInteractions of checks) {
          const r = await measure(o, c.settings, ci, { notItsFaultRetries: retries, checkInteractions });
          const rules = retries === 0 ? 'off (notItsFaultRetries 0)' : 'on (notItsFaultRetries 1)';
          const check = c.settings.batch ? (checkInteractions ? 'on' : 'off') : '—';
          lines.push(
            `| ${ci} | ${c.name} | ${rules} | ${check} | ${r.innocentPer100.toFixed(1)} | ${r.ciRunsPerMerged.toFixed(2)} | ${r.p50Minutes.toFixed(0)} | ${r.held} of ${o.seeds.length} |`,
          );
          o.onRow?.(lines.at(-1)!);
        }
      }
    }
  }
  return lines;
}
