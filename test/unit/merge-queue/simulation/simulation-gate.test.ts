// The gate in front of simulateQueue's replays: one at a time per process, a few waiting in
// arrival order, one per organisation, the rest refused with a time to retry.
import { expect } from 'chai';
import { AppError } from '../../../../shared/platform/errors.js';
import { SimulationGate } from '../../../../shared/merge-queue/simulation/simulation-gate.js';

/** Work that ends when the test says so. */
function held(): { work: () => Promise<string>; finish: (v: string) => void; fail: (e: Error) => void } {
  let finish!: (v: string) => void;
  let fail!: (e: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { work: () => done, finish, fail };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('simulation gate', () => {
  it('runs one replay at a time and the waiting ones in arrival order', async () => {
    const gate = new SimulationGate({ waiting: 2, firstRetryAfterSeconds: 30 });
    const [a, b, c] = [held(), held(), held()];
    const started: string[] = [];
    const track = (name: string, h: ReturnType<typeof held>) => () => (started.push(name), h.work());
    const ra = gate.run('org-a', track('a', a));
    const rb = gate.run('org-b', track('b', b));
    const rc = gate.run('org-c', track('c', c));
    await flush();
    expect(started).to.deep.equal(['a']);
    a.finish('A');
    expect(await ra).to.equal('A');
    await flush();
    expect(started).to.deep.equal(['a', 'b']);
    b.fail(new Error('replay failed'));
    expect(await rb.catch((err: Error) => err.message)).to.equal('replay failed');
    await flush();
    expect(started, 'a failed replay hands its turn on').to.deep.equal(['a', 'b', 'c']);
    c.finish('C');
    expect(await rc).to.equal('C');
  });

  it('refuses a second replay of the same organisation while its first runs or waits', async () => {
    const gate = new SimulationGate({ waiting: 2, firstRetryAfterSeconds: 30 });
    const [a, b] = [held(), held()];
    const ra = gate.run('org-a', a.work);
    const rb = gate.run('org-b', b.work);
    for (const org of ['org-a', 'org-b']) {
      const err = await refusal(gate.run(org, async () => 'never'));
      expect([err.kind, err.code, err.hints.retryAfterSeconds]).to.deep.equal(['rate_limited', 'simulation_in_progress', 30]);
    }
    a.finish('A');
    b.finish('B');
    expect(await Promise.all([ra, rb])).to.deep.equal(['A', 'B']);
    expect(await gate.run('org-a', async () => 'again'), 'free again once answered').to.equal('again');
  });

  it('refuses past its waiting places, with a retry time from the last replay it ran', async () => {
    const gate = new SimulationGate({ waiting: 1, firstRetryAfterSeconds: 30 });
    const first = await refusal(
      (async () => {
        const a = held();
        const ra = gate.run('org-a', a.work);
        const rb = gate.run('org-b', async () => 'B');
        try {
          return await gate.run('org-c', async () => 'C');
        } finally {
          a.finish('A');
          await Promise.all([ra, rb]);
        }
      })(),
    );
    expect([first.code, first.hints.retryAfterSeconds]).to.deep.equal(['simulation_busy', 60]);
    expect(first.message).to.match(/^2 simulations are running or waiting in this process; retry after 60 s$/);
    // The replays above took a moment each: the estimate follows them, rounded up to a second.
    const a = held();
    const ra = gate.run('org-a', a.work);
    const rb = gate.run('org-b', async () => 'B');
    const later = await refusal(gate.run('org-c', async () => 'C'));
    expect(later.hints.retryAfterSeconds).to.equal(1);
    a.finish('A');
    await Promise.all([ra, rb]);
  });
});
