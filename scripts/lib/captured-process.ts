// A node process whose output is kept for reading (tests and scripts that start the service's
// commands and wait for what they print), with its exit status as a promise.
import { spawn, type ChildProcess } from 'node:child_process';

export interface CapturedProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Both streams, in arrival order. */
  output(): string;
  /** The exit status; 128 when a signal ended it. */
  exited: Promise<number>;
}

/** Runs `node <args>` in `cwd` with exactly `env` (nothing of this process's environment leaks in). */
export function spawnNode(args: readonly string[], opts: { cwd: string; env: Record<string, string> }): CapturedProcess {
  let out = '';
  let err = '';
  let both = '';
  const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env });
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    both += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    both += d.toString();
  });
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))));
  return { child, stdout: () => out, stderr: () => err, output: () => both, exited };
}
