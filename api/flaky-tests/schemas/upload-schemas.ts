// The `meta` part of POST /v1/flaky-tests/upload (docs/flaky-tests.md).
import Type, { type Static } from 'typebox';
import { branchSchema, dateTimeSchema, MAX_NAME, prNumberSchema, repoSchema, uint32 } from '../../validation/common.js';
import { orgSlugSchema } from './common-schemas.js';
import { compileValidator } from '../../validation/validator.js';

export const UploadMetaSchema = Type.Object(
  {
    repo: repoSchema,
    org_url_slug: orgSlugSchema,
    commit_sha: Type.String({ pattern: '^[0-9a-fA-F]{7,64}$' }),
    branch: branchSchema,
    pr_number: Type.Optional(Type.Union([prNumberSchema, Type.Null()])),
    variant: Type.Optional(Type.String({ maxLength: MAX_NAME })),
    job_name: Type.Optional(Type.String({ maxLength: MAX_NAME })),
    job_url: Type.Optional(Type.String({ maxLength: 2048 })),
    attempt: Type.Optional(uint32),
    started_at: Type.Optional(dateTimeSchema()),
  },
  { additionalProperties: false },
);
export type UploadMetaBody = Static<typeof UploadMetaSchema>;

export const parseUploadMeta = compileValidator(UploadMetaSchema);

/** `GET /v1/flaky-tests/upload-status?upload_id=…`: the state of an upload answered 202. */
export const UploadStatusQuerySchema = Type.Object({ upload_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const parseUploadStatusQuery = compileValidator(UploadStatusQuerySchema);
