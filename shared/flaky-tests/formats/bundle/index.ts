// The hosted CLI's bundle: zstd stream, meta.json schema, tar entries.
export * from './bundle-error.js';
export * from './zstd-stream.js';
export * from './bundle-meta-schema.js';
export * from './open-bundle.js';
