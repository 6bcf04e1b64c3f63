// Every event name an outbound endpoint can subscribe to: the products' own lists, in one place
// for the API's schemas (event delivery itself knows no product's names).
import { MERGE_QUEUE_EVENT_TYPES } from '../merge-queue/events/event-types.js';
import { TEST_EVENT_TYPES } from '../flaky-tests/events/test-events.js';

export const EVENT_TYPES = [...MERGE_QUEUE_EVENT_TYPES, ...TEST_EVENT_TYPES] as const;
