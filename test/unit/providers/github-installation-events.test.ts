// Installation events (issue 22, L12): an App installed on many accounts gets `installation` and
// `installation_repositories` events for any of them; each syncs the queues of the repositories
// it names, never every queue of every organisation.
import { expect } from 'chai';
import { GitHubWebhookEvents } from '../../../shared/github/services/webhook-events.js';
import { inMemoryRepositories } from '../../../shared/merge-queue/simulation/in-memory-repositories.js';
import { makeEntry } from '../../../scripts/lib/entries.js';
import { createLogger } from '../../../shared/platform/logging.js';
import { repoKey } from '../../../shared/platform/repo-ref.js';
import type { Queue } from '../../../shared/merge-queue/domain/model.js';
import { payloadFor } from '../../doubles/github/webhook-payloads.js';

const HOST = 'github.com';

describe('GitHub installation events', () => {
  async function setUp() {
    const store = inMemoryRepositories();
    const synced: string[] = [];
    const forgotten: number[] = [];
    for (const name of ['widgets', 'gadgets', 'gizmos']) {
      const queue = await store.queues.create('org1', { host: HOST, owner: 'acme', name }, 'main', {
        mode: 'single',
        concurrency: 1,
        targetSha: 'a'.repeat(40),
      });
      await store.entries.insert(makeEntry({ queueId: queue.id, orgId: 'org1', prNumber: 1, state: 'pending' }));
    }
    const events = new GitHubWebhookEvents({
      store,
      sync: {
        syncQueue: async (queue: Queue) => {
          synced.push(repoKey(queue.repo));
          return { ended: 0, restarted: 0, refreshed: 0, relabelled: 0, targetMoved: false };
        },
      },
      ciResults: { record: async () => 0, readBack: async () => 0 },
      clients: { forgetInstallation: (id: number) => void forgotten.push(id) },
      pollState: { deliveryArrived: async () => undefined },
      host: HOST,
      commands: { comment: async () => 'ignored', label: async () => 'ignored' },
      logger: createLogger('silent'),
    });
    return { events, synced, forgotten };
  }

  const delivery = (event: string, payload: Record<string, unknown>) => ({ id: 'd1', event, payload, receivedAt: new Date(), processedAt: null });

  it('installation_repositories syncs the queues of the repositories added and removed, and forgets the installation', async () => {
    const { events, synced, forgotten } = await setUp();
    const payload = payloadFor(
      'installation_repositories',
      'added',
      { owner: 'acme', name: 'widgets', installationId: 77 },
      {
        repositories_added: [{ id: 1, node_id: 'R1', name: 'widgets', full_name: 'acme/widgets', private: false }],
        repositories_removed: [{ id: 2, node_id: 'R2', name: 'gizmos', full_name: 'acme/gizmos', private: false }],
      },
    );
    expect(await events.handle(delivery('installation_repositories', payload))).to.equal('synced');
    expect(synced.sort()).to.deep.equal(['github.com/acme/gizmos', 'github.com/acme/widgets']);
    expect(forgotten).to.deep.equal([77]);
  });

  it('installation syncs only the repositories it lists, and nothing when it lists none the service queues', async () => {
    const { events, synced } = await setUp();
    const created = payloadFor(
      'installation',
      'created',
      { owner: 'acme', name: 'widgets', installationId: 78 },
      {
        repositories: [{ id: 3, node_id: 'R3', name: 'gadgets', full_name: 'acme/gadgets', private: false }],
      },
    );
    expect(await events.handle(delivery('installation', created))).to.equal('synced');
    expect(synced).to.deep.equal(['github.com/acme/gadgets']);
    const elsewhere = payloadFor(
      'installation',
      'created',
      { owner: 'other', name: 'thing', installationId: 79 },
      {
        repositories: [{ id: 4, node_id: 'R4', name: 'thing', full_name: 'other/thing', private: false }],
      },
    );
    expect(await events.handle(delivery('installation', elsewhere))).to.equal('ignored');
    expect(synced).to.deep.equal(['github.com/acme/gadgets']);
  });
});
