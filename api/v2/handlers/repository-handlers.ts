// The v2 operations on repositories (find by URL, read) and the upload of impacted targets.
import type { V2Handler } from '../v2-router.js';
import type { components } from '../../../openapi/v2/types.js';
import type { V2Deps } from './v2-deps.js';
import type { RepositoryResource } from '../../../shared/merge-queue/services/resource-service.js';
import { pageOfList, pageRequest } from '../pagination.js';
import { notFound } from '../../../shared/platform/errors.js';
import { V2Error } from '../v2-errors.js';

type S = components['schemas'];

/** Hosts the contract writes as `host: null`: the provider's default. */
const DEFAULT_HOSTS: ReadonlySet<string> = new Set(['github.com']);

function serializeRepository(r: RepositoryResource): S['Repository'] {
  return {
    id: r.id,
    // Repositories on the server's disk (the local provider) belong to no hosted forge.
    provider: r.providerKind === 'github' ? 'github' : 'unknown',
    path: `${r.repo.owner}/${r.repo.name}`,
    host: DEFAULT_HOSTS.has(r.repo.host) ? null : r.repo.host,
    url: `https://${r.repo.host}/${r.repo.owner}/${r.repo.name}`,
    // Not read from the forge (docs/api-v2.md#gaps).
    defaultBranch: null,
    isPrivate: null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.createdAt.toISOString(),
  };
}

export function repositoryHandlers(deps: V2Deps): Record<string, V2Handler> {
  const { resources, pullRequests } = deps.services;
  return {
    'repositories.resolveByProviderUrl': async ({ query, caller }) => {
      const providerUrl = String(query.providerUrl);
      const page = pageRequest('repositories.resolveByProviderUrl', query, { providerUrl });
      const found = await resources.repositoryByUrl(caller.actor.orgId, providerUrl);
      return { body: pageOfList('repositories.resolveByProviderUrl', { providerUrl }, page, [found], serializeRepository) };
    },

    'repositories.get': async ({ params, caller }) => ({ body: serializeRepository(await resources.repository(caller.actor.orgId, params.id ?? '')) }),

    'impactedTargets.upload': async ({ body, caller }) => {
      const req = body as S['UploadImpactedTargetsRequest'] & { number?: number; branch?: string; impactedTargets?: string[]; impactsAllTargets?: true };
      const { orgId } = caller.actor;
      const { repo } = await resources.repository(orgId, req.repositoryId);
      const scope = caller.uploadsFor;
      if (
        scope &&
        (scope.host !== repo.host || scope.owner.toLowerCase() !== repo.owner.toLowerCase() || scope.name.toLowerCase() !== repo.name.toLowerCase())
      ) {
        throw new V2Error(403, 'INSUFFICIENT_PERMISSIONS', `this GitHub Actions login uploads for ${scope.owner}/${scope.name} only`);
      }
      let number = req.number;
      if (number === undefined) {
        const [pr] = await resources.pullRequestsByBranch(orgId, req.repositoryId, String(req.branch), req.targetBranch);
        if (!pr) throw notFound('pull_request_not_found', `no open pull request from branch "${String(req.branch)}" into ${req.targetBranch}`);
        number = pr.number;
      }
      await pullRequests.setImpactedTargets(caller.actor, repo, req.targetBranch, number, req.sha, req.impactsAllTargets ? 'ALL' : (req.impactedTargets ?? []));
      return {};
    },
  };
}
