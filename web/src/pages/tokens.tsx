// Your tokens: a person signed in with the identity provider makes tokens of their own (for the
// CLI, a script on their machine), at most their role, each expiring; lists and revokes them. A
// new token's value is shown once. Tokens of the organisation stay an admin's (the API, the CLI).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../api/client';
import { useSession, type SessionRole } from '../session';
import { ErrorMessage, Loading } from '../components/status';
import { when } from '../format';
import type { TokenRole } from '../session-storage';

const ROLES: TokenRole[] = ['read', 'write', 'admin'];

export function TokensPage() {
  const { session } = useSession();
  if (session?.kind !== 'person') {
    return (
      <>
        <h1>Your tokens</h1>
        <p>Personal tokens belong to a person: sign in as yourself to make some. An API token cannot make tokens of its own.</p>
      </>
    );
  }
  return <PersonalTokens role={session.role} />;
}

function PersonalTokens({ role }: { role: SessionRole }) {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ['listPersonalTokens'], queryFn: () => call('listPersonalTokens', {}) });
  // Signed in with GitHub, a token's role is a cap on your permission on each repository.
  const allowed = role === 'per_repository' ? ROLES : ROLES.slice(0, ROLES.indexOf(role) + 1);
  const [name, setName] = useState('');
  const [tokenRole, setTokenRole] = useState<TokenRole>('read');
  const create = useMutation({
    mutationFn: () => call('createPersonalToken', { name: name.trim(), role: tokenRole }),
    onSuccess: () => {
      setName('');
      void client.invalidateQueries({ queryKey: ['listPersonalTokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call('revokePersonalToken', { id }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['listPersonalTokens'] }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }

  return (
    <>
      <h1>Your tokens</h1>
      <p className="muted">
        For the CLI and scripts of your own: <code>openmq login</code> makes one for you, or make one here. A token can do at most what you can (
        <strong>{role === 'per_repository' ? 'your GitHub permission on each repository, and at most its own role' : role}</strong>), expires, and is named with
        you in the audit trail.
      </p>
      <form className="inline" onSubmit={submit}>
        <label>
          Name <input type="text" required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop script" />
        </label>{' '}
        <label>
          Role{' '}
          <select value={tokenRole} onChange={(e) => setTokenRole(e.target.value as TokenRole)}>
            {allowed.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" disabled={create.isPending || name.trim() === ''}>
          Create token
        </button>
      </form>
      {create.isError && <ErrorMessage error={create.error} />}
      {create.data && (
        <p className="notice" role="status" data-testid="new-token">
          Your new token <strong>{create.data.name}</strong>, shown only now: <code>{create.data.token}</code>
        </p>
      )}
      {tokens.isPending ? (
        <Loading what="your tokens" />
      ) : tokens.isError ? (
        <ErrorMessage error={tokens.error} />
      ) : tokens.data.tokens.length === 0 ? (
        <p className="muted">You have no tokens yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.tokens.map((t) => (
              <tr key={t.id} data-token={t.name}>
                <th scope="row">{t.name}</th>
                <td>{t.role}</td>
                <td>{when(t.createdAt)}</td>
                <td>{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
                <td>
                  {t.revokedAt ? (
                    'revoked'
                  ) : (
                    <button type="button" className="secondary" onClick={() => revoke.mutate(t.id)} disabled={revoke.isPending}>
                      Revoke {t.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoke.isError && <ErrorMessage error={revoke.error} />}
    </>
  );
}
