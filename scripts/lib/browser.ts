// Debian's Chromium driven by playwright-core (never a browser download): the browser tests and
// the dashboard screenshots use it. Missing Chromium is an error naming the package to install.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_MISSING_MESSAGE =
  'Chromium is needed for the browser tests and screenshots: install the Debian package `chromium` (apt-get install -y chromium) or set CHROMIUM_PATH.';

/** CHROMIUM_PATH when set (the one browser to use), else Debian's. */
export function chromiumPath(): string {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(CHROMIUM_MISSING_MESSAGE);
  return found;
}

export interface DashboardBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every console error and uncaught page error seen so far (a refusal by the page's CSP included). */
  errors: string[];
  /** Requests the pages made to any host but loopback (in any of its contexts): refused before they leave, and listed here. */
  foreignRequests: string[];
  /** Another context (a fresh profile) with the same guard against requests leaving the machine. */
  newContext(): Promise<BrowserContext>;
  /** A page in a fresh profile whose console errors and page errors go to `errors` (but those `ignore` matches). */
  freshPage(opts?: { ignore?: RegExp }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

export async function openDashboardBrowser(): Promise<DashboardBrowser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Nothing may leave this machine: a request to another host is aborted and recorded.
  const foreignRequests: string[] = [];
  const newContext = async (): Promise<BrowserContext> => {
    // A fresh context: its own empty profile (storage, cookies), thrown away with it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
    await context.route(
      (url) => !(url.protocol === 'data:' || url.protocol === 'blob:' || LOOPBACK_HOST.test(url.hostname)),
      (route) => {
        foreignRequests.push(route.request().url());
        return route.abort('blockedbyclient');
      },
    );
    return context;
  };
  const errors: string[] = [];
  const watch = (page: Page, ignore?: RegExp) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !ignore?.test(msg.text())) errors.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
  };
  const context = await newContext();
  const page = await context.newPage();
  watch(page);
  const freshPage = async (opts: { ignore?: RegExp } = {}) => {
    const fresh = await newContext();
    const freshOne = await fresh.newPage();
    watch(freshOne, opts.ignore);
    return { context: fresh, page: freshOne };
  };
  return {
    browser,
    context,
    page,
    errors,
    foreignRequests,
    newContext,
    freshPage,
    close: () => browser.close(),
  };
}

/** Signs in through the form, as a person does. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Merge queues' }).waitFor();
}

export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const axeSource = () => readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe-core finds wrong on the page as it is now (WCAG A and AA rules, best practices). */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  // Evaluated through the browser's debugging protocol, not added as a <script>: the dashboard's
  // Content-Security-Policy refuses inline scripts, as it should.
  await page.evaluate(axeSource());
  // A string, so this file type-checks without the DOM library.
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`)) as AccessibilityViolation[];
}
