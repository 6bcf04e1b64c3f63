// Chooses where upload blobs wait: GridFS beside the repositories when MongoDB is configured,
// files under DATA_DIR with the embedded database.
import path from 'node:path';
import { FileUploadBlobStore } from './file-upload-blob-store.js';
import { GridFsUploadBlobStore } from './gridfs-upload-blob-store.js';
import type { UploadBlobStore } from './upload-blob-store.js';

export async function openUploadBlobStore(opts: { mongoUrl: string | null; dataDir: string }): Promise<UploadBlobStore> {
  if (opts.mongoUrl) return GridFsUploadBlobStore.open(opts.mongoUrl);
  return new FileUploadBlobStore(path.join(opts.dataDir, 'flaky-uploads'));
}
