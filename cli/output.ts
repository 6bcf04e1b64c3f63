// What commands print: the API's JSON with --json, else a table or a line for people.
export type Cell = string | number | boolean | null | undefined;

const text = (c: Cell) => (c === null || c === undefined ? '-' : String(c));

/** Columns padded to their widest cell; the header in upper case. */
export function table(headers: string[], rows: Cell[][]): string {
  if (rows.length === 0) return '(none)';
  const cells = [headers.map((h) => h.toUpperCase()), ...rows.map((r) => r.map(text))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Key/value lines for one object. */
export function fields(pairs: [string, Cell][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${text(v)}`).join('\n');
}

export interface Printer {
  /** Prints `json` with --json, else `human()`. */
  result(json: unknown, human: () => string): void;
}

export const printer = (json: boolean): Printer => ({
  result(value, human) {
    process.stdout.write(`${json ? JSON.stringify(value, null, 2) : human()}\n`);
  },
});
