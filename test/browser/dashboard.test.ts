// The dashboard in a real browser (Debian's Chromium through playwright-core), against the
// whole service with workers, a real git repository and real Redis. One journey, in order: the
// steps share one scenario because building it (merges, a failure, a flaky test) is the slow part.
// Any console error or uncaught page error fails the step it happened in.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';
import { accessibilityViolations, openDashboardBrowser, signIn, type DashboardBrowser } from '../../scripts/lib/browser.js';
import { PRS, STACK_PRS, startDashboardScenario, type DashboardScenario } from '../../scripts/lib/dashboard-scenario.js';

describe('dashboard in the browser', function () {
  this.timeout(60_000);
  let s: DashboardScenario;
  let b: DashboardBrowser;
  let page: Page;

  before(async function () {
    this.timeout(180_000);
    await ensureWebBuild({ quiet: true });
    s = await startDashboardScenario();
    b = await openDashboardBrowser();
    page = b.page;
  });
  after(async () => {
    await b?.close();
    await s?.close();
  });
  afterEach(() => {
    const errors = b.errors.splice(0);
    expect(errors, 'errors in the browser console').to.deep.equal([]);
    expect(b.foreignRequests.splice(0), 'requests to hosts other than this service').to.deep.equal([]);
  });

  const queueRow = (pr: number) => page.locator(`tr[data-pr="${pr}"]`);
  /** axe-core finds nothing wrong (WCAG A/AA: names, labels, landmarks, contrast…). */
  const expectAccessible = async (p: Page = page) => expect(await accessibilityViolations(p)).to.deep.equal([]);

  it('signs in with a token and lists the organisation’s queues with counts by state', async () => {
    await signIn(page, s.svc.url, s.svc.token);
    expect(new URL(page.url()).pathname).to.equal(`/${s.org}/merge-queue`);
    const row = page.getByRole('row', { name: /acme\/widgets → main/ });
    await row.waitFor();
    // not_ready, pending, testing, passed, failing
    expect(await row.locator('td.num').allTextContents()).to.deep.equal(['1', '1', '2', '0', '0']);
    await expectAccessible();
    // The token never appears in a URL.
    expect(page.url()).not.to.contain(s.svc.token);
  });

  it('opens a queue holding pull requests in several states, with why each waits', async () => {
    await page.getByRole('link', { name: /acme\/widgets → main/ }).click();
    await page.getByRole('heading', { name: 'In the queue' }).waitFor();
    await queueRow(PRS.testing).getByText('Testing').waitFor();
    expect(await queueRow(PRS.pending).textContent()).to.contain('Pending');
    expect(await queueRow(PRS.notReady).textContent()).to.contain('Not ready');
    const waiting = page.locator('ul.waiting');
    await waiting.getByText('its base branch is release, not main').waitFor();
    await waiting.getByText(/Waiting for a test slot: 2 of 2 in use/).waitFor();
    const recent = page.locator('ul.recent');
    for (const [state, pr] of [
      ['Merged', PRS.merged],
      ['Failed', PRS.failed],
      ['Cancelled', PRS.cancelled],
    ] as const) {
      expect(await recent.locator('li', { hasText: `#${pr} ` }).textContent()).to.contain(state);
    }
    // The groups being tested, each drawn on its predicted base: #4 on top of #3.
    await page.getByRole('link', { name: `#${PRS.testing} single · in progress` }).waitFor();
    await expectAccessible();
    await page.getByRole('link', { name: `#${PRS.testingOnTop} single · in progress` }).click();
    await page.getByRole('heading', { name: /^Test run / }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.getByRole('link', { name: `#${PRS.testing}`, exact: true }).waitFor();
    expect(await facts.textContent()).to.contain(`#${PRS.testingOnTop} Fix typo in the README`);
    await page.goBack();
    await page.getByRole('heading', { name: 'In the queue' }).waitFor();
  });

  it('draws a stack as one group: one node in the graph, one group in the list, and why its members wait', async () => {
    await page.goto(`${s.svc.url}/${s.org}/merge-queue`);
    await page.getByRole('link', { name: /acme\/gadgets → main/ }).click();
    await page.getByRole('heading', { name: 'In the queue' }).waitFor();
    // The stack is tested as one run, drawn as one node naming its members as a chain, on top of #1.
    const [bottom, middle, top] = STACK_PRS.stack;
    await page.getByRole('link', { name: `#${STACK_PRS.alone} single · in progress` }).waitFor();
    await page.getByRole('link', { name: `#${bottom} → #${middle} → #${top} stack of 3 · in progress` }).waitFor();
    // The list holds each stack's members as one group, in stack order, each with its place.
    const stack = page.getByRole('rowgroup', { name: `Stack #${bottom} → #${middle} → #${top}` });
    await stack.waitFor();
    expect(await stack.locator('tr[data-pr]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pr')))).to.deep.equal(STACK_PRS.stack.map(String));
    expect(await stack.locator(`tr[data-pr="${middle}"] th`).textContent()).to.match(/^2 of 3 · #3 Gadget client/);
    // A member waits for the member below it that cannot merge, and says so.
    const [conflicted, onConflicted] = STACK_PRS.conflicted;
    const waiting = page.locator('ul.waiting');
    await waiting
      .locator('li', { hasText: `#${onConflicted} ` })
      .getByText(`Waiting for #${conflicted} below it in its stack: the forge reports it cannot be merged`)
      .waitFor();
    await waiting
      .locator('li', { hasText: `#${conflicted} ` })
      .getByText('Not ready: the forge reports it cannot be merged')
      .waitFor();
    await expectAccessible();
    // Back to the first queue, where the journey goes on.
    await page.goto(`${s.svc.url}/${s.org}/merge-queue/queue?repo=github.com%2Facme%2Fwidgets&branch=main`);
    await page.getByRole('heading', { name: 'In the queue' }).waitFor();
  });

  it('follows a failed pull request to its timeline with every reason in words and its test run', async () => {
    await page
      .locator('ul.recent')
      .getByRole('link', { name: new RegExp(`#${PRS.failed} `) })
      .click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const timeline = page.locator('ol.timeline');
    await timeline.getByText('A required status failed on its test branch').waitFor();
    await timeline.getByText('Submitted to the queue through the API').waitFor();
    await timeline.getByText('A test run started on its predicted base').waitFor();
    const ciLink = page.locator('table').getByRole('link', { name: 'ci/test' });
    await ciLink.waitFor();
    expect(await ciLink.getAttribute('href')).to.equal(`https://ci.example/runs/${PRS.failed}-failure`);
    // The JUnit report CI uploaded for the run's test branch head is linked to the run.
    await page.getByTestId('test-results').getByText('2 test runs in 1 upload, 1 failed.').waitFor();
    // The verdict: nothing tells whose fault it is (main has no results for the commit the run
    // was built on), and the page says what would decide it.
    const verdict = page.getByTestId('verdict');
    await verdict.getByRole('heading', { name: 'Was it its fault? Not decided' }).waitFor();
    expect(await verdict.textContent()).to.contain('adds items to the cart failed, and neither main at');
    expect(await verdict.getByRole('row', { name: /adds items to the cart/ }).textContent()).to.equal('adds items to the cartnot known flakynot runnot run');
    await verdict.getByText(/^What would decide it: test results for main at [0-9a-f]{12}/).waitFor();
    await expectAccessible();
    await page.locator('section[aria-labelledby="runs"] table').getByRole('link').first().click();
    await page.getByRole('heading', { name: /^Test run / }).waitFor();
    expect(await page.locator('dl.facts').textContent()).to.contain(`#${PRS.failed} Refactor billing totals`);
    expect(await page.getByRole('row', { name: /ci\/test/ }).textContent()).to.contain('failure');
    const failedTest = page.getByTestId('test-results').getByRole('link', { name: 'checkout.CartTest › adds items to the cart' });
    await failedTest.waitFor();
    expect(await page.getByTestId('test-results').locator('.badge').first().textContent()).to.match(/^(healthy|flaky|broken|new)$/);
    await expectAccessible();
    await failedTest.click();
    await page.waitForURL(/\/flaky-tests\/test\//);
    await page.getByRole('heading', { name: /adds items to the cart/ }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: /^Test run / }).waitFor();
  });

  it('pauses and resumes the queue from its page', async () => {
    await page
      .getByRole('navigation', { name: 'Breadcrumb' })
      .getByRole('link', { name: /acme\/widgets/ })
      .click();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('queue-state').getByText('paused').waitFor();
    const stored = await s.svc.post<{ state: string }>('/getQueue', s.queueRef);
    expect(stored.body.state).to.equal('paused');
    await page.locator('ul.waiting').getByText('The queue is paused.').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByTestId('queue-state').getByText('running').waitFor();
    expect((await s.svc.post<{ state: string }>('/getQueue', s.queueRef)).body.state).to.equal('running');
  });

  it('shows a state change without a reload', async () => {
    // Browser-side code as strings: the test type-checks without the DOM library.
    await page.evaluate('window.notReloaded = true');
    await s.reportCi(PRS.testing, 'success');
    await s.waitState(PRS.testing, 'merged');
    await page
      .locator('ul.recent li', { hasText: `#${PRS.testing} ` })
      .getByText('Merged')
      .waitFor();
    await queueRow(PRS.pending).getByText('Testing').waitFor();
    expect(await page.evaluate('window.notReloaded === true')).to.equal(true);
  });

  it('warns, without a reload, when CI has not reported on a test branch, and clears once it does', async () => {
    const queue = (await s.svc.ctx.mergeQueue.store.queues.find(s.svc.orgId, s.queueRef.repo, s.queueRef.targetBranch))!;
    const run = (await s.svc.ctx.mergeQueue.store.testRuns.listOpen(queue.id)).find((r) => r.status === 'in_progress' && r.sha)!;
    // The stall watchdog's delayed look, as its job runs it once statusWaitMinutes have passed.
    expect(await s.svc.ctx.mergeQueue.services.statusWatch.check(run.id, new Date(Date.now() + 16 * 60_000))).to.deep.equal(['ci/test']);
    const alert = page.getByTestId('queue-warnings');
    await alert.getByText('Test runs are waiting for CI').waitFor();
    await alert.getByText(/no report of required status "ci\/test"/).waitFor();
    await expectAccessible();
    expect((await s.svc.post('/setCommitStatus', { repo: s.queueRef.repo, sha: run.sha, context: 'ci/test', state: 'pending' })).status).to.equal(200);
    await alert.waitFor({ state: 'detached' });
  });

  it('says, without a reload, when the target branch is broken, and clears once it is green', async () => {
    const queues = s.svc.ctx.mergeQueue.store.queues;
    // What the engine records from CI's results for the head (compare-and-set: the engine may write meanwhile).
    const record = async (broken: boolean) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const queue = (await queues.find(s.svc.orgId, s.queueRef.repo, s.queueRef.targetBranch))!;
        const head = queue.observedTargetSha ?? 'f'.repeat(40);
        const next = broken ? { sha: head, tests: [{ id: 't1', name: 'checkout_total' }], since: new Date() } : null;
        if (await queues.recordTargetHealth(queue.id, queue.version, next, head)) return head;
      }
      throw new Error('the queue kept changing while recording its target health');
    };
    const head = await record(true);
    const alert = page.getByTestId('queue-warnings');
    await alert.getByRole('heading', { name: 'The target branch is broken' }).waitFor();
    await alert.getByText(`main is broken at ${head.slice(0, 12)}, where tests fail without any queued change (checkout_total)`, { exact: false }).waitFor();
    await expectAccessible();
    await record(false);
    await alert.waitFor({ state: 'detached' });
  });

  it('draws the health charts with data', async () => {
    await page.getByRole('link', { name: 'Queue health charts' }).click();
    await page.getByRole('heading', { name: 'Queue health' }).waitFor();
    await page.getByTestId('merged-total').getByText('2').waitFor();
    // Both merged alone in single mode: the forge was checked to produce each tested tree.
    await page.getByTestId('tested-trees').getByText('2 of 2 (100 %)').waitFor();
    const canvases = page.locator('figure canvas');
    expect(await canvases.count()).to.equal(5);
    // Every chart painted something: a canvas with no opaque pixel is an empty chart.
    const painted = (await page.evaluate(`[...document.querySelectorAll('figure canvas')].map((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let opaque = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) opaque++;
      return opaque;
    })`)) as number[];
    expect(painted).to.have.length(5);
    for (const n of painted) expect(n).to.be.greaterThan(500);
    expect(await page.getByRole('table').textContent()).to.contain('A required status failed on its test branch');
    await expectAccessible();
  });

  it('edits the queue settings from its page', async () => {
    await page
      .getByRole('link', { name: /acme\/widgets → main/ })
      .first()
      .click();
    await page.getByText('Settings', { exact: true }).click();
    await page.getByLabel('Test runs at a time').fill('3');
    await page.getByLabel(/^Required statuses/).fill('ci/test, lint');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const stored = (await s.svc.post<{ concurrency: number; requiredStatuses: string[] }>('/getQueue', s.queueRef)).body;
    expect(stored).to.deep.include({ concurrency: 3, requiredStatuses: ['ci/test', 'lint'] });
    await page.getByText('Mode: single, 3 at a time').waitFor();
    await expectAccessible();
  });

  it('sets merge windows from the queue page, shows what holds it now and next with the forecast, and removes them', async () => {
    await page.getByText('Edit merge windows', { exact: true }).click();
    await page.getByLabel(/^Time zone/).fill('Europe/Berlin');
    await page.getByLabel(/^Merge windows, one per line/).fill('someday 9-5');
    await page.getByRole('button', { name: 'Save merge windows' }).click();
    await page
      .getByRole('alert')
      .getByText(/^Window line 1 \("someday 9-5"\)/)
      .waitFor();
    await page.getByLabel(/^Merge windows, one per line/).fill('');
    // A freeze two to four hours from now, written in Berlin's local time.
    const local = (ms: number) => new Date(ms).toLocaleString('sv-SE', { timeZone: 'Europe/Berlin' }).slice(0, 16).replace(' ', 'T');
    const from = Date.now() + 2 * 3600_000;
    await page.getByRole('button', { name: 'Add a freeze' }).click();
    await page.getByLabel('Freeze name').fill('release');
    await page.getByLabel('Freeze from').fill(local(from));
    await page.getByLabel('Freeze to').fill(local(from + 2 * 3600_000));
    await page.getByLabel('Freeze reason').fill('cut 4.2');
    await page.getByLabel('Freeze paths').fill('services/api/**, .github/**');
    await page.getByLabel(/^Holidays, one per line/).fill('2026-12-25 Christmas');
    await page.getByLabel(/^Exception: priority value/).fill('0');
    await page.getByLabel(/^Exception: labels/).fill('hotfix, incident');
    await page.getByRole('button', { name: 'Save merge windows' }).click();
    await page.getByRole('form', { name: 'Merge windows' }).getByRole('status').getByText('Saved.').waitFor();
    const stored = (
      await s.svc.post<{
        schedule: { timeZone: string; freezes: { name: string; from: string; paths: string[] }[]; holidays: unknown[]; exceptPriorityAtMost: number };
      }>('/getQueue', s.queueRef)
    ).body.schedule;
    expect(stored).to.deep.include({
      timeZone: 'Europe/Berlin',
      holidays: [{ date: '2026-12-25', name: 'Christmas' }],
      exceptPriorityAtMost: 0,
      exceptLabels: ['hotfix', 'incident'],
    });
    expect(stored.freezes.map((f) => [f.name, f.from, f.paths])).to.deep.equal([['release', local(from), ['services/api/**', '.github/**']]]);
    const panel = page.getByTestId('merge-window');
    await panel.getByText(/^Now: open$/).waitFor();
    await panel.getByText(/^Next: Freeze “release” \(cut 4\.2\) for services\/api\/\*\*, \.github\/\*\*/).waitFor();
    await panel.getByRole('table').waitFor();
    expect(await panel.locator('tbody tr').count()).to.be.greaterThan(0);
    await expectAccessible();
    await page.getByRole('button', { name: 'Remove the schedule' }).click();
    await page.getByText('No schedule: the queue is always open.').waitFor();
    expect((await s.svc.post<{ schedule: unknown }>('/getQueue', s.queueRef)).body.schedule).to.equal(null);
  });

  it("shows the queue's objectives with each one's level and measure", async () => {
    const set = await s.svc.post('/updateQueue', {
      ...s.queueRef,
      objectives: [
        { metric: 'head_age', warning: 0, critical: 1_000_000, forMinutes: 0 },
        { metric: 'time_in_queue_p50', warning: 60, critical: 120 },
      ],
    });
    expect(set.status).to.equal(200);
    const queue = await s.svc.ctx.mergeQueue.store.queues.find(s.svc.orgId, s.queueRef.repo, s.queueRef.targetBranch);
    await s.svc.ctx.mergeQueue.services.objectives.evaluate(queue!);
    const head = page.locator('tr[data-objective="head_age"]');
    await head.locator('.badge').getByText('warning').waitFor();
    expect(await page.locator('tr[data-objective="time_in_queue_p50"] .badge').textContent()).to.equal('ok');
    await expectAccessible();
    expect((await s.svc.post('/updateQueue', { ...s.queueRef, objectives: [] })).status).to.equal(200);
    await page.getByText('No objectives: nothing pages anyone about this queue.').waitFor();
  });

  it('edits the objectives from the queue page: a level it cannot read, one the service refuses, then saved', async () => {
    await page.getByText('Edit objectives', { exact: true }).click();
    const form = page.getByRole('form', { name: 'Objectives' });
    await form.getByRole('checkbox', { name: 'Age of the head of the queue' }).check();
    await form.getByLabel('Age of the head of the queue: warning').fill('half an hour');
    await form.getByRole('button', { name: 'Save objectives' }).click();
    await form.getByRole('alert').getByText('Age of the head of the queue: the warning level must be a number').waitFor();
    await form.getByLabel('Age of the head of the queue: warning').fill('30');
    await form.getByLabel('Age of the head of the queue: critical').fill('10');
    await form.getByRole('button', { name: 'Save objectives' }).click();
    await form
      .getByRole('alert')
      .getByText(/^the objectives cannot be used: .*critical/)
      .waitFor();
    // The refused request is the one error the browser reports.
    expect(b.errors.splice(0)).to.deep.equal(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await form.getByLabel('Age of the head of the queue: critical').fill('90');
    await form.getByLabel('Age of the head of the queue: hold').fill('5');
    await form.getByRole('button', { name: 'Save objectives' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const stored = (await s.svc.post<{ objectives: unknown[] }>('/getQueue', s.queueRef)).body.objectives;
    expect(stored).to.deep.equal([{ metric: 'head_age', warning: 30, critical: 90, windowHours: 24, forMinutes: 5 }]);
    await page.locator('tr[data-objective="head_age"]').waitFor();
    await expectAccessible();
    await form.getByRole('checkbox', { name: 'Age of the head of the queue' }).uncheck();
    await form.getByRole('button', { name: 'Save objectives' }).click();
    await page.getByText('No objectives: nothing pages anyone about this queue.').waitFor();
  });

  it('makes a v2 API key with chosen permissions, shows it once, and revokes it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('deploy bot');
    await page.getByLabel('Merge and cancel PRs').check();
    await page.getByLabel('Set priority on PRs').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    const key = (await shown.locator('code').textContent()) ?? '';
    expect(key).to.match(/^omq_v2_/);
    const row = page.locator('tr[data-key="deploy bot"]');
    expect(await row.locator('td').first().textContent()).to.equal('Merge and cancel PRs, Set priority on PRs');
    await expectAccessible();
    const v2 = () => fetch(`${s.svc.url}/v2/merge-queues`, { headers: { authorization: `Bearer ${key}` } });
    expect((await v2()).status).to.equal(200);
    await row.getByRole('button', { name: 'Revoke deploy bot' }).click();
    await row.getByText('revoked').waitFor();
    expect((await v2()).status).to.equal(401);
  });

  it('shows a read token the queue and the quarantine override without the controls an admin has', async () => {
    const created = await s.svc.post<{ token: string }>('/createToken', { name: 'dashboard viewer', role: 'read' });
    expect(created.status).to.equal(200);
    const fresh = await b.newContext();
    const viewer = await fresh.newPage();
    const errors: string[] = [];
    viewer.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await signIn(viewer, s.svc.url, created.body.token);
      await viewer
        .getByRole('link', { name: /acme\/widgets → main/ })
        .first()
        .click();
      await viewer.getByTestId('queue-state').waitFor();
      await viewer.getByText('An admin can pause, drain or resume the queue.').waitFor();
      for (const name of ['Pause', 'Drain', 'Resume']) expect(await viewer.getByRole('button', { name }).count(), name).to.equal(0);
      await viewer.getByText('Settings', { exact: true }).click();
      await viewer.getByTestId('settings-summary').getByText('An admin can change these.').waitFor();
      expect(await viewer.getByRole('button', { name: 'Save settings' }).count()).to.equal(0);
      await expectAccessible(viewer);
      await viewer.goto(s.flakyTestUrl);
      await viewer.getByTestId('override').waitFor();
      await viewer.getByText('An admin can set the quarantine override.').waitFor();
      expect(await viewer.getByRole('button', { name: 'Set override' }).count()).to.equal(0);
    } finally {
      await fresh.close();
    }
    expect(errors).to.deep.equal([]);
    // The admin's page (signed in since the first step) has them.
    await page.goto(`${s.svc.url}/${s.org}/merge-queue/queue?repo=github.com%2Facme%2Fwidgets&branch=main`);
    await page.getByRole('group', { name: 'Queue state' }).waitFor();
  });

  it('shows a newcomer what to do, and nothing of another organisation', async () => {
    const newcomer = await s.svc.addOrg('newcomers');
    const fresh = await b.newContext();
    const other = await fresh.newPage();
    const errors: string[] = [];
    other.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await signIn(other, s.svc.url, newcomer.token);
      await other.getByRole('heading', { name: 'No merge queue yet' }).waitFor();
      expect(await other.locator('section.empty pre').textContent()).to.contain('/v1/createQueue');
      await expectAccessible(other);
      // A link into the first organisation shows none of its data.
      await other.goto(`${s.svc.url}/${s.org}/merge-queue/queue?repo=github.com%2Facme%2Fwidgets&branch=main`);
      await other.getByRole('heading', { name: 'Another organisation' }).waitFor();
      expect(await other.locator('main').textContent()).not.to.contain('Speed up the search index');
    } finally {
      await fresh.close();
    }
    expect(errors).to.deep.equal([]);
  });

  it('opens a flaky test from the html_url the API hands out, after signing in', async () => {
    const fresh = await b.newContext();
    const other = await fresh.newPage();
    const errors: string[] = [];
    other.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await other.goto(s.flakyTestUrl);
      await other.getByLabel('API token').waitFor();
      await expectAccessible(other);
      // By keyboard: type the token and press Enter.
      await other.getByLabel('API token').fill(s.svc.token);
      await other.getByLabel('API token').press('Enter');
      await other.getByRole('heading', { name: 'adds items to the cart' }).waitFor();
      expect(other.url()).to.equal(s.flakyTestUrl);
      await other.getByTestId('test-status').getByText('flaky').waitFor();
      expect(await other.locator('dl.facts').textContent()).to.contain('@acme/payments');
      await other.getByText('expected 3 items, got 2').first().waitFor();
      expect(await other.locator('#run-history ~ .chart canvas').count()).to.equal(1);
      await expectAccessible(other);

      // Its list, filtered by search and owner.
      await other.getByRole('link', { name: 'Flaky tests of acme/widgets' }).click();
      const listed = other.getByRole('link', { name: 'adds items to the cart' });
      await listed.waitFor();
      await expectAccessible(other);
      await other.getByLabel('Owner', { exact: true }).fill('@acme/payments');
      await listed.waitFor();
      await other.getByLabel('Search', { exact: true }).fill('no such test');
      await other.getByText('No test in this list matches the filters.').waitFor();
    } finally {
      await fresh.close();
    }
    expect(errors).to.deep.equal([]);
  });

  it('serves the API reference with nothing from other hosts, under a policy that refuses framing', async () => {
    const answer = await page.goto(`${s.svc.url}/v1/docs`);
    const csp = answer?.headers()['content-security-policy'] ?? '';
    expect(csp).to.include("frame-ancestors 'none'").and.include("font-src 'self'").and.include("connect-src 'self'");
    expect(answer?.headers()['x-content-type-options']).to.equal('nosniff');
    // Scalar renders the description: the operations of this service appear.
    await page.getByText('submitPullRequest', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.getByText('Submit a pull request to the queue').first().waitFor();
    // The same page shows the v2 contract this service serves.
    await page.getByRole('link', { name: 'v2 merge-queue API' }).click();
    await page.getByText('/v2/merge-queues/{id}/order', { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole('link', { name: 'v2 merge-queue API' }).getAttribute('aria-current')).to.equal('page');
    // afterEach checks that no request went elsewhere (fonts, proxy) and the console stayed clean.
    await page.goto(`${s.svc.url}/${s.org}/merge-queue`);
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
  });

  it('sends the dashboard with a strict policy: scripts and styles of this origin only, never framed', async () => {
    const answer = await page.goto(`${s.svc.url}/${s.org}/merge-queue`);
    const headers = answer?.headers() ?? {};
    expect(headers['content-security-policy']).to.include("script-src 'self'").and.include("style-src 'self'").and.include("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.to.include('unsafe');
    expect(headers['x-content-type-options']).to.equal('nosniff');
    expect(headers['referrer-policy']).to.equal('same-origin');
    expect(headers['x-frame-options']).to.equal('DENY');
    await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
  });

  it('signs out: the token is forgotten and pages ask to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);
    await page.goto(`${s.svc.url}/${s.org}/merge-queue`);
    await page.getByLabel('API token').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
  });

  it('never follows a `next` that leaves the dashboard (`//host`, `/\\host`, control characters) after sign-in', async () => {
    for (const next of ['//elsewhere.example/x', '/\\elsewhere.example/x', '/\r\nLocation:x', `/${s.org}/merge-queue\u0000`]) {
      await page.goto(`${s.svc.url}/sign-in?next=${encodeURIComponent(next)}`);
      await page.getByLabel('API token').fill(s.svc.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
      expect(new URL(page.url()).origin, next).to.equal(new URL(s.svc.url).origin);
      expect(new URL(page.url()).pathname, next).to.equal(`/${s.org}/merge-queue`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API token').waitFor();
    }
  });
});
