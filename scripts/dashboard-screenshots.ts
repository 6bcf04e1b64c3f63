// `npm run screenshots`: regenerates docs/dashboard/*.png, one per page of the dashboard, from
// the same scenario the browser tests use (a private redis-server unless REDIS_URL is set).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './lib/redis-server.mjs';
import { ensureWebBuild } from './lib/web-build.mjs';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'dashboard');

async function main(): Promise<void> {
  const redis = process.env.REDIS_URL ? null : await startRedis();
  if (redis) process.env.REDIS_URL = redis.url;
  // Imported after REDIS_URL is set: the scenario's service reads it.
  const { startDashboardScenario, PRS } = await import('./lib/dashboard-scenario.js');
  const { openDashboardBrowser, signIn } = await import('./lib/browser.js');
  await ensureWebBuild({ quiet: true });
  mkdirSync(out, { recursive: true });
  const s = await startDashboardScenario();
  const b = await openDashboardBrowser();
  try {
    const { page } = b;
    const shot = async (name: string, ready: () => Promise<unknown>) => {
      await ready();
      await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
      console.log(`docs/dashboard/${name}.png`);
    };
    await page.goto(`${s.svc.url}/sign-in`);
    await shot('sign-in', () => page.getByLabel('API token').waitFor());
    await signIn(page, s.svc.url, s.svc.token);
    await shot('queues', () => page.locator('td.spark canvas').waitFor());
    await page.getByRole('link', { name: /acme\/widgets → main/ }).click();
    await shot('queue', () => page.locator('ul.waiting').getByText('its base branch').waitFor());
    await page
      .locator('ul.recent')
      .getByRole('link', { name: new RegExp(`#${PRS.failed} `) })
      .click();
    await shot('pull-request', () => page.getByRole('link', { name: 'ci/test' }).waitFor());
    await page.locator('table').getByRole('link').first().click();
    await shot('test-run', () => page.getByRole('row', { name: /ci\/test/ }).waitFor());
    await page.goto(s.flakyTestUrl.replace(/\/test\/[^?]+/, ''));
    await shot('flaky-tests', () => page.getByRole('link', { name: 'adds items to the cart' }).waitFor());
    await page.goto(s.flakyTestUrl);
    await shot('flaky-test', () => page.getByTestId('override').waitFor());
    // The health page once the queue has moved on: #3 merges, #4 (on top of it) fails.
    await s.reportCi(PRS.testing, 'success');
    await s.waitState(PRS.testing, 'merged');
    await s.reportCi(PRS.testingOnTop, 'failure');
    await s.waitState(PRS.testingOnTop, 'failed');
    await page.goto(`${s.svc.url}/${s.org}/merge-queue/health?repo=github.com%2Facme%2Fwidgets&branch=main&window=6`);
    await shot('health', () => page.getByTestId('merged-total').getByText('2').waitFor());
    if (b.errors.length > 0) throw new Error(`errors in the browser console:\n${b.errors.join('\n')}`);
  } finally {
    await b.close();
    await s.close();
    await redis?.stop();
  }
}

await main();
