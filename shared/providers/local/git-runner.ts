// Runs one git command without a shell, in a controlled environment, with bounded output and
// time. Every behaviour the queue relies on must come from the repository and these settings,
// never from the host's or the user's git configuration, hence the scrubbed environment.
import { spawn } from 'node:child_process';

export interface GitIdentity {
  name: string;
  email: string;
}

export interface GitRunOptions {
  /** The bare repository; omitted only for commands that create one (`git init`). */
  gitDir?: string;
  /** Written to the command's standard input, which is closed afterwards. */
  input?: string | Buffer;
  /** Extra variables (author identity and dates, a temporary index). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for "conflicts" or "not an ancestor"). */
  okExitCodes?: readonly number[];
  /** Standard output beyond this many bytes aborts the command. */
  maxOutputBytes?: number;
  timeoutMs?: number;
}

export interface GitResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;
/** Only this much of stderr is kept for error messages. */
const MAX_STDERR_BYTES = 64 * 1024;

/** A git command that failed; carries what ran and what git said, for logs and the job's error. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    reason?: string,
  ) {
    super(`git ${args.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${reason ?? (stderr.trim() || 'no message')}`);
    this.name = 'GitCommandError';
  }
}

/**
 * What git may see of the service's environment: where programs and temporary files are, who the
 * user is, and how to reach a remote through a proxy with the system's certificates. Nothing else:
 * the service's own variables hold secrets (GITHUB_APP_PRIVATE_KEY, API_TOKEN, MONGO_URL…), and a
 * GIT_* variable leaked from a hook (GIT_DIR, GIT_INDEX_FILE) would redirect writes.
 */
export const GIT_INHERITED_VARIABLES = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'USER',
  'LOGNAME',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

/** The environment git runs in: the inherited variables, plus settings that make behaviour independent of the machine. */
export function gitEnvironment(extra: Record<string, string> = {}, gitDir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of GIT_INHERITED_VARIABLES) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, {
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    // Paths we pass are file names, never patterns.
    GIT_LITERAL_PATHSPECS: '1',
    // `refs/replace` would let a ref silently substitute the commits we merge.
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
    ...(gitDir ? { GIT_DIR: gitDir } : {}),
    ...extra,
  });
  return env;
}

export function runGit(args: readonly string[], opts: GitRunOptions = {}): Promise<GitResult> {
  const maxOut = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const okCodes = opts.okExitCodes ?? [];
  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn('git', [...args], {
      env: gitEnvironment(opts.env, opts.gitDir),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: string | null = null;

    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOut) {
        if (!failure) failure = `output exceeded ${maxOut} bytes`;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < MAX_STDERR_BYTES) err += chunk.toString('utf8');
    });
    // A command that exits before reading its input makes the write fail with EPIPE; the exit code tells the story.
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => reject(new GitCommandError(args, null, err, `could not run git: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (failure) return reject(new GitCommandError(args, code, err, failure));
      if (code === null) return reject(new GitCommandError(args, null, err, `killed by ${signal ?? 'a signal'} (timeout?)`));
      if (code !== 0 && !okCodes.includes(code)) return reject(new GitCommandError(args, code, err));
      resolve({ exitCode: code, stdout: Buffer.concat(out), stderr: err });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Standard output as text without the final newline: the usual case of a one-line answer. */
export async function gitText(args: readonly string[], opts: GitRunOptions = {}): Promise<string> {
  const { stdout } = await runGit(args, opts);
  return stdout.toString('utf8').replace(/\n$/, '');
}

/** Author and committer variables for commit-tree. */
export function identityEnv(role: 'AUTHOR' | 'COMMITTER', who: GitIdentity, date?: string): Record<string, string> {
  return {
    [`GIT_${role}_NAME`]: who.name,
    [`GIT_${role}_EMAIL`]: who.email,
    ...(date ? { [`GIT_${role}_DATE`]: date } : {}),
  };
}
