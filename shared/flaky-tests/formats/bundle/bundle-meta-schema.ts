// The bundle's `meta.json` (BundleMeta, flattened; notes §2.2): the shapes this service reads are
// checked by a JSON Schema compiled by ajv; every other field passes through untouched.
import { Ajv } from 'ajv';
import { BundleError } from './bundle-error.js';

export interface BundleRepo {
  repo?: { host?: string; owner?: string; name?: string };
  repo_root?: string;
  repo_url?: string;
  repo_head_sha?: string;
  repo_head_sha_short?: string;
  repo_head_branch?: string;
  repo_head_commit_epoch?: number;
  repo_head_commit_message?: string;
  repo_head_author_name?: string;
  repo_head_author_email?: string;
  use_uncloned_repo?: boolean;
  [key: string]: unknown;
}

export interface BundledFileMeta {
  original_path?: string;
  original_path_rel?: string | null;
  path?: string;
  owners?: string[];
  team?: string | null;
  [key: string]: unknown;
}

export interface BundleFileSet {
  file_set_type?: string;
  files?: BundledFileMeta[];
  glob?: string;
  resolved_status?: unknown;
  [key: string]: unknown;
}

/** `meta.json` (BundleMeta, flattened; notes §2.2). Only the fields we read are typed. */
export interface BundleMeta {
  version?: string;
  cli_version?: string;
  org?: string;
  repo?: BundleRepo;
  bundle_upload_id?: string;
  bundle_upload_id_v2?: string;
  tags?: { key: string; value: string }[];
  file_sets?: BundleFileSet[];
  envs?: Record<string, string>;
  upload_time_epoch?: number;
  test_command?: string | null;
  quarantined_tests?: unknown[];
  failed_tests?: unknown[];
  codeowners?: unknown;
  num_files?: number;
  num_tests?: number;
  variant?: string | null;
  [key: string]: unknown;
}

const optionalString = { type: ['string', 'null'] } as const;

const BUNDLE_META_SCHEMA = {
  type: 'object',
  properties: {
    version: optionalString,
    cli_version: optionalString,
    org: optionalString,
    bundle_upload_id: optionalString,
    bundle_upload_id_v2: optionalString,
    variant: optionalString,
    repo: { type: 'object' },
    envs: { type: 'object' },
    file_sets: {
      type: 'array',
      items: { type: 'object', properties: { files: { type: 'array', items: { type: 'object' } } } },
    },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: true }).compile<BundleMeta>(BUNDLE_META_SCHEMA);

/** Checks the shapes we rely on; other fields pass through untouched. */
export function validateBundleMeta(value: unknown): BundleMeta {
  if (validate(value)) return value;
  const [first] = validate.errors ?? [];
  const where = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'meta.json';
  throw new BundleError('invalid-meta', `meta.json: ${where} ${first?.message ?? 'is invalid'}`);
}
