// simulateQueue's replay threads: the same outcomes as playing here, errors carried back, and a
// pool that can be closed mid-work; SIMULATION_THREADS as the configuration reads it.
import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../../../shared/composition/config.js';
import { PlayPool } from '../../../../shared/merge-queue/simulation/play-pool.js';
import type { QueueHistory } from '../../../../shared/merge-queue/simulation/queue-history.js';
import { adviseSettings } from '../../../../shared/merge-queue/simulation/settings-advice.js';
import { DEFAULT_SETTINGS, IN_THREAD, type FullSettings } from '../../../../shared/merge-queue/simulation/what-if.js';
import { configRefusal } from '../../../helpers/config-refusal.js';
import { rejectionOf } from '../../../helpers/rejection.js';

const history: QueueHistory = {
  from: new Date('2026-11-01T00:00:00Z'),
  to: new Date('2026-11-02T00:00:00Z'),
  workload: {
    pullRequests: Array.from({ length: 60 }, (_, i) => ({ arrivesAt: i * 3, breaks: i % 12 === 7 })),
    ciMinutes: [10, 12, 15],
    flakeRate: 0.03,
    seed: 11,
  },
  pullRequestsSeen: 60,
  sampled: false,
  notes: [],
};

const SETTINGS: FullSettings[] = [
  DEFAULT_SETTINGS,
  { ...DEFAULT_SETTINGS, concurrency: 4, bisectionConcurrency: 4 },
  { ...DEFAULT_SETTINGS, concurrency: 2, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 3 },
];

describe('simulation: replay threads', function () {
  this.timeout(120_000);
  let pool: PlayPool | null = null;
  afterEach(async () => {
    await pool?.close();
    pool = null;
  });

  it('plays settings side by side with the outcomes of playing them one after another here, in order', async () => {
    pool = new PlayPool(2);
    const threaded = await pool.playAll(history, SETTINGS);
    expect(threaded.map((o) => o.settings)).to.deep.equal(SETTINGS);
    expect(threaded).to.deep.equal(await IN_THREAD.playAll(history, SETTINGS));
    expect(threaded[1]!.efficiency.merged).to.be.greaterThan(0);
  });

  it('advises the same settings with the same numbers through the threads as here', async () => {
    pool = new PlayPool(2);
    const goal = { kind: 'lowest_ci_cost' as const, maxP50Minutes: 40 };
    const threaded = await adviseSettings(history, DEFAULT_SETTINGS, goal, { replayer: pool });
    expect(threaded.tried.length).to.be.greaterThan(SETTINGS.length);
    expect(threaded).to.deep.equal(await adviseSettings(history, DEFAULT_SETTINGS, goal));
  });

  it('carries a play’s error back and plays on', async () => {
    pool = new PlayPool(1);
    const broken = { ...history, workload: { ...history.workload, pullRequests: null } } as unknown as QueueHistory;
    const err = await rejectionOf(pool.playAll(broken, [DEFAULT_SETTINGS]));
    expect(err.message).to.match(/null/);
    expect((await pool.playAll(history, [DEFAULT_SETTINGS]))[0]!.efficiency.merged).to.be.greaterThan(0);
  });

  it('ends a thread left idle and starts another for the next play', async () => {
    pool = new PlayPool(1, 50);
    const [first] = await pool.playAll(history, [DEFAULT_SETTINGS]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await pool.playAll(history, [DEFAULT_SETTINGS])).to.deep.equal([first]);
  });

  it('rejects the plays running and waiting when closed, and refuses more', async () => {
    pool = new PlayPool(1);
    const busy = pool.playAll(history, SETTINGS);
    const closing = pool.close();
    const err = await rejectionOf(busy);
    expect(err.message).to.match(/replay thread/);
    await closing;
    expect((await rejectionOf(pool.playAll(history, [DEFAULT_SETTINGS]))).message).to.equal('the replay threads were closed');
  });
});

describe('SIMULATION_THREADS', () => {
  it('defaults to the cores but one, at least one and at most four; 0 plays on the event loop', () => {
    expect(loadConfig({}).simulationThreads).to.equal(Math.min(4, Math.max(1, availableParallelism() - 1)));
    expect(loadConfig({ SIMULATION_THREADS: '0' }).simulationThreads).to.equal(0);
    expect(loadConfig({ SIMULATION_THREADS: '8' }).simulationThreads).to.equal(8);
  });

  it('refuses a value that is not a whole number from 0 to 64, naming the variable', () => {
    for (const bad of ['-1', '65', '2.5', 'many', '']) {
      expect(configRefusal({ SIMULATION_THREADS: bad }), bad).to.match(/^invalid configuration — SIMULATION_THREADS: must be a whole number between 0 and 64/);
    }
  });
});
