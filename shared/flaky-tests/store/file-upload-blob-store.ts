// Upload blobs as files (embedded database): DATA_DIR/flaky-uploads/<upload id>/<index>. A blob is
// written to a temporary name, fsynced and renamed, and the directory fsynced: after a crash a
// blob either exists whole or not at all.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteSource } from '../formats/junit/index.js';
import { assertUploadId, type UploadBlobStore } from './upload-blob-store.js';

async function fsyncPath(p: string): Promise<void> {
  const handle = await open(p, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class FileUploadBlobStore implements UploadBlobStore {
  constructor(private readonly root: string) {}

  private dir(uploadId: string): string {
    assertUploadId(uploadId);
    return path.join(this.root, uploadId);
  }

  async put(uploadId: string, index: number, bytes: ByteSource): Promise<void> {
    const dir = this.dir(uploadId);
    await mkdir(dir, { recursive: true });
    const final = path.join(dir, String(index));
    const temp = path.join(dir, `.${index}.${randomUUID()}.tmp`);
    try {
      await pipeline(Readable.from(bytes), createWriteStream(temp, { flags: 'wx' }));
      await fsyncPath(temp);
      await rename(temp, final);
      await fsyncPath(dir);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async *get(uploadId: string, index: number): AsyncGenerator<Buffer, void, undefined> {
    yield* createReadStream(path.join(this.dir(uploadId), String(index))) as AsyncIterable<Buffer>;
  }

  async deleteUpload(uploadId: string): Promise<void> {
    await rm(this.dir(uploadId), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}
