// How a change to a test or a repository's settings names who made it in that record's own
// history: the actor, and the person an automation said it acted for (the request's `actor`).
import type { Actor } from '../../platform/accounts/actor.js';
import { describeActor } from '../../platform/accounts/actor.js';

export function changeAuthor(actor: Actor, onBehalfOf: string | undefined): string {
  const by = actor.kind === 'token' ? `token:${actor.tokenId}` : describeActor(actor);
  return onBehalfOf ? `${onBehalfOf} (${by})` : by;
}
