// Makes sure the configured organisation exists and can be reached with a token: API_TOKEN is
// registered for it; with none configured and no active token yet, one is generated, and the
// caller prints it once.
import type { AccountsStore } from './accounts-module.js';
import { generateToken } from './token-repository.js';

export interface BootstrapResult {
  orgId: string;
  /** A token generated now (print it once); null when none was generated. */
  generatedToken: string | null;
}

export async function bootstrapOrgAndToken(
  store: Pick<AccountsStore, 'orgs' | 'tokens'>,
  opts: { orgSlug: string; apiToken: string | null; generateIfNone: boolean },
): Promise<BootstrapResult> {
  const org = await store.orgs.ensure(opts.orgSlug);
  if (opts.apiToken) {
    await store.tokens.register(org.id, opts.apiToken, 'API_TOKEN');
    return { orgId: org.id, generatedToken: null };
  }
  if (opts.generateIfNone && (await store.tokens.countActive(org.id)) === 0) {
    const token = generateToken();
    await store.tokens.register(org.id, token, 'generated at first start');
    return { orgId: org.id, generatedToken: token };
  }
  return { orgId: org.id, generatedToken: null };
}
