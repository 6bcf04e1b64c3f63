// The queue's settings for a token that may not change them: the same fields as the form, read only.
import type { QueueSettings } from '../api/types';
import { BOOLEANS, NUMBERS } from './queue-settings-form';

export function QueueSettingsSummary({ settings }: { settings: QueueSettings }) {
  return (
    <div data-testid="settings-summary">
      <dl className="settings-summary">
        <dt>Mode</dt>
        <dd>{settings.mode}</dd>
        {NUMBERS.map(({ field, label }) => (
          <div key={field}>
            <dt>{label}</dt>
            <dd>{settings[field]}</dd>
          </div>
        ))}
        {BOOLEANS.map(({ field, label }) => (
          <div key={field}>
            <dt>{label}</dt>
            <dd>{settings[field] ? 'yes' : 'no'}</dd>
          </div>
        ))}
        <dt>Required statuses</dt>
        <dd>{settings.requiredStatuses.length > 0 ? settings.requiredStatuses.join(', ') : 'from .trunk/trunk.yaml or branch protection'}</dd>
      </dl>
      <p className="muted small">An admin can change these.</p>
    </div>
  );
}
