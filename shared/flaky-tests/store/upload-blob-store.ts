// Raw upload bytes waiting for the flaky-ingest job: each report (or the CLI bundle) of an upload
// is one blob, numbered in arrival order. The API writes them before it enqueues the job; the
// worker reads them, and they are deleted once the upload is stored or refused. Two
// implementations: GridFS with MongoDB, files under DATA_DIR with the embedded database.
import type { ByteSource } from '../formats/junit/index.js';

export interface UploadBlobStore {
  /** Stores blob `index` of an upload; a blob written is complete (never seen half-written). */
  put(uploadId: string, index: number, bytes: ByteSource): Promise<void>;
  /** The bytes of a stored blob; fails when it does not exist. */
  get(uploadId: string, index: number): AsyncIterable<Buffer>;
  /** Deletes every blob of the upload (none is fine). */
  deleteUpload(uploadId: string): Promise<void>;
  close(): Promise<void>;
}

/** Upload ids are UUIDs: they are safe as file and GridFS names. */
export function assertUploadId(uploadId: string): void {
  if (!/^[0-9a-f-]{36}$/.test(uploadId)) throw new Error(`not an upload id: ${JSON.stringify(uploadId)}`);
}
