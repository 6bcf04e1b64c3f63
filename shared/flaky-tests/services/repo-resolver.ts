// Resolves `org_url_slug` + `repo` of a request to the flaky-tests repository of the token's
// organisation. A slug of another organisation is answered like an unknown one (404), so a token
// learns nothing about other tenants.
import type { RepoRef } from '../../platform/repo-ref.js';
import { notFound, repositoryNotFound } from '../../platform/errors.js';
import type { OrgRepository } from '../../platform/accounts/org-repository.js';
import type { FlakyStore } from '../store/flaky-store.js';
import type { FlakyRepo } from '../domain/model.js';

export interface OrgRef {
  id: string;
  slug: string;
}

export class RepoResolver {
  constructor(private readonly deps: { orgs: OrgRepository; store: FlakyStore }) {}

  /** The token's organisation, checked against the slug the request names (when it names one). */
  async org(orgId: string, orgUrlSlug: string | null): Promise<OrgRef> {
    const org = await this.deps.orgs.findById(orgId);
    if (!org || (orgUrlSlug !== null && org.slug !== orgUrlSlug.trim())) {
      throw notFound('organization_not_found', `no organization ${JSON.stringify(orgUrlSlug)} for this API token`);
    }
    return { id: org.id, slug: org.slug };
  }

  /** An existing repository; 404 when nothing was ever uploaded or configured for it. */
  async existing(orgId: string, orgUrlSlug: string | null, repo: RepoRef): Promise<{ org: OrgRef; repo: FlakyRepo }> {
    const org = await this.org(orgId, orgUrlSlug);
    const found = await this.deps.store.repos.find(org.id, repo);
    if (!found) throw repositoryNotFound(repo, `no flaky-tests data for repository ${repo.host}/${repo.owner}/${repo.name}`);
    return { org, repo: found };
  }

  /** The repository, or null when unknown (nothing is created). */
  async maybe(orgId: string, orgUrlSlug: string | null, repo: RepoRef): Promise<{ org: OrgRef; repo: FlakyRepo | null }> {
    const org = await this.org(orgId, orgUrlSlug);
    return { org, repo: await this.deps.store.repos.find(org.id, repo) };
  }
}
