// What the settings forms share: a draft read into a request on submit — a draft that cannot be
// read says why and sends nothing — and the problems shown under the form.
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from './status';

export function useDraftSubmit<T>(read: () => T, send: (value: T) => void): { invalid: string | null; submit: (e: FormEvent) => void } {
  const [invalid, setInvalid] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    try {
      const value = read();
      setInvalid(null);
      send(value);
    } catch (err) {
      setInvalid((err as Error).message);
    }
  };
  return { invalid, submit };
}

/** What the draft could not say, or what the service refused. */
export function FormProblems({ invalid, error }: { invalid: string | null; error: Error | null }) {
  return (
    <>
      {invalid && (
        <p className="error" role="alert">
          {invalid}
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </>
  );
}
