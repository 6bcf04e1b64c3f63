// `openmq login` and `openmq logout`: a personal token for this machine, approved by the person
// in the dashboard (docs/cli.md). login listens on a loopback port, opens the dashboard's
// /cli-login page with a PKCE challenge, receives a one-time code on that port once the person
// approves, and exchanges it (with the verifier only this process holds) for the token, which it
// stores where credentials.ts says, readable by the user only.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { CliError, EXIT, exitCodeOfStatus } from '../cli-error.js';
import { ApiClient, plainHttpWarning } from '../api-client.js';
import { readCredential, writeCredential, type StoredCredential } from '../credentials.js';
import type { GlobalOptions } from '../command-context.js';

/** How long login waits for the person to approve in the browser. */
const APPROVAL_WAIT_MS = 5 * 60_000;
const ROLES = ['read', 'write', 'admin'] as const;

const serviceUrl = (command: Command): string => {
  const url = command.optsWithGlobals<GlobalOptions>().url ?? process.env.OPENMQ_URL;
  if (!url) throw new CliError(EXIT.usage, 'the service URL is required: --url or OPENMQ_URL (e.g. http://localhost:8080)');
  return url.replace(/\/+$/, '');
};

/** Opens the page in the person's browser; where none can be started, the printed link is the way. */
function openBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}

/** Waits on a loopback port for the dashboard to send the code back with our state. */
async function awaitCode(state: string): Promise<{ port: number; code: Promise<string>; close: () => void }> {
  let settle: { resolve: (code: string) => void; reject: (err: Error) => void } | null = null;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const given = url.searchParams.get('code');
    if (url.searchParams.get('state') !== state || !given) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('This is not the sign-in this openmq CLI began. Run `openmq login` again.');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('The openmq CLI is signed in. You can close this tab.');
    settle?.resolve(given);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(
    () => settle?.reject(new CliError(EXIT.failed, 'nobody approved the sign-in within 5 minutes; run `openmq login` again')),
    APPROVAL_WAIT_MS,
  );
  return {
    port: (server.address() as AddressInfo).port,
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
      server.closeAllConnections();
    },
  };
}

export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description('sign in as yourself: the dashboard gives this machine a personal token, stored for your user only')
    .option('--name <label>', 'what the token is called', `openmq CLI on ${hostname()}`)
    .option('--role <role>', `the token's role, at most yours (${ROLES.join(', ')}; default: yours)`)
    .option('--no-browser', 'print the link instead of opening a browser')
    .action(async (opts: { name: string; role?: string; browser: boolean }, command: Command) => {
      const url = serviceUrl(command);
      if (opts.role !== undefined && !(ROLES as readonly string[]).includes(opts.role))
        throw new CliError(EXIT.usage, `--role must be one of ${ROLES.join(', ')}`);
      const warning = plainHttpWarning(url);
      if (warning) process.stderr.write(`openmq: ${warning}\n`);
      const verifier = randomBytes(32).toString('base64url');
      const state = randomBytes(16).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const listener = await awaitCode(state);
      try {
        const page = new URL(`${url}/cli-login`);
        page.search = new URLSearchParams({
          port: String(listener.port),
          state,
          challenge,
          name: opts.name,
          ...(opts.role ? { role: opts.role } : {}),
        }).toString();
        process.stderr.write(`Approve this computer in the dashboard:\n  ${page.href}\n`);
        if (opts.browser) openBrowser(page.href);
        const code = await listener.code;
        const res = await fetch(`${url}/auth/cli/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'openmq-cli' },
          body: JSON.stringify({ code, verifier }),
          redirect: 'manual',
        });
        const body = (await res.json().catch(() => null)) as
          (Omit<StoredCredential, 'organization'> & { organization: { slug: string } }) | { error?: { message?: string } } | null;
        if (!res.ok || !body || !('token' in body)) {
          const message = body && 'error' in body ? body.error?.message : undefined;
          throw new CliError(exitCodeOfStatus(res.status), `the service refused the sign-in: ${message ?? `HTTP ${res.status}`}`);
        }
        const stored: StoredCredential = {
          id: body.id,
          token: body.token,
          name: body.name,
          role: body.role,
          organization: body.organization.slug,
          expiresAt: body.expiresAt,
        };
        const file = writeCredential(url, stored);
        process.stdout.write(
          `signed in to ${stored.organization} with the ${stored.role} role as "${stored.name}"${stored.expiresAt ? `, until ${stored.expiresAt}` : ''}; the token is in ${file}\n`,
        );
      } finally {
        listener.close();
      }
    });

  program
    .command('logout')
    .description('revoke the personal token `openmq login` stored for this service, and forget it')
    .action(async (_opts: unknown, command: Command) => {
      const url = serviceUrl(command);
      const stored = readCredential(url);
      if (!stored) {
        process.stdout.write(`not signed in to ${url}\n`);
        return;
      }
      // The token revokes itself; one the service no longer accepts (expired, revoked) is only forgotten.
      const revoked = await new ApiClient(url, stored.token).call('revokePersonalToken', { id: stored.id }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof CliError && err.exitCode === EXIT.notAllowed) return false;
          throw err;
        },
      );
      writeCredential(url, null);
      process.stdout.write(`signed out of ${url}${revoked ? '; the token is revoked' : ''}\n`);
    });
}
