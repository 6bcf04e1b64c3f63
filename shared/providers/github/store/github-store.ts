// The GitHub side's repositories over one database (indexes: shared/database/ensure-indexes.ts).
import type { Database } from '../../../database/collection.js';
import { PublishedFeedbackRepository } from './published-feedback-repository.js';
import { RepositoryOwners } from './repository-owners.js';
import { WebhookDeliveryRepository } from './webhook-delivery-repository.js';

export interface GitHubStore {
  deliveries: WebhookDeliveryRepository;
  owners: RepositoryOwners;
  published: PublishedFeedbackRepository;
}

export function createGitHubStore(db: Database): GitHubStore {
  return { deliveries: new WebhookDeliveryRepository(db), owners: new RepositoryOwners(db), published: new PublishedFeedbackRepository(db) };
}
