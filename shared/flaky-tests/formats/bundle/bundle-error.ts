// What can be wrong with a hosted-CLI bundle, as one error type with a code per cause.
export type BundleErrorCode =
  | 'not-zstd' // input does not start with a zstd frame
  | 'corrupt-zstd' // invalid or truncated zstd data
  | 'zstd-window-too-large' // a frame asks for more window memory than allowed
  | 'zstd-dictionary' // frames needing a dictionary are not supported
  | 'too-large' // compressed or decompressed size over the limit
  | 'too-slow' // decompression took longer than allowed
  | 'corrupt-tar'
  | 'missing-meta' // first entry is not meta.json
  | 'invalid-meta'
  | 'too-many-entries'
  | 'entry-too-large'
  | 'unsafe-path'; // absolute or `..` entry names

export class BundleError extends Error {
  constructor(
    readonly code: BundleErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BundleError';
  }
}
