// Schema pieces shared by the flaky-tests endpoints.
import { MAX_NAME } from '../../validation/common.js';

export const orgSlugSchema = { type: 'string', minLength: 1, maxLength: MAX_NAME } as const;

export const pageQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['page_size'],
  properties: {
    page_size: { type: 'integer', minimum: 1, maximum: 100 },
    page_token: { type: 'string', maxLength: 2048 },
  },
} as const;

export interface PageQuery {
  page_size: number;
  page_token?: string;
}

export const testIdSchema = { type: 'string', format: 'uuid' } as const;

export const actorSchema = { type: 'string', minLength: 1, maxLength: 128 } as const;
export const reasonSchema = { type: 'string', minLength: 1, maxLength: 256 } as const;
