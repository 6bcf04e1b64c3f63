// Debian's Chromium driven by playwright-core (never a browser download): the browser tests and
// the dashboard screenshots use it. Missing Chromium is an error naming the package to install.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_MISSING_MESSAGE =
  'Chromium is needed for the browser tests and screenshots: install the Debian package `chromium` (apt-get install -y chromium) or set CHROMIUM_PATH.';

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(CHROMIUM_MISSING_MESSAGE);
  return found;
}

export interface DashboardBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every console error and uncaught page error seen so far. */
  errors: string[];
  close(): Promise<void>;
}

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
  // A fresh context: its own empty profile (storage, cookies), thrown away with it.
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
  return {
    browser,
    context,
    page,
    errors,
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
