// Requests and 200 answers of the administration endpoints: tokens and the audit trail.
import Type, { type Static, type TSchema } from 'typebox';
import { ROLES } from '../../../shared/platform/accounts/roles.js';
import { MERGE_QUEUE_PERMISSIONS } from '../../../shared/platform/accounts/permissions.js';
import { AUDIT_ACTIONS } from '../../../shared/platform/audit/audit-log.js';
import { caseInsensitiveEnum, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const oneOf = (values: readonly string[], description?: string) => Type.Enum([...values], { type: 'string', ...(description ? { description } : {}) });
const dateTime = Type.String({ format: 'date-time' });

export const CreateTokenSchema = closed({
  name: Type.String({ minLength: 1, maxLength: MAX_NAME }),
  role: caseInsensitiveEnum(ROLES, 16),
});
export type CreateTokenBody = Static<typeof CreateTokenSchema>;
export const parseCreateToken = compileValidator(CreateTokenSchema);

export const TokenIdSchema = closed({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const parseTokenId = compileValidator(TokenIdSchema);

export const EmptyRequestSchema = closed({});
export const parseEmptyRequest = compileValidator(EmptyRequestSchema);

export const ListAuditEventsSchema = closed({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  /** The `id` of the last event of the previous page. */
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  action: Type.Optional(caseInsensitiveEnum(AUDIT_ACTIONS, 64)),
});
export const parseListAuditEvents = compileValidator(ListAuditEventsSchema);

const TokenView = closed({
  id: Type.String(),
  name: Type.String(),
  role: oneOf(ROLES),
  owner: Type.Union([Type.String(), Type.Null()], { description: "A personal token's person, by name; null for the organisation's tokens" }),
  createdAt: dateTime,
  expiresAt: Type.Union([dateTime, Type.Null()], { description: 'Past this the token authenticates nothing; null: never' }),
  revokedAt: Type.Union([dateTime, Type.Null()]),
});

export const TokenResponse = closed({ ...TokenView.properties, token: Type.String({ description: 'The token itself, shown only in this answer' }) });
export const ListTokensResponse = closed({ tokens: Type.Array(TokenView) });

export const ListAuditEventsResponse = closed({
  events: Type.Array(
    closed({
      id: Type.String(),
      at: dateTime,
      actor: closed({
        kind: oneOf(
          ['token', 'api_key', 'person', 'forge_user', 'operator'],
          'a token, a v2 API key, a person signed in to the dashboard, a person on the forge (a comment or a label), or an operator tool',
        ),
        tokenId: Type.Union([Type.String(), Type.Null()]),
        name: Type.String(),
      }),
      action: oneOf(AUDIT_ACTIONS),
      target: Type.String(),
      detail: Type.Object({}, { additionalProperties: true }),
    }),
  ),
  /** Pass as `before` for the next page; absent on the last page. */
  nextBefore: Type.Optional(Type.String()),
});

export const CreateApiKeySchema = closed({
  name: Type.String({ minLength: 1, maxLength: MAX_NAME }),
  permissions: Type.Array(oneOf(MERGE_QUEUE_PERMISSIONS), {
    maxItems: MERGE_QUEUE_PERMISSIONS.length,
    uniqueItems: true,
    description: 'The merge-queue permissions the key holds; none: it reads and changes nothing (docs/api-v2.md#keys)',
  }),
});
export const parseCreateApiKey = compileValidator(CreateApiKeySchema);

const ApiKeyView = closed({
  id: Type.String(),
  name: Type.String(),
  permissions: Type.Array(oneOf(MERGE_QUEUE_PERMISSIONS)),
  createdAt: dateTime,
  revokedAt: Type.Union([dateTime, Type.Null()]),
});
export const ApiKeyResponse = closed({ ...ApiKeyView.properties, key: Type.String({ description: 'The key itself, shown only in this answer' }) });
export const ListApiKeysResponse = closed({ keys: Type.Array(ApiKeyView) });
