// JUnit timestamps come in many spellings (notes §2.3, §2.5, samples README): ISO-8601 with or
// without zone or fraction, "2021-03-07T10:36:56 UTC" (TestNG), RFC-1123 (mocha), Go's zero time
// "0001-01-01T00:00:00Z" (gotestsum). A timestamp without a zone is taken as UTC, like the CLI's
// parser, because CI machines run in UTC and guessing local time would be worse.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Years before this are placeholders (Go zero time, epoch 0), not real run times. */
const MIN_PLAUSIBLE_YEAR = 1971;

export type TimestampParse = { ok: true; value: Date | null } | { ok: false };

/**
 * Parses a JUnit timestamp. `{ok: true, value: null}` for empty or placeholder values,
 * `{ok: false}` for text that is not a date at all.
 */
export function parseJUnitTimestamp(raw: string | null | undefined): TimestampParse {
  const s = (raw ?? '').trim();
  if (!s) return { ok: true, value: null };
  const m = ISO.exec(s);
  if (m) {
    const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone = ''] = m;
    const year = Number(y);
    if (year < MIN_PLAUSIBLE_YEAR) return { ok: true, value: null };
    const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
    let epoch = Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), ms);
    if (/^[+-]/.test(zone)) {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
      epoch -= sign * offsetMin * 60_000;
    }
    if (!Number.isFinite(epoch)) return { ok: false };
    return { ok: true, value: new Date(epoch) };
  }
  // RFC-1123 / RFC-2822 ("Sat, 03 Dec 2022 23:10:07 GMT"); only texts that look like one, since
  // Date.parse is lenient enough to turn junk into a date.
  if (/^[A-Za-z]{3},?\s+\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}(:\d{2})?\s*([A-Za-z]{1,5}|[+-]\d{4})?$/.test(s)) {
    const epoch = Date.parse(s);
    if (Number.isFinite(epoch)) {
      const date = new Date(epoch);
      return { ok: true, value: date.getUTCFullYear() < MIN_PLAUSIBLE_YEAR ? null : date };
    }
  }
  return { ok: false };
}

/**
 * `time` attribute (seconds) → milliseconds, rounded to microseconds. Negative, NaN and infinite
 * values are dropped like the CLI drops them; a decimal comma ("0,123") is accepted.
 */
export function parseDurationSeconds(raw: string | null | undefined): number | null {
  let s = (raw ?? '').trim();
  if (!s) return null;
  if (/^\d+,\d+$/.test(s)) s = s.replace(',', '.');
  const seconds = Number(s);
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  return Math.round(seconds * 1_000_000) / 1000;
}
