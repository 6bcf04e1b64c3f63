// Requests and 200 answers of the webhook endpoint API (docs/webhooks.md).
import Type, { type TSchema } from 'typebox';
import { EVENT_TYPES } from '../../../shared/composition/event-types.js';
import { ENDPOINT_KINDS } from '../../../shared/platform/events/store/webhook-endpoint-repository.js';
import { DELIVERY_STATUSES } from '../../../shared/platform/events/store/webhook-delivery-repository.js';
import { caseInsensitiveEnum } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const oneOf = (values: readonly string[]) => Type.Enum([...values], { type: 'string' });
const dateTime = Type.String({ format: 'date-time' });
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

const url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });
const events = Type.Array(caseInsensitiveEnum(EVENT_TYPES, 64), {
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Event types delivered; empty or absent: every type',
});
const description = Type.String({ maxLength: 500 });
const id = Type.String({ minLength: 1, maxLength: 200 });

export const CreateEndpointSchema = closed({
  url,
  kind: Type.Optional(caseInsensitiveEnum(ENDPOINT_KINDS, 16)),
  events: Type.Optional(events),
  description: Type.Optional(description),
});
export const parseCreateEndpoint = compileValidator(CreateEndpointSchema);

export const UpdateEndpointSchema = closed({
  id,
  url: Type.Optional(url),
  events: Type.Optional(events),
  description: Type.Optional(description),
  enabled: Type.Optional(Type.Boolean()),
});
export const parseUpdateEndpoint = compileValidator(UpdateEndpointSchema);

export const EndpointIdSchema = closed({ id });
export const parseEndpointId = compileValidator(EndpointIdSchema);

export const ListDeliveriesSchema = closed({ endpointId: id, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });
export const parseListDeliveries = compileValidator(ListDeliveriesSchema);

export const DeliveryIdSchema = closed({ deliveryId: id });
export const parseDeliveryId = compileValidator(DeliveryIdSchema);

export const EndpointResponse = closed({
  id: Type.String(),
  url: Type.String(),
  kind: oneOf(ENDPOINT_KINDS),
  events: Type.Array(oneOf(EVENT_TYPES)),
  description: Type.String(),
  enabled: Type.Boolean(),
  disabledReason: nullable(Type.String()),
  failingSince: nullable(dateTime),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const EndpointWithSecretResponse = closed({
  ...EndpointResponse.properties,
  secret: Type.String({ pattern: '^whsec_', description: 'The signing secret (Standard Webhooks); shown only in this answer' }),
});

export const ListEndpointsResponse = closed({ endpoints: Type.Array(EndpointResponse) });

export const DeliveryResponse = closed({
  id: Type.String(),
  endpointId: Type.String(),
  eventId: Type.String(),
  webhookId: Type.String({ description: 'The webhook-id header: the same for every attempt and redelivery' }),
  type: oneOf(EVENT_TYPES),
  status: oneOf(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  responseCode: nullable(Type.Integer()),
  durationMs: nullable(Type.Integer()),
  error: nullable(Type.String()),
  nextAttemptAt: nullable(dateTime),
  lastAttemptAt: nullable(dateTime),
  createdAt: dateTime,
});

export const ListDeliveriesResponse = closed({ deliveries: Type.Array(DeliveryResponse) });
