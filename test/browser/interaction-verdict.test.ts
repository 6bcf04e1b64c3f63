// The interaction verdict on the dashboard's pull request page, in a real browser (Debian's
// Chromium): a batch of three on real git where #1 and #3 each pass alone and fail together, so
// the interaction check ejects #3 naming #1; the page links the run of #3 alone and #1's page.
import { expect } from 'chai';
import { ensureWebBuild } from '../../scripts/lib/web-build.mjs';
import { accessibilityViolations, openDashboardBrowser, signIn, type DashboardBrowser } from '../../scripts/lib/browser.js';
import { Harness, repo } from '../e2e/engine-support.js';

describe('dashboard: the interaction verdict in the browser', function () {
  this.timeout(120_000);
  let h: Harness;
  let b: DashboardBrowser;

  before(async function () {
    await ensureWebBuild({ quiet: true });
    h = await Harness.start();
    await h.configure({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 60, optimizationMode: 'bisection_skip_redundant_tests' });
    h.runCi((files) => ('f1.txt' in files && 'f3.txt' in files ? 'failure' : 'success'));
    for (const n of [1, 2, 3]) await h.pr(n);
    for (const n of [1, 2, 3]) await h.submit(n);
    expect((await h.finals([1, 2, 3])).map((s) => s.state)).to.deep.equal(['merged', 'merged', 'failed']);
    b = await openDashboardBrowser();
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  it('names the pull request it fails with and links the run of it alone', async () => {
    const { page } = b;
    await signIn(page, h.svc.url, h.svc.token);
    const query = `repo=${encodeURIComponent(`${repo.host}/${repo.owner}/${repo.name}`)}&branch=main`;
    await page.goto(`${h.svc.url}/default/merge-queue/pull-request/3?${query}`);
    const verdict = page.getByTestId('verdict');
    await verdict.getByRole('heading', { name: 'Was it its fault? Not its fault alone: it fails only with another pull request' }).waitFor();
    const words = page.getByTestId('verdict-interaction');
    expect(await words.textContent()).to.match(
      /^It passed alone in test run [0-9a-f]{8} and fails together with #1: the two changes cannot land together as they are\.$/,
    );
    expect(await words.getByRole('link', { name: '#1' }).getAttribute('href')).to.equal(`/default/merge-queue/pull-request/1?${query}`);
    await words.getByRole('link', { name: /^test run / }).click();
    await page
      .getByRole('heading', { name: /Test run/ })
      .first()
      .waitFor();
    expect(page.url()).to.contain('/default/merge-queue/test-run/');
    expect(await accessibilityViolations(page)).to.deep.equal([]);
    expect(b.errors).to.deep.equal([]);
    expect(b.foreignRequests).to.deep.equal([]);
  });
});
