// /healthz reflects a dependency that does not come back: the service runs against a Redis of
// its own, which is stopped; /readyz fails at once, /healthz only once Redis has been unreachable
// for DEPENDENCY_LOST_SECONDS, and both recover when Redis is back on the same port.
import { expect } from 'chai';
import { startRedis, type RedisServer } from '../../scripts/lib/redis-server.mjs';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { waitFor } from '../../scripts/lib/wait.js';

describe('dependency health', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let svc: TestService;

  before(async () => {
    redis = await startRedis();
    svc = await startTestService({ env: { REDIS_URL: redis.url, DEPENDENCY_LOST_SECONDS: '3', SHUTDOWN_GRACE_SECONDS: '5' } });
  });
  after(async () => {
    await svc.close();
    await redis.stop();
  });

  it('answers /healthz 503 naming Redis once it has been unreachable longer than the bound, and 200 again when it is back', async () => {
    expect((await svc.raw('GET', '/healthz')).status).to.equal(200);
    await redis.stop();

    const notReady = await waitFor('/readyz to fail', async () => {
      const r = await svc.raw('GET', '/readyz');
      return r.status === 503 ? r : undefined;
    });
    expect((notReady.body as { checks: Record<string, string> }).checks.redis).to.match(/^unavailable/);
    expect((await svc.raw('GET', '/healthz')).status, 'a blip is not a lost dependency').to.equal(200);

    const lost = await waitFor(
      '/healthz to fail',
      async () => {
        const r = await svc.raw('GET', '/healthz');
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const body = lost.body as { status: string; lost: Record<string, string> };
    expect(body.status).to.equal('dependency_lost');
    expect(Object.keys(body.lost)).to.deep.equal(['redis']);
    expect(body.lost.redis).to.match(/^unreachable for \d+ s: unavailable/);

    redis = await startRedis({ port: redis.port });
    await waitFor('/readyz to pass again', async () => (await svc.raw('GET', '/readyz')).status === 200, { timeoutMs: 20_000, intervalMs: 200 });
    await waitFor('/healthz to pass again', async () => (await svc.raw('GET', '/healthz')).status === 200);
  });
});
