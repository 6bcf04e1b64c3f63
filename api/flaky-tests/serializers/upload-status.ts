// Answers of the upload endpoints when the work is not done within the wait bound (202) and of
// `GET /v1/flaky-tests/upload-status?upload_id=…`, with the TypeBox schemas that validate the
// query and describe the answer (the API description is generated from them).
import Type from 'typebox';
import type { UploadStatus } from '../../../shared/flaky-tests/services/ingest-service.js';
import { compileValidator } from '../../validation/validator.js';
import { UploadResultResponse } from '../schemas/response-schemas.js';
import { serializeUploadResult } from './settings.js';

export const UPLOAD_STATUS_PATH = '/v1/flaky-tests/upload-status';

export const UploadStatusQuerySchema = Type.Object({ upload_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const parseUploadStatusQuery = compileValidator(UploadStatusQuerySchema);

export const UploadStatusResponse = Type.Object(
  {
    upload_id: Type.String({ format: 'uuid' }),
    state: Type.Union([Type.Literal('queued'), Type.Literal('processing'), Type.Literal('complete'), Type.Literal('failed')]),
    result: Type.Union([UploadResultResponse, Type.Null()]),
    error: Type.Union([
      Type.Object(
        {
          code: Type.String(),
          message: Type.String(),
          details: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);

export function statusUrlOf(baseUrl: string, uploadId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${UPLOAD_STATUS_PATH}?upload_id=${uploadId}`;
}

export function serializeAccepted(uploadId: string, baseUrl: string) {
  return { upload_id: uploadId, status_url: statusUrlOf(baseUrl, uploadId) };
}

export function serializeUploadStatus(s: UploadStatus) {
  return {
    upload_id: s.uploadId,
    state: s.state,
    result: s.result ? serializeUploadResult(s.result) : null,
    error: s.refusal ? { code: s.refusal.code, message: s.refusal.message, details: s.refusal.details } : null,
  };
}
