// Number formatting for reasons: people read them in dashboards and PR comments.

/** 0.853 → `85.3%`. */
export function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** A threshold as configured: 0.8 → `80%`, 0.125 → `12.5%`. */
export function thresholdPercent(rate: number): string {
  const p = Math.round(rate * 1000) / 10;
  return `${Number.isInteger(p) ? p.toFixed(0) : p.toFixed(1)}%`;
}

/** `24h`, or `7d` for whole days of a week or more. */
export function duration(hours: number): string {
  return hours >= 168 && hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
