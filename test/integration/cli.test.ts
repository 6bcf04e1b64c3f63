// The `openmq` CLI as a process against a real service: every command, its --json output parsed,
// its table output, and the exit codes (0 done, 1 failed, 2 usage, 3 not found, 4 not allowed).
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { waitFor } from '../../scripts/lib/wait.js';
import { generateToken } from '../../shared/platform/accounts/token-repository.js';
import { makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { junit, REPO, sha, uploadOk } from './flaky-support.js';
import { LOOPBACK_RECEIVERS_ALLOWED, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { resolve, setRef } from '../../scripts/lib/git-fixtures.js';

const BIN = fileURLToPath(new URL('../../cli/bin/openmq.mjs', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A server on a loopback address that records the tokens it is sent and answers as told (default 404). */
async function startTokenRecorder(host: string, answer: (res: http.ServerResponse) => void = (res) => res.writeHead(404).end()) {
  const tokens: string[] = [];
  const server = http.createServer((req, res) => {
    const token = req.headers['x-api-token'];
    if (typeof token === 'string') tokens.push(token);
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    tokens,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function openmq(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('openmq CLI', function () {
  this.timeout(120_000);
  let svc: TestService;
  let q: PrQueue;
  let env: Record<string, string>;
  let repoArg: string;
  let receiver: WebhookReceiver;

  /** Runs a command that must succeed with --json; answers the parsed output. */
  async function ok<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const r = await openmq([...args, '--json'], env);
    expect(r.code, `openmq ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    expect(r.stderr).to.equal('');
    return JSON.parse(r.stdout) as T;
  }
  const queueArgs = () => ['--repo', repoArg, '--branch', 'main'];

  before(async () => {
    svc = await startTestService({ ...SERVICE_OPTIONS, env: { ...SERVICE_OPTIONS.env, ...LOOPBACK_RECEIVERS_ALLOWED } });
    q = await makeQueue(svc);
    repoArg = `${q.ref.repo.host}/${q.ref.repo.owner}/${q.ref.repo.name}`;
    // The commands on both APIs are checked on v1 here, and on v2 (the default) in their own test.
    env = { OPENMQ_URL: svc.url, OPENMQ_TOKEN: svc.token, OPENMQ_API: 'v1' };
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await svc.close();
  });

  it("submits the top of a stack, which queues the members below; status shows each member's place", async () => {
    await q.pr(31, { metadata: { title: 'Layer 1', base: 'main', headBranch: 'cli-stack-1' } });
    await q.pr(32, { base: 'refs/pull/31/head', metadata: { title: 'Layer 2', base: 'cli-stack-1', headBranch: 'cli-stack-2' } });
    expect(await ok('submit', '32', ...queueArgs())).to.deep.equal({});
    const human = await openmq(['status', '32', ...queueArgs()], env);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^stack:\s+2 of 2, on #31$/m);
    expect((await openmq(['status', '31', ...queueArgs()], env)).stdout).to.match(/^stack:\s+1 of 2, the bottom$/m);
    for (const n of ['32', '31']) expect(await ok('cancel', n, ...queueArgs())).to.deep.equal({});
  });

  it('status of a failed pull request gives the verdict on its failure, and what would decide an unknown one', async () => {
    await q.pr(41, { metadata: { title: 'Break it' } });
    expect(await ok('submit', '41', ...queueArgs())).to.deep.equal({});
    await q.ci(41, 'failure');
    await q.waitState(41, 'failed');
    const human = await openmq(['status', '41', ...queueArgs()], env);
    expect(human.code, human.stderr).to.equal(0);
    // This repository uploads no test results: nothing tells whose fault the failure is.
    expect(human.stdout).to.match(
      /^verdict: +unknown — a required status failed and the repository uploads no test results \(rule no_evidence\); would decide it: test results \(JUnit\) uploaded for the test branch, which would show which tests failed$/m,
    );
    const json = await ok<{ verdict: { kind: string; rule: string } }>('status', '41', ...queueArgs());
    expect(json.verdict).to.deep.include({ kind: 'unknown', rule: 'no_evidence' });
  });

  it('sets a schedule from a YAML file, shows it with the window now and next, forecasts, and clears it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openmq-cli-schedule-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const from = new Date(Date.now() + 2 * 3600_000).toISOString();
    const to = new Date(Date.now() + 3 * 3600_000).toISOString();
    const file = path.join(dir, 'schedule.yaml');
    writeFileSync(
      file,
      [
        'timeZone: Europe/Berlin',
        'holidays:',
        '  - {date: "2026-12-25", name: Christmas}',
        'freezes:',
        `  - {name: release, reason: cut 4.2, from: "${from}", to: "${to}"}`,
        `  - {name: api, from: "${from}", to: "${to}", paths: ["services/api/**"]}`,
        'exceptLabels: [hotfix]',
        '',
      ].join('\n'),
    );
    const set = await ok<{ schedule: { timeZone: string; freezes: { name: string }[] } }>('queue', 'schedule', 'set', '--file', file, ...queueArgs());
    expect([set.schedule.timeZone, set.schedule.freezes.map((f) => f.name)]).to.deep.equal(['Europe/Berlin', ['release', 'api']]);
    const shown = await openmq(['queue', 'schedule', ...queueArgs()], env);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.match(/^time zone: +Europe\/Berlin$/m);
    expect(shown.stdout).to.match(/^release +\S+ → \S+ +all +cut 4\.2$/m);
    expect(shown.stdout).to.match(/^api +\S+ → \S+ +services\/api\/\*\* +-$/m);
    expect(shown.stdout).to.match(/^exception labels: +hotfix$/m);
    expect(shown.stdout).to.match(/^now: +open$/m);
    expect(shown.stdout).to.contain(`next: freeze "release" (cut 4.2): ${from} → ${to}`);
    const forecast = await ok<{ closure: { name: string } }>('queue', 'forecast', ...queueArgs());
    expect(forecast.closure.name).to.equal('release');
    const human = await openmq(['queue', 'forecast', ...queueArgs()], env);
    expect(human.stdout).to.match(/^next: freeze "release"/m);
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'timeZone: Nowhere/Atlantis\n');
    const refused = await openmq(['queue', 'schedule', 'set', '--file', bad, ...queueArgs()], env);
    expect(refused.code).not.to.equal(0);
    expect(refused.stderr).to.contain('/schedule/timeZone');
    const cleared = await ok<{ schedule: unknown }>('queue', 'schedule', 'clear', ...queueArgs());
    expect(cleared.schedule).to.equal(null);
    expect((await openmq(['queue', 'schedule', ...queueArgs()], env)).stdout.trim()).to.equal('no schedule: the queue is always open');
  });

  it('sets the digest, shows what it would send now, and stops it', async () => {
    const set = await ok<{ digest: unknown }>('queue', 'digest', 'set', '--cadence', 'weekly', '--day', 'fri', '--time-zone', 'Europe/Berlin', ...queueArgs());
    expect(set.digest).to.deep.equal({ cadence: 'weekly', at: '09:00', day: 'fri', timeZone: 'Europe/Berlin' });
    const human = await openmq(['queue', 'digest', ...queueArgs()], env);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^period: +\S+ → \S+ \(weekly\)$/m);
    expect(human.stdout).to.match(/^merged: +\d+ \(time in queue p50/m);
    expect(human.stdout).to.contain('costliest flaky tests:');
    const refused = await openmq(['queue', 'digest', 'set', '--cadence', 'daily', '--time-zone', 'Nowhere/Atlantis', ...queueArgs()], env);
    expect(refused.code).not.to.equal(0);
    expect(refused.stderr).to.contain('/digest/timeZone');
    expect((await ok<{ digest: unknown }>('queue', 'digest', 'clear', ...queueArgs())).digest).to.equal(null);
    expect((await openmq(['queue', 'digest', ...queueArgs()], env)).stdout.trim()).to.equal(
      'no digest: set one with `openmq queue digest set --cadence daily`',
    );
  });

  it('verify exits 0 for a commit whose exact tree the queue tested, 1 for one it did not', async () => {
    await q.pr(45, { metadata: { title: 'Verified' } });
    expect(await ok('submit', '45', ...queueArgs())).to.deep.equal({});
    const run = await q.ci(45, 'success');
    await q.waitState(45, 'merged');
    const head = await resolve(q.fx, 'main');
    const tested = await openmq(['verify', head, '--repo', repoArg], env);
    expect(tested.code, tested.stderr).to.equal(0);
    expect(tested.stdout).to.match(/^tested: +yes$/m);
    expect(tested.stdout).to.match(new RegExp(`^test run: +${run.id} \\(tree [0-9a-f]{12}\\)$`, 'm'));
    expect(tested.stdout).to.match(/^required: +ci\/test: success$/m);
    const json = await ok<{ tested: boolean; prNumber: number }>('verify', head, '--repo', repoArg);
    expect(json).to.include({ tested: true, prNumber: 45 });
    const untested = await openmq(['verify', q.fx.initialSha, '--repo', repoArg], env);
    expect(untested.code).to.equal(1);
    expect(untested.stdout).to.match(/^tested: +no$/m);
    expect(untested.stdout).to.match(/^why: +the merge queue did not make this commit/m);
  });

  it('submits, shows status (with the timeline), restarts and cancels pull requests', async () => {
    await q.pr(1, { metadata: { title: 'Add one', author: 'alice' } });
    await q.pr(2);
    expect(await ok('submit', '1', ...queueArgs())).to.deep.equal({});
    expect(await ok('submit', '2', '--priority', 'low', '--no-batch', ...queueArgs())).to.deep.equal({});
    const two = await q.entry(2);
    expect(two).to.include({ priorityName: 'low', noBatch: true });
    await q.waitState(1, 'testing');

    const status = await ok<{ state: string; prNumber: number; position: number; timeline?: unknown }>('status', '1', ...queueArgs());
    expect(status).to.include({ state: 'testing', prNumber: 1, position: 1 });
    expect(status).not.to.have.property('timeline');
    const withTimeline = await ok<{ timeline: { state: string }[] }>('status', '1', '--timeline', ...queueArgs());
    expect(withTimeline.timeline[0]!.state).to.equal('testing');
    const human = await openmq(['status', '1', '--timeline', ...queueArgs()], env);
    expect(human.code).to.equal(0);
    expect(human.stdout).to.match(/^pull request: #1 Add one$/m);
    expect(human.stdout).to.match(/^state: +testing$/m);
    expect(human.stdout).to.match(/^position: +1$/m);
    expect(human.stdout).to.match(/^TIME +STATE +REASON +DETAIL$/m);

    expect(await ok('restart', '1', ...queueArgs())).to.deep.equal({});
    expect(await ok('cancel', '2', ...queueArgs())).to.deep.equal({});
    expect((await q.entry(2)).state).to.equal('cancelled');
    const cancelled = await openmq(['cancel', '2', ...queueArgs()], env);
    expect(cancelled.code).to.equal(1);
    expect(cancelled.stderr).to.match(/^openmq: cancelPullRequest failed — pr_not_active: /);
  });

  it('submits, restarts and cancels through the v2 API by default, with a key made by api-keys create', async () => {
    await q.pr(61);
    // Paused, #61 waits not ready: a restart has nothing to restart whichever tests ran before.
    await q.update({ state: 'paused' });
    const v2env = { OPENMQ_URL: svc.url, OPENMQ_TOKEN: svc.token };
    const created = await openmq(['api-keys', 'create', '--name', 'cli-merger', '--permission', 'merge_and_cancel', '--json'], v2env);
    expect(created.code, created.stderr).to.equal(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; permissions: string[] };
    expect(key.permissions).to.deep.equal(['merge_and_cancel']);
    const listed = await openmq(['api-keys', 'list'], v2env);
    expect(listed.stdout).to.match(new RegExp(`^${key.id} +active +\\S+ +cli-merger +merge_and_cancel$`, 'm'));

    const withKey = { OPENMQ_URL: svc.url, OPENMQ_TOKEN: key.key };
    const refused = await openmq(['submit', '61', '--priority', 'high', ...queueArgs()], withKey);
    expect(refused.code).to.equal(4);
    expect(refused.stderr).to.match(/^openmq: mergeQueues.submitPullRequest failed — INSUFFICIENT_PERMISSIONS: /);
    const submitted = await openmq(['submit', '61', ...queueArgs()], withKey);
    expect([submitted.code, submitted.stdout.trim()], submitted.stderr).to.deep.equal([0, 'submitted #61 (notReady)']);
    expect((await q.entry(61)).history[0]?.detail).to.contain('by API key cli-merger');
    const restart = await openmq(['restart', '61', ...queueArgs()], withKey);
    expect(restart.code).to.equal(1);
    expect(restart.stderr).to.match(/^openmq: pullRequests.restartTests failed — PR_TESTS_NOT_RESTARTABLE: pull request #61 is (not_ready|pending)/);
    expect((await openmq(['cancel', '61', ...queueArgs()], withKey)).stdout.trim()).to.equal('cancelled #61');
    expect((await q.entry(61)).state).to.equal('cancelled');
    const again = await openmq(['cancel', '61', ...queueArgs()], withKey);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^openmq: pullRequests.dequeue failed — PR_NOT_IN_ACTIVE_STATE: /);

    expect((await openmq(['api-keys', 'revoke', key.id], v2env)).code).to.equal(0);
    const revoked = await openmq(['submit', '61', ...queueArgs()], withKey);
    expect(revoked.code).to.equal(4);
    expect(revoked.stderr).to.contain('INVALID_TOKEN');
    const wrongApi = await openmq(['submit', '61', '--api', 'v3', ...queueArgs()], v2env);
    expect([wrongApi.code, wrongApi.stderr.trim()]).to.deep.equal([2, 'openmq: --api (OPENMQ_API) is v1 or v2, got "v3"']);
    await q.update({ state: 'running' });
  });

  it('simulates the queue on its history under candidate settings, and advises for a goal', async () => {
    const answer = await ok<{
      history: { pullRequests: number };
      current: { settings: { concurrency: number } };
      candidates: { settings: { concurrency: number; batch: boolean } }[];
      advice: { best: unknown } | null;
    }>('simulate', '--days', '7', '--candidate', 'concurrency=2,batch=true', '--goal', 'latency', ...queueArgs());
    expect(answer.history.pullRequests).to.be.a('number');
    expect(answer.candidates).to.have.length(1);
    expect(answer.candidates[0]!.settings).to.include({ concurrency: 2, batch: true });
    expect(answer.advice).to.be.an('object');
    const human = await openmq(['simulate', '--candidate', 'concurrency=2', ...queueArgs()], env);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^history: .* pull requests replayed/m);
    expect(human.stdout).to.match(/^SETTINGS +P50 MIN +P90 MIN/m);
    expect(human.stdout).to.match(/^candidate 1 /m);
    const noBound = await openmq(['simulate', '--goal', 'cost', ...queueArgs()], env);
    expect(noBound.code).to.equal(2);
    expect(noBound.stderr).to.include('--max-p50');
    const bounded = await ok<{ advice: { goal: unknown } }>('simulate', '--goal', 'cost', '--max-p50', '600', '--max-p95', '900', ...queueArgs());
    expect(bounded.advice.goal).to.deep.equal({ kind: 'lowest_ci_cost', maxP50Minutes: 600, maxP95Minutes: 900 });
    const badSetting = await openmq(['simulate', '--candidate', 'concurrency=0', ...queueArgs()], env);
    expect(badSetting.code).to.equal(2);
  });

  it('shows, creates, updates, pauses, resumes, drains and deletes queues', async () => {
    const shown = await ok<{ state: string; enqueuedPullRequests: unknown[] }>('queue', 'show', ...queueArgs());
    expect(shown.state).to.equal('running');
    const table = await openmq(['queue', 'show', ...queueArgs()], env);
    expect(table.stdout).to.match(/^branch: +main$/m);
    expect(table.stdout).to.match(/^# +PR +STATE +PRIORITY +TITLE$/m);

    await setRef(q.fx, 'refs/heads/release', q.fx.initialSha);
    expect(await ok('queue', 'create', '--repo', repoArg, '--branch', 'release', '--concurrency', '2')).to.deep.equal({});
    const updated = await ok<{ concurrency: number; batch: boolean }>(
      'queue',
      'update',
      '--repo',
      repoArg,
      '--branch',
      'release',
      '--set',
      'concurrency=3',
      '--set',
      'batch=true',
    );
    expect(updated).to.include({ concurrency: 3, batch: true });
    expect((await ok<{ state: string }>('queue', 'pause', '--repo', repoArg, '--branch', 'release')).state).to.equal('paused');
    expect((await ok<{ state: string }>('queue', 'resume', '--repo', repoArg, '--branch', 'release')).state).to.equal('running');
    expect((await ok<{ state: string }>('queue', 'drain', '--repo', repoArg, '--branch', 'release')).state).to.equal('draining');
    expect(await ok('queue', 'delete', '--repo', repoArg, '--branch', 'release')).to.deep.equal({});
    const gone = await openmq(['queue', 'show', '--repo', repoArg, '--branch', 'release'], env);
    expect(gone.code).to.equal(3);
    expect(gone.stderr).to.include('queue_not_found');
    const noSetting = await openmq(['queue', 'update', ...queueArgs()], env);
    expect(noSetting.code).to.equal(2);
  });

  it('lists failing, flaky, broken and quarantined tests', async () => {
    await uploadOk(svc, { branch: 'main', commit_sha: sha(1) }, [{ name: 'r.xml', data: junit({ a: 'f', b: 'p' }) }]);
    const repo = `${REPO.host}/${REPO.owner}/${REPO.name}`;
    const failing = await ok<{ tests: { name: string }[] }>('tests', 'failing', '--repo', repo, '--hours', '2');
    expect(failing.tests.map((t) => t.name)).to.deep.equal(['a']);
    const human = await openmq(['tests', 'failing', '--repo', repo], env);
    expect(human.stdout).to.match(/^NAME +STATUS +FAIL 24H +PRS 7D +QUARANTINED +ID$/m);
    for (const kind of ['flaky', 'broken']) expect(await ok('tests', kind, '--repo', repo)).to.have.property('tests');
    expect(await ok('tests', 'quarantined', '--repo', repo)).to.have.property('quarantined_tests');
    const otherOrg = await openmq(['tests', 'flaky', '--repo', repo, '--org', 'nope'], env);
    expect(otherOrg.code).to.equal(3);
  });

  it('takes the flaky-tests organisation from the token when --org is not given (an organisation not named default)', async () => {
    const acme = await svc.addOrg('acme-corp');
    const acmeEnv = { OPENMQ_URL: svc.url, OPENMQ_TOKEN: acme.token };
    await uploadOk(svc, { org_url_slug: 'acme-corp', branch: 'main', commit_sha: sha(9) }, [{ name: 'r.xml', data: junit({ z: 'f' }) }], { token: acme.token });
    const repo = `${REPO.host}/${REPO.owner}/${REPO.name}`;
    const run = await openmq(['tests', 'failing', '--repo', repo, '--json'], acmeEnv);
    expect(run.code, run.stderr).to.equal(0);
    expect((JSON.parse(run.stdout) as { tests: { name: string }[] }).tests.map((t) => t.name)).to.deep.equal(['z']);
    // OPENMQ_ORG or --org still choose: another organisation's slug is not found through this token.
    expect((await openmq(['tests', 'failing', '--repo', repo], { ...acmeEnv, OPENMQ_ORG: 'default' })).code).to.equal(3);
  });

  it('never sends the token to another origin: a redirect is reported, not followed', async () => {
    const elsewhere = await startTokenRecorder('127.0.0.2');
    const redirector = await startTokenRecorder('127.0.0.1', (res) => res.writeHead(307, { location: `${elsewhere.url}/v1/getQueue` }).end());
    try {
      const run = await openmq(['queue', 'show', ...queueArgs()], { OPENMQ_URL: redirector.url, OPENMQ_TOKEN: svc.token });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.include(`redirected getQueue (HTTP 307 to ${elsewhere.url}/v1/getQueue); the token was not sent on`);
      expect(redirector.tokens).to.deep.equal([svc.token]);
      expect(elsewhere.tokens).to.deep.equal([]);
      // An answer that is not the service's JSON is an error, never a crash.
      const html = await startTokenRecorder('127.0.0.1', (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'));
      try {
        const wrong = await openmq(['queue', 'show', ...queueArgs()], { OPENMQ_URL: html.url, OPENMQ_TOKEN: svc.token });
        expect(wrong.code).to.equal(1);
        expect(wrong.stderr).to.match(/^openmq: getQueue: the answer from .* is not openmq's/);
      } finally {
        await html.close();
      }
    } finally {
      await redirector.close();
      await elsewhere.close();
    }
  });

  it('manages webhook endpoints and their deliveries', async () => {
    const created = await ok<{ id: string; secret: string }>('webhooks', 'create', receiver.url, '--events', 'queue.state_changed', '--description', 'cli');
    expect(created.secret).to.match(/^whsec_/);
    expect((await ok<{ endpoints: { id: string }[] }>('webhooks', 'list')).endpoints.map((e) => e.id)).to.include(created.id);
    const updated = await ok<{ description: string }>('webhooks', 'update', created.id, '--description', 'changed');
    expect(updated.description).to.equal('changed');
    const rotated = await ok<{ secret: string }>('webhooks', 'rotate', created.id);
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(created.secret);

    await ok('queue', 'pause', ...queueArgs());
    await ok('queue', 'resume', ...queueArgs());
    const deliveries = await waitFor('two deliveries', async () => {
      const d = await ok<{ deliveries: { id: string; status: string }[] }>('webhooks', 'deliveries', created.id);
      return d.deliveries.length === 2 && d.deliveries.every((x) => x.status === 'delivered') && d.deliveries;
    });
    const redelivered = await ok<{ id: string }>('webhooks', 'redeliver', deliveries[0]!.id);
    expect(redelivered.id).to.equal(deliveries[0]!.id);
    await waitFor('the redelivery', async () => receiver.received.length >= 3);
    expect(await ok('webhooks', 'delete', created.id)).to.deep.equal({});
    const missing = await openmq(['webhooks', 'rotate', created.id], env);
    expect(missing.code).to.equal(3);
  });

  it('manages tokens and reads the audit trail; a read token is not allowed to change anything', async () => {
    const token = await ok<{ id: string; token: string; role: string }>('tokens', 'create', '--name', 'reader', '--role', 'read');
    expect(token.role).to.equal('read');
    const listed = await ok<{ tokens: { id: string; role: string }[] }>('tokens', 'list');
    expect(listed.tokens.find((t) => t.id === token.id)?.role).to.equal('read');

    const asReader = { ...env, OPENMQ_TOKEN: token.token };
    const refused = await openmq(['queue', 'pause', ...queueArgs()], asReader);
    expect(refused.code).to.equal(4);
    expect(refused.stderr).to.include('role_not_allowed');
    expect((await openmq(['queue', 'show', ...queueArgs(), '--json'], asReader)).code).to.equal(0);

    const audit = await ok<{ events: { action: string; target: string }[] }>('audit', '--action', 'token.created');
    expect(audit.events.map((e) => e.target)).to.include(token.id);
    const human = await openmq(['audit', '--limit', '3'], env);
    expect(human.stdout).to.match(/^AT +ACTOR +ACTION +TARGET +DETAIL$/m);
    expect(await ok('tokens', 'revoke', token.id)).to.deep.equal({});
    expect((await openmq(['queue', 'show', ...queueArgs()], asReader)).code).to.equal(4);
  });

  it('exits 2 on usage errors and 1 when the service cannot be reached, naming the cause on stderr', async () => {
    const noUrl = await openmq(['status', '1', ...queueArgs()], { OPENMQ_TOKEN: 'x' });
    expect(noUrl).to.include({ code: 2, stdout: '' });
    expect(noUrl.stderr).to.include('OPENMQ_URL');
    expect((await openmq(['status', 'one', ...queueArgs()], env)).code).to.equal(2);
    expect((await openmq(['status', '1', '--repo', 'acme/app'], env)).code).to.equal(2);
    expect((await openmq(['frobnicate'], env)).code).to.equal(2);
    expect((await openmq(['status', '1'], env)).code).to.equal(2);
    expect((await openmq(['--help'], env)).code).to.equal(0);
    expect((await openmq(['status', '999', ...queueArgs()], env)).code).to.equal(3);
    const down = await openmq(['status', '1', ...queueArgs()], { ...env, OPENMQ_URL: 'http://127.0.0.1:9' });
    expect(down.code).to.equal(1);
    expect(down.stderr).to.match(/^openmq: cannot reach openmq at http:\/\/127\.0\.0\.1:9: /);
    const flags = await openmq(['queue', 'show', ...queueArgs(), '--url', svc.url, '--token', generateToken(), '--json'], {});
    expect(flags.code).to.equal(4);
    expect(flags.stderr).to.include('invalid_token');
  });
});
