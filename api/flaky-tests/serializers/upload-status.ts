// Answers of the upload endpoints when the work is not done within the wait bound (202) and of
// `GET /v1/flaky-tests/upload-status?upload_id=…` (schemas: ../schemas/).
import type { UploadStatus } from '../../../shared/flaky-tests/services/ingest-service.js';
import { serializeUploadResult } from './settings.js';

export const UPLOAD_STATUS_PATH = '/v1/flaky-tests/upload-status';

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
