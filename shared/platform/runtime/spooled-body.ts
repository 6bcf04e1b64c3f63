// A request body read before its sender is known to be who it claims (a webhook checked by its
// signature): the first `memoryBytes` stay in memory, the rest goes to a temporary file, so a
// stranger's bodies cost a bounded amount of memory however large they are. `text()` reads the
// whole body once it is trusted; `discard()` removes the file in every case.
import { randomUUID } from 'node:crypto';
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class BodyTooLarge extends Error {}

export class SpooledBody {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private file: { path: string; handle: FileHandle } | null = null;
  private total = 0;

  constructor(
    private readonly limits: { memoryBytes: number; maxBytes: number },
    private readonly dir = tmpdir(),
  ) {}

  get size(): number {
    return this.total;
  }

  /** Bytes held in memory right now (never more than `memoryBytes`). */
  get inMemoryBytes(): number {
    return this.headBytes;
  }

  get spilled(): boolean {
    return this.file !== null;
  }

  async append(chunk: Buffer): Promise<void> {
    this.total += chunk.length;
    if (this.total > this.limits.maxBytes) throw new BodyTooLarge(`the body is larger than ${this.limits.maxBytes} bytes`);
    if (!this.file && this.headBytes + chunk.length <= this.limits.memoryBytes) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      return;
    }
    if (!this.file) {
      const file = path.join(this.dir, `openmq-body-${randomUUID()}`);
      this.file = { path: file, handle: await open(file, 'wx', 0o600) };
      // What was held so far goes first; memory is freed.
      await this.file.handle.write(Buffer.concat(this.head));
      this.head.length = 0;
      this.headBytes = 0;
    }
    await this.file.handle.write(chunk);
  }

  async text(): Promise<string> {
    if (!this.file) return Buffer.concat(this.head).toString('utf8');
    await this.file.handle.sync();
    return readFile(this.file.path, 'utf8');
  }

  async discard(): Promise<void> {
    this.head.length = 0;
    this.headBytes = 0;
    if (!this.file) return;
    const { handle, path: file } = this.file;
    this.file = null;
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
  }
}
