// Small charts as SVG text for the benchmark documents, no dependency: a line chart (categorical
// x, linear or logarithmic y, one line per series) and a scatter chart (linear x and y, one colour
// per series, dashed target lines); both with a legend.

export interface Series {
  name: string;
  values: (number | null)[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  categories: string[];
  series: Series[];
  logY?: boolean;
}

const COLOURS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d'];
const W = 720;
const H = 400;
const M = { left: 70, right: 230, top: 40, bottom: 50 };

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface ScatterChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: { name: string; points: { x: number; y: number }[] }[];
  /** Dashed lines at target values. */
  targets?: { x?: number; y?: number };
  /** Points above this are left out (and counted under the legend), so that a few far ones do not flatten the rest. */
  yMax?: number;
}

const plotW = W - M.left - M.right;
const plotH = H - M.top - M.bottom;
const label = (t: number): string => (t >= 10 ? t.toFixed(0) : String(Number(t.toFixed(2))));

/** The frame: title, axis labels, horizontal grid lines at the y ticks. */
function frame(title: string, xLabel: string, yLabel: string, yTicks: { at: number; text: string }[]): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${t.at.toFixed(1)}" y2="${t.at.toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${(t.at + 4).toFixed(1)}" text-anchor="end">${t.text}</text>`);
  }
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 10}" text-anchor="middle">${escape(xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`);
  return out;
}

function legend(out: string[], k: number, name: string): string {
  const colour = COLOURS[k % COLOURS.length]!;
  out.push(`<rect x="${W - M.right + 15}" y="${M.top + k * 20}" width="12" height="12" fill="${colour}"/>`);
  out.push(`<text x="${W - M.right + 32}" y="${M.top + k * 20 + 10}">${escape(name)}</text>`);
  return colour;
}

const close = (out: string[]): string => `${[...out, '</svg>'].join('\n')}\n`;

export function lineChartSvg(c: LineChart): string {
  const all = c.series.flatMap((s) => s.values.filter((v): v is number => v !== null && v > 0));
  const lo = c.logY ? Math.min(...all) : 0;
  const hi = Math.max(...all);
  const f = (v: number): number => (c.logY ? Math.log10(v) : v);
  const [y0, y1] = c.logY ? [Math.floor(f(lo)), Math.ceil(f(hi))] : [0, hi * 1.1];
  const x = (i: number): number => M.left + (c.categories.length === 1 ? plotW / 2 : (i * plotW) / (c.categories.length - 1));
  const y = (v: number): number => M.top + plotH - ((f(v) - y0) / (y1 - y0 || 1)) * plotH;
  const ticks = c.logY ? Array.from({ length: y1 - y0 + 1 }, (_, i) => 10 ** (y0 + i)) : Array.from({ length: 6 }, (_, i) => (y1 * i) / 5);
  const out = frame(
    c.title,
    c.xLabel,
    c.yLabel,
    ticks.map((t) => ({ at: y(t), text: label(t) })),
  );
  c.categories.forEach((cat, i) => out.push(`<text x="${x(i).toFixed(1)}" y="${M.top + plotH + 18}" text-anchor="middle">${escape(cat)}</text>`));
  c.series.forEach((s, k) => {
    const colour = legend(out, k, s.name);
    const points = s.values.flatMap((v, i) => (v !== null && v > 0 ? [`${x(i).toFixed(1)},${y(v).toFixed(1)}`] : []));
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}"/>`);
    for (const p of points) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${colour}"/>`);
  });
  return close(out);
}

export function scatterChartSvg(c: ScatterChart): string {
  const shown = (p: { y: number }): boolean => c.yMax === undefined || p.y <= c.yMax;
  const points = c.series.flatMap((s) => s.points).filter(shown);
  const xs = [...points.map((p) => p.x), ...(c.targets?.x !== undefined ? [c.targets.x] : [])];
  const ys = [...points.map((p) => p.y), ...(c.targets?.y !== undefined ? [c.targets.y] : [])];
  const [x0, x1] = [Math.min(...xs) * 0.95, Math.max(...xs) * 1.05];
  const y1 = Math.max(...ys) * 1.1;
  const x = (v: number): number => M.left + ((v - x0) / (x1 - x0 || 1)) * plotW;
  const y = (v: number): number => M.top + plotH - (v / (y1 || 1)) * plotH;
  const out = frame(
    c.title,
    c.xLabel,
    c.yLabel,
    Array.from({ length: 6 }, (_, i) => (y1 * i) / 5).map((t) => ({ at: y(t), text: label(t) })),
  );
  for (let i = 0; i <= 5; i++) {
    const v = x0 + ((x1 - x0) * i) / 5;
    out.push(`<text x="${x(v).toFixed(1)}" y="${M.top + plotH + 18}" text-anchor="middle">${label(v)}</text>`);
  }
  const dashed = 'stroke="#888" stroke-dasharray="6 4"';
  if (c.targets?.y !== undefined)
    out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(c.targets.y).toFixed(1)}" y2="${y(c.targets.y).toFixed(1)}" ${dashed}/>`);
  if (c.targets?.x !== undefined)
    out.push(`<line x1="${x(c.targets.x).toFixed(1)}" x2="${x(c.targets.x).toFixed(1)}" y1="${M.top}" y2="${M.top + plotH}" ${dashed}/>`);
  c.series.forEach((s, k) => {
    const colour = legend(out, k, s.name);
    for (const p of s.points.filter(shown)) out.push(`<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="4" fill="${colour}" fill-opacity="0.8"/>`);
  });
  const hidden = c.series.flatMap((s) => s.points).length - points.length;
  if (hidden > 0)
    out.push(`<text x="${W - M.right + 15}" y="${M.top + c.series.length * 20 + 14}">${hidden} point(s) above ${label(c.yMax!)} not shown</text>`);
  return close(out);
}
