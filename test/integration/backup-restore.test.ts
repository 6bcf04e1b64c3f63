// `npm run backup` while `npm start` serves, then `npm run restore` into a fresh data directory:
// the restored service has what the backup held (not what came after) and the queue carries on.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { spawnNode, type CapturedProcess } from '../../scripts/lib/captured-process.js';
import { apiClient, printedUrl, startServiceProcess } from '../../scripts/lib/service-process.js';
import { createPullRequest, createRepo, DEFAULT_REPO } from '../../scripts/lib/git-fixtures.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { gitText } from '../../shared/providers/local/git-runner.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TOKEN = 'backup-restore-test-token-0001';
const ref = { repo: DEFAULT_REPO, targetBranch: 'main' };
const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() });

const start = (dataDir: string) => startServiceProcess({ dataDir, token: TOKEN, env: { PROVIDER_POLL_SECONDS: '1' } });

async function script(command: 'backup' | 'restore', dir: string, dataDir: string): Promise<CapturedProcess> {
  const run = spawnNode(['--import', 'tsx', 'scripts/backup.ts', command, dir], { cwd: ROOT, env: { ...baseEnv(), DATA_DIR: dataDir } });
  await run.exited;
  return run;
}

describe('backup and restore of the embedded store', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'openmq-backup-restore-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('backs up a running service; the restored one holds the backup and carries on', async () => {
    const [live, backup, fresh] = ['live', 'backup', 'fresh'].map((d) => path.join(dir, d)) as [string, string, string];
    const fx = await createRepo(path.join(live, 'git'), { repo: DEFAULT_REPO });
    for (const n of [1, 2]) {
      await createPullRequest(fx, {
        number: n,
        commits: [{ message: `Change ${n}`, files: { [`pr-${n}.txt`]: `${n}\n` } }],
        metadata: { title: `Change ${n}`, base: 'main' },
      });
    }

    const first = start(live);
    try {
      const call = apiClient(await printedUrl(first), TOKEN);
      expect((await call('createQueue', ref)).status).to.equal(200);
      expect((await call('updateQueue', { ...ref, requiredStatuses: ['ci'] })).status).to.equal(200);
      expect((await call('submitPullRequest', { ...ref, pr: { number: 1 } })).status).to.equal(200);
      await waitFor('#1 testing', async () => (await call('getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).body.state === 'testing');

      const taken = await script('backup', backup, live);
      expect(taken.output(), 'backup').to.match(/^backed up \d+ collections of /);
      expect(await taken.exited).to.equal(0);
      // After the backup: not in it.
      expect((await call('submitPullRequest', { ...ref, pr: { number: 2 } })).status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).to.equal(0);
    }

    const restored = await script('restore', backup, fresh);
    expect(await restored.exited, restored.output()).to.equal(0);
    const again = await script('restore', backup, fresh);
    expect(await again.exited).to.equal(2);
    expect(again.stderr()).to.include('already holds a store');
    // The repositories are the local forge's, backed up with git's own tools; here, copied.
    cpSync(path.join(live, 'git'), path.join(fresh, 'git'), { recursive: true });

    const second = start(fresh);
    try {
      const call = apiClient(await printedUrl(second), TOKEN);
      expect((await call('getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).body.state).to.equal('testing');
      expect((await call('getSubmittedPullRequest', { ...ref, pr: { number: 2 } })).status).to.equal(404);
      const branches = (
        await gitText(['for-each-ref', '--format=%(objectname)', 'refs/heads/trunk-merge/'], {
          gitDir: path.join(fresh, 'git', 'github.com', 'acme', 'widgets.git'),
        })
      )
        .split('\n')
        .filter(Boolean);
      expect(branches).to.have.length(1);
      expect((await call('setCommitStatus', { repo: DEFAULT_REPO, sha: branches[0], context: 'ci', state: 'success' })).status).to.equal(200);
      await waitFor('#1 merged', async () => (await call('getSubmittedPullRequest', { ...ref, pr: { number: 1 } })).body.state === 'merged');
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).to.equal(0);
    }
  });

  it('points MongoDB users to mongodump', async () => {
    const run = spawnNode(['--import', 'tsx', 'scripts/backup.ts', 'backup', path.join(dir, 'x')], {
      cwd: ROOT,
      env: { ...baseEnv(), DATA_DIR: dir, MONGO_URL: 'mongodb://127.0.0.1:1/x' },
    });
    expect(await run.exited).to.equal(2);
    expect(run.stderr()).to.include('mongodump');
  });
});
