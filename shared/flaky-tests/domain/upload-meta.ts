// An upload's metadata as it is kept, whichever way it arrived (the native `meta` part or a
// bundle's meta.json): the commit sha lower-cased, the variant normalised (it is part of every
// test id), a pull request number only when positive, the branch at most 256 characters.
import type { UploadMeta } from './model.js';
import { normalizeVariant } from './test-identity.js';

export const MAX_BRANCH_LENGTH = 256;

export function normalizeUploadMeta(meta: UploadMeta): UploadMeta {
  return {
    ...meta,
    sha: meta.sha.trim().toLowerCase(),
    branch: meta.branch.slice(0, MAX_BRANCH_LENGTH),
    prNumber: meta.prNumber !== null && meta.prNumber > 0 ? meta.prNumber : null,
    variant: normalizeVariant(meta.variant),
  };
}
