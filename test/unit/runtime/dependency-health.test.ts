import { expect } from 'chai';
import { DependencyHealth } from '../../../shared/platform/runtime/dependency-health.js';

describe('dependency health', () => {
  let now = 0;
  let redisUp = true;
  const health = (): DependencyHealth =>
    new DependencyHealth(
      {
        mongodb: async () => undefined,
        redis: async () => {
          if (!redisUp) throw new Error('connect ECONNREFUSED');
        },
      },
      { lostAfterMs: 60_000, checkTimeoutMs: 50, now: () => now },
    );

  beforeEach(() => {
    now = 1_000_000;
    redisUp = true;
  });

  it('reports what every check says now', async () => {
    const h = health();
    redisUp = false;
    expect(await h.check()).to.deep.equal([
      { name: 'mongodb', ok: true, detail: 'ok' },
      { name: 'redis', ok: false, detail: 'unavailable: connect ECONNREFUSED' },
    ]);
  });

  it('loses a dependency only once it has been unreachable for the whole bound, counted from the first failed check', async () => {
    const h = health();
    redisUp = false;
    await h.check();
    now += 59_000;
    await h.check();
    expect(h.lost()).to.deep.equal([]);
    now += 1_000;
    expect(h.lost()).to.deep.equal([{ name: 'redis', ok: false, detail: 'unreachable for 60 s: unavailable: connect ECONNREFUSED' }]);
  });

  it('forgets the outage when the dependency answers again', async () => {
    const h = health();
    redisUp = false;
    await h.check();
    now += 120_000;
    expect(h.lost().map((d) => d.name)).to.deep.equal(['redis']);
    redisUp = true;
    await h.check();
    expect(h.lost()).to.deep.equal([]);
    redisUp = false;
    await h.check();
    now += 30_000;
    expect(h.lost()).to.deep.equal([]);
  });

  it('counts a check that does not answer in time as a failure', async () => {
    const h = new DependencyHealth({ redis: () => new Promise<void>(() => undefined) }, { lostAfterMs: 0, checkTimeoutMs: 20, now: () => now });
    expect(await h.check()).to.deep.equal([{ name: 'redis', ok: false, detail: 'unavailable: no answer within 20 ms' }]);
    expect(h.lost().map((d) => d.name)).to.deep.equal(['redis']);
  });
});
