// One process per data directory: the embedded database keeps state in memory and only appends
// to its files, so a second writer would silently lose data. The lock file holds the owner's
// pid; a lock whose pid is no longer running (a crash, or a container restarted with the
// same pid) is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'LOCK';

/** Directories locked by this process, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export interface DataDirLock {
  readonly dir: string;
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const dir = realpathSync(dataDir);
  if (heldHere.has(dir)) {
    throw new Error(`data directory ${dir} is already open in this process (pid ${process.pid}); close the other embedded database first`);
  }
  const lockPath = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      heldHere.add(dir);
      return {
        dir,
        release: () => {
          heldHere.delete(dir);
          if (readOwner(lockPath) === process.pid) unlinkSync(lockPath);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(lockPath);
      if (owner !== null && owner !== process.pid && isRunning(owner)) {
        throw new Error(`data directory ${dir} is in use by process ${owner} (lock file ${lockPath}); stop that process or use another DATA_DIR`, {
          cause: err,
        });
      }
      // Stale: its owner is gone (or is this very process from before a restart with the same pid).
      try {
        unlinkSync(lockPath);
      } catch (unlinkErr) {
        if ((unlinkErr as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkErr;
      }
    }
  }
  throw new Error(`data directory ${dir}: another process took the lock file ${lockPath} while this one was starting`);
}
