// Check runs of test branch heads as getMergeQueueTestingDetails lists them: stored one row per
// check run with its latest state (deliveries arrive in any order), and shown with the wire
// contract's upper-case values.
import { expect } from 'chai';
import { openDatabase } from '../../shared/platform/database/open-database.js';
import type { Database } from '../../shared/platform/database/collection.js';
import { ensureIndexes } from '../../shared/platform/database/ensure-indexes.js';
import { createGitHubStore } from '../../shared/github/store/github-store.js';
import type { CheckRunRepository } from '../../shared/github/store/check-run-repository.js';
import { serializeCheckRun } from '../../api/merge-queue/serializers/testing-details.js';

const REPO = 'github.com/acme/widgets';
const SHA = 'a'.repeat(40);
const T0 = new Date('2026-11-23T12:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

describe('GitHub check runs of test branch heads', () => {
  let db: Database;
  let runs: CheckRunRepository;

  beforeEach(async () => {
    db = await openDatabase({});
    const store = createGitHubStore(db);
    await ensureIndexes(store);
    runs = store.checkRuns;
  });
  afterEach(async () => {
    await db.close();
  });

  it('keeps one row per check run with its latest state; a late delivery of an earlier state does not move it back', async () => {
    const lint = { checkRunId: 7, suiteId: 70, name: 'lint', url: 'https://github.com/acme/widgets/runs/7' };
    await runs.record(REPO, SHA, { ...lint, status: 'queued', conclusion: null }, at(0));
    await runs.record(REPO, SHA, { checkRunId: 8, suiteId: 70, name: 'test', url: 'u8', status: 'in_progress', conclusion: null }, at(1));
    await runs.record(REPO, SHA, { ...lint, status: 'completed', conclusion: 'failure' }, at(2));
    await runs.record(REPO, SHA, { ...lint, status: 'in_progress', conclusion: null }, at(3));
    const rows = await runs.forCommit(REPO, SHA);
    expect(rows.map((r) => [r.name, r.status, r.conclusion])).to.deep.equal([
      ['lint', 'completed', 'failure'],
      ['test', 'in_progress', null],
    ]);
    expect(rows[0]?.firstSeenAt.toISOString(), 'listed in the order first seen').to.equal(at(0).toISOString());
    expect(await runs.forCommit(REPO, 'b'.repeat(40))).to.deep.equal([]);
  });

  it('shows status and conclusion as the contract has them; a conclusion only once completed', () => {
    const run = { name: 'x', url: 'u' };
    expect(serializeCheckRun({ ...run, status: 'queued', conclusion: null })).to.deep.equal({ ...run, status: 'QUEUED' });
    expect(serializeCheckRun({ ...run, status: 'waiting', conclusion: null }), 'other waiting statuses').to.deep.equal({ ...run, status: 'QUEUED' });
    expect(serializeCheckRun({ ...run, status: 'in_progress', conclusion: 'success' })).to.deep.equal({ ...run, status: 'IN_PROGRESS' });
    expect(serializeCheckRun({ ...run, status: 'completed', conclusion: 'timed_out' })).to.deep.equal({ ...run, status: 'COMPLETED', conclusion: 'TIMED_OUT' });
    expect(serializeCheckRun({ ...run, status: 'completed', conclusion: 'startup_failure' }), 'not in the contract').to.deep.equal({
      ...run,
      status: 'COMPLETED',
      conclusion: 'FAILURE',
    });
  });
});
