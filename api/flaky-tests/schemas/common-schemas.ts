// Schema pieces shared by the flaky-tests endpoints.
import Type, { type Static } from 'typebox';
import { caseInsensitiveEnum, MAX_NAME } from '../../validation/common.js';

export const orgSlugSchema = Type.String({ minLength: 1, maxLength: MAX_NAME });

export const pageQuerySchema = Type.Object(
  {
    page_size: Type.Integer({ minimum: 1, maximum: 100 }),
    page_token: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);

export type PageQuery = Static<typeof pageQuerySchema>;

export const testIdSchema = Type.String({ format: 'uuid' });

export const actorSchema = Type.String({ minLength: 1, maxLength: 128 });
export const reasonSchema = Type.String({ minLength: 1, maxLength: 256 });

/** `FLAKY`/`BROKEN` on the wire, any letter case accepted, lowercased by the validator. */
export const classificationSchema = caseInsensitiveEnum(['flaky', 'broken'], 16);
