// Lanes from paths in the simulator (docs/lanes.md#how-much-they-help): a monorepo of four areas
// whose pull requests each change files of one area (a few change the CI configuration, a barrier), played
// through the production engine at one load as one line (single mode) and as lanes computed from
// the paths in `.trunk/trunk.yaml` (parallel mode, no impacted targets uploaded) — the same
// pull requests, the same CI, the same runners.
import { rng } from '../../platform/seeded-random.js';
import { RUNNERS, type Cell } from './efficiency-benchmark.js';
import { queueEfficiency, type QueueEfficiency } from './queue-efficiency.js';
import { playWorkload, type SimulatedSettings, type Workload } from './workload.js';

export const AREAS = ['api', 'web', 'mobile', 'infra'] as const;

export const MONOREPO_TRUNK_YAML = [
  'version: 0.1',
  'merge:',
  '  lanes:',
  '    areas:',
  ...AREAS.map((a) => `      - {name: ${a}, paths: ["${a}/**"]}`),
  '    barriers: ["ci/**"]',
  '',
].join('\n');

/** Poisson arrivals at `cell.load` of RUNNERS one-by-one runs; each pull request changes one area's files, `barrierShare` of them the CI configuration too. */
export function monorepoWorkload(cell: Cell, pullRequests: number, seed: number, barrierShare = 0.02): Workload {
  const random = rng(seed);
  const gap = cell.ciMinutes / (RUNNERS * cell.load);
  let t = 0;
  const prs = Array.from({ length: pullRequests }, (_, i) => {
    t += -Math.log(1 - random()) * gap;
    const area = AREAS[Math.floor(random() * AREAS.length)]!;
    const files = [`${area}/change-${i + 1}.txt`, ...(random() < barrierShare ? [`ci/pipeline-${i + 1}.yml`] : [])];
    return { arrivesAt: t, breaks: random() < cell.failureRate, files };
  });
  return { pullRequests: prs, ciMinutes: [cell.ciMinutes], flakeRate: cell.flakeRate, seed, repoFiles: { '.trunk/trunk.yaml': MONOREPO_TRUNK_YAML } };
}

export interface LanesComparison {
  oneLine: QueueEfficiency;
  lanes: QueueEfficiency;
}

/** The same workload as one line and as lanes from paths, each with RUNNERS runs at a time. */
export async function compareLanes(w: Workload, settings: SimulatedSettings = {}): Promise<LanesComparison> {
  const common = { concurrency: RUNNERS, bisectionConcurrency: RUNNERS, ...settings };
  const oneLine = queueEfficiency(await playWorkload({ ...common, mode: 'single' }, w));
  const lanes = queueEfficiency(await playWorkload({ ...common, mode: 'parallel' }, w));
  return { oneLine, lanes };
}
