/** The storm section of docs/benchmarks.md (see storm.ts). */
import os from 'node:os';
import type { StormResult } from './storm.js';
import { DEFAULT_CONCURRENCY } from '../src/config/schema.js';

const f = (n: number, d = 0) => n.toFixed(d);
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

function row(r: StormResult): string {
  const limit = r.providerRpm ? `${r.providerRpm}/min` : 'none';
  const rpm = r.configuredRpm ? String(r.configuredRpm) : 'unset';
  const floor = r.floorSeconds === null ? '—' : `${f(r.floorSeconds, 1)} (N×c÷R: ${f(r.rateFloorSeconds!, 0)})`;
  const ratio =
    r.floorSeconds === null
      ? `${f(r.seconds / r.idealSeconds, 1)}× ideal`
      : `${f(r.seconds / r.floorSeconds, 2)}× floor`;
  const rss = r.peakRssMb.map((x) => f(x)).join(' / ');
  const cpu = r.cpuSeconds.map((x) => f(x, 1)).join(' / ');
  const cpuPer = (r.cpuSeconds.reduce((a, b) => a + b, 0) * 1000) / r.alerts;
  const cells = [
    r.label,
    r.alerts,
    r.processes,
    r.concurrency ?? `${DEFAULT_CONCURRENCY} (default)`,
    limit,
    rpm,
    f(r.seconds, 1),
    f(r.idealSeconds, 1),
    floor,
    ratio,
    `${r.completed} / ${r.failed}`,
    r.requests,
    r.rejected429,
    r.max429PerProcessWindow,
    rss,
    f(r.idleRssMb),
    f(r.mbPerInFlight, 2),
    cpu,
    f(cpuPer),
  ];
  return `| ${cells.join(' | ')} |`;
}

function targets(rs: StormResult[]): string {
  const find = (p: (r: StormResult) => boolean) => rs.find(p);
  const d60 = find((r) => r.alerts === 60 && !r.providerRpm && !r.concurrency && r.processes === 1);
  const d300 = find((r) => r.alerts === 300 && !r.providerRpm && !r.concurrency && r.processes === 1);
  const lim = find((r) => Boolean(r.providerRpm && r.configuredRpm));
  const lines = ['| target | measured | |', '|---|---|---|'];
  if (d60)
    lines.push(
      `| 60 alerts, defaults: last RCA ≤ 3× the ideal | ${f(d60.seconds / d60.idealSeconds, 1)}× | ${verdict(d60.seconds <= 3 * d60.idealSeconds)} |`,
    );
  if (d300)
    lines.push(
      `| 300 alerts, defaults: last RCA ≤ 4× the ideal | ${f(d300.seconds / d300.idealSeconds, 1)}× (RSS ${f(d300.peakRssMb[0]!)} MB) | ${verdict(d300.seconds <= 4 * d300.idealSeconds)} |`,
    );
  if (lim)
    lines.push(
      `| provider limit ${lim.providerRpm}/min: 0 failed, ≤ 1 429 per process per window, within 10% of the floor | ${lim.failed} failed, at most ${lim.max429PerProcessWindow} 429s per process per window, ${f(lim.seconds / lim.floorSeconds!, 2)}× the floor | ${verdict(lim.failed === 0 && lim.max429PerProcessWindow <= 1 && lim.seconds <= 1.1 * lim.floorSeconds!)} |`,
    );
  return lines.join('\n');
}

export function stormSection(rs: StormResult[], load1: number[], load2: number[]): string {
  return `## Storm: time to the last RCA

Run on ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${os.cpus().length} cores; load average
${load1.map((x) => x.toFixed(2)).join(', ')} before and ${load2.map((x) => x.toFixed(2)).join(', ')} after (the machine is shared: at a
load average far above 2, every process here gets a fraction of a core and the times below grow with it).

Reproduce: \`npm run bench\` (everything), or this section alone: \`BENCH_CASES=storm npm run bench\`.
\`bench/storm.ts\`: N distinct alerts posted at once to compiled Lestrade (\`node dist/cli/main.js serve\`, and
\`worker\` for the other processes) on one real Redis; a scripted model (tests/helpers/scripted-llm.ts) answers each
completion after 1.5 s, first with a tool call and then with the RCA: two completions an investigation. The ideal is every
investigation at once (2 × 1.5 s). With a provider limit, the scripted model keeps a fixed 60 s window of R requests
and answers 429 past it, with \`x-ratelimit-limit-requests\`, \`-remaining-requests\`, \`-reset-requests\` and
\`retry-after\`; the floor is when the last completion can end under that window ((⌈N·c÷R⌉ − 1) minutes + 1.5 s), beside
the issue's N·c÷R. RSS is each process's peak (serve first) and serve's before the storm; MB per investigation in flight
is serve's (peak − idle) over the investigations it had in flight at most. CPU s is each process's CPU time (user +
system) from the first alert to the last RCA: unlike the times, it hardly depends on the machine's load, and a
process's CPU per investigation × N is the least time a storm can take on one core.
\`BENCH_TRACE=1\` also prints, per case, where each investigation's time went (posted → record → job active → each
completion → RCA stored) and Redis' commands per investigation; \`BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"\`
profiles the Lestrade processes; \`node --import tsx bench/storm-one.ts '{"alerts":300,"concurrency":128}'\` runs one
case against the dist/ already built.

| case | alerts | processes | concurrency | provider limit | LESTRADE_LLM_RPM | last RCA s | ideal s | floor s | ratio | completed / failed | requests | 429s | max 429s per process per window | peak RSS MB | idle RSS MB | MB per investigation in flight | CPU s | CPU ms per investigation |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rs.map(row).join('\n')}

${targets(rs)}
`;
}

/** Replaces the storm section of an existing docs/benchmarks.md (or appends it). */
export function spliceStorm(doc: string, section: string): string {
  const start = doc.indexOf('## Storm: time to the last RCA');
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + 3);
  return `${doc.slice(0, start)}${section}${next < 0 ? '' : `\n${doc.slice(next + 1)}`}`;
}
