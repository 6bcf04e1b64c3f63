// API keys of the organisation, for the v2 API: an admin makes a key with the merge-queue
// permissions it needs (none: it only reads), sees its value once, lists and revokes keys. The
// same use cases as `openmq api-keys` and createApiKey/listApiKeys/revokeApiKey.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../api/client';
import { useSession } from '../session';
import { ErrorMessage, Loading } from '../components/status';
import { when } from '../format';
import type { RequestOf } from '../../../openapi/wire';

type Permission = RequestOf<'createApiKey'>['permissions'][number];

/** The permissions as the hosted product names them in its key form. */
const PERMISSIONS: { value: Permission; title: string }[] = [
  { value: 'merge_and_cancel', title: 'Merge and cancel PRs' },
  { value: 'set_priority', title: 'Set priority on PRs' },
  { value: 'skip_batching', title: 'Skip batching' },
  { value: 'direct_to_queue', title: 'Merge PRs with direct to queue' },
  { value: 'update_settings', title: 'Update Merge Queue settings' },
];

const titleOf = (p: string) => PERMISSIONS.find((x) => x.value === p)?.title ?? p;

export function ApiKeysPage() {
  const { session } = useSession();
  if (session?.role !== 'admin') {
    return (
      <>
        <h1>API keys</h1>
        <p>API keys are the organisation&apos;s: an admin makes and revokes them.</p>
      </>
    );
  }
  return <ApiKeys />;
}

function ApiKeys() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['listApiKeys'], queryFn: () => call('listApiKeys', {}) });
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Permission[]>([]);
  const create = useMutation({
    mutationFn: () => call('createApiKey', { name: name.trim(), permissions: chosen }),
    onSuccess: () => {
      setName('');
      setChosen([]);
      void client.invalidateQueries({ queryKey: ['listApiKeys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call('revokeApiKey', { id }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['listApiKeys'] }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }

  const toggle = (p: Permission) => setChosen((now) => (now.includes(p) ? now.filter((x) => x !== p) : [...now, p]));

  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        For integrations with the v2 API: send a key as <code>Authorization: Bearer</code>. A key belongs to the organisation, holds only the permissions chosen
        here (with none it reads and changes nothing), and is named in the audit trail.
      </p>
      <form onSubmit={submit}>
        <label>
          Name <input type="text" required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="deploy bot" />
        </label>
        <fieldset>
          <legend>Permissions</legend>
          {PERMISSIONS.map((p) => (
            <label key={p.value}>
              <input type="checkbox" checked={chosen.includes(p.value)} onChange={() => toggle(p.value)} /> {p.title}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || name.trim() === ''}>
          Create key
        </button>
      </form>
      {create.isError && <ErrorMessage error={create.error} />}
      {create.data && (
        <p className="notice" role="status" data-testid="new-key">
          The new key <strong>{create.data.name}</strong>, shown only now: <code>{create.data.key}</code>
        </p>
      )}
      {keys.isPending ? (
        <Loading what="the API keys" />
      ) : keys.isError ? (
        <ErrorMessage error={keys.error} />
      ) : keys.data.keys.length === 0 ? (
        <p className="muted">There are no API keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((k) => (
              <tr key={k.id} data-key={k.name}>
                <th scope="row">{k.name}</th>
                <td>{k.permissions.length === 0 ? 'none: reads only' : k.permissions.map(titleOf).join(', ')}</td>
                <td>{when(k.createdAt)}</td>
                <td>
                  {k.revokedAt ? (
                    'revoked'
                  ) : (
                    <button type="button" className="secondary" onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending}>
                      Revoke {k.name}
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
