// The headers GitHub sends with a delivery and the answer it gets (docs/github.md, Webhooks).
import Type from 'typebox';

export const GitHubDeliveryHeadersSchema = Type.Object({
  'x-hub-signature-256': Type.String({ pattern: '^sha256=[0-9a-f]{64}$', description: 'HMAC-SHA256 of the raw body with the webhook secret' }),
  'x-github-event': Type.String({ pattern: '^[a-z_]{1,64}$' }),
  'x-github-delivery': Type.String({ pattern: '^[0-9A-Za-z-]{1,100}$' }),
});

export const GitHubDeliveryResponse = Type.Object(
  { delivery: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate')]) },
  { additionalProperties: false },
);
