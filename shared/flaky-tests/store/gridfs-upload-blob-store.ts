// Upload blobs in GridFS (MongoDB): bucket `flaky_upload_blobs`, one file per blob named
// `<upload id>/<index>`. GridFS writes the file document after its last chunk, so a blob is
// never found half-written.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient } from 'mongodb';
import type { ByteSource } from '../formats/junit/index.js';
import { assertUploadId, type UploadBlobStore } from './upload-blob-store.js';

const BUCKET = 'flaky_upload_blobs';

export class GridFsUploadBlobStore implements UploadBlobStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly bucket: GridFSBucket,
  ) {}

  /** Opens its own client on the database of `url` (the one the repositories use). */
  static async open(url: string): Promise<GridFsUploadBlobStore> {
    const client = await MongoClient.connect(url);
    return new GridFsUploadBlobStore(client, new GridFSBucket(client.db(), { bucketName: BUCKET }));
  }

  private name(uploadId: string, index: number): string {
    assertUploadId(uploadId);
    return `${uploadId}/${index}`;
  }

  async put(uploadId: string, index: number, bytes: ByteSource): Promise<void> {
    const upload = this.bucket.openUploadStream(this.name(uploadId, index), { metadata: { uploadId } });
    try {
      await pipeline(Readable.from(bytes), upload);
    } catch (err) {
      // Chunks written before the failure go with it (delete removes chunks even without a file).
      await this.bucket.delete(upload.id).catch(() => undefined);
      throw err;
    }
  }

  async *get(uploadId: string, index: number): AsyncGenerator<Buffer, void, undefined> {
    // The newest file of that name: a retried put may have left an older complete one.
    yield* this.bucket.openDownloadStreamByName(this.name(uploadId, index), { revision: -1 }) as AsyncIterable<Buffer>;
  }

  async deleteUpload(uploadId: string): Promise<void> {
    assertUploadId(uploadId);
    for (const file of await this.bucket.find({ 'metadata.uploadId': uploadId }).toArray()) await this.bucket.delete(file._id);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
