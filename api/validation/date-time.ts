// The one `date-time` format of every request: RFC 3339 as ajv-formats checks it in full mode
// (real calendar dates, hours < 24, minutes < 60, an offset), narrowed to what a JS Date holds —
// every accepted value becomes a valid Date in a handler, so no time input can reach a 500.
import { fullFormats } from 'ajv-formats/dist/formats.js';

const rfc3339 = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;

/** Seconds of the time part (after the `T`, `t` or space separator). */
const SECONDS = /[t\s]\d\d:\d\d:(\d\d)/i;

export function isDateTime(value: string): boolean {
  // RFC 3339 allows the leap second 23:59:60, which a JS Date cannot represent.
  const seconds = Number(SECONDS.exec(value)?.[1] ?? 60);
  return rfc3339(value) && seconds < 60 && Number.isFinite(Date.parse(value));
}
