/**
 * How fast `lestrade` answers (issue 29): `--version`, `--help` and `list` (against a stub API on
 * loopback answering an empty list), each run as a fresh process; wall time from spawn to exit and
 * the process's peak RSS (GNU time's %M). Node's own start (`node -e 0`) is the floor. The built CLI
 * (`bin/lestrade.js` over dist/), the sources through tsx for `--version`, and, with BENCH_CLI_BEFORE_DIR,
 * another checkout's built CLI.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIME = '/usr/bin/time';

export interface CliStartCase {
  name: string;
  runs: number;
  medianMs: number;
  p90Ms: number;
  /** Median peak RSS, MB; null without GNU time. */
  rssMb: number | null;
}

interface Spec {
  name: string;
  args: string[];
  env?: Record<string, string>;
}

/** One run: wall ms from spawn to exit, and peak RSS in KB when GNU time is there. */
function once(spec: Spec, url: string): Promise<{ ms: number; rssKb: number | null }> {
  const timed = existsSync(TIME);
  const [cmd, args] = timed
    ? [TIME, ['-f', 'rss-kb %M', process.execPath, ...spec.args]]
    : [process.execPath, spec.args];
  const started = process.hrtime.bigint();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LESTRADE_URL: url, ...spec.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`${spec.name} exited ${code}: ${stderr.slice(-500)}`));
      const rss = /rss-kb (\d+)/.exec(stderr)?.[1];
      resolve({ ms, rssKb: rss ? Number(rss) : null });
    });
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function measure(spec: Spec, url: string, runs: number): Promise<CliStartCase> {
  for (let i = 0; i < 3; i++) await once(spec, url);
  const out: Array<{ ms: number; rssKb: number | null }> = [];
  for (let i = 0; i < runs; i++) out.push(await once(spec, url));
  const ms = out.map((r) => r.ms).sort((a, b) => a - b);
  const rss = out.flatMap((r) => (r.rssKb === null ? [] : [r.rssKb])).sort((a, b) => a - b);
  return {
    name: spec.name,
    runs,
    medianMs: quantile(ms, 0.5),
    p90Ms: quantile(ms, 0.9),
    rssMb: rss.length ? quantile(rss, 0.5) / 1024 : null,
  };
}

/** The cases, in the order of the report; `before` is a checkout with its own dist/ (npm run build there). */
function specs(before: string | undefined): Spec[] {
  const built = (args: string[]): string[] => ['bin/lestrade.js', ...args];
  const list: Spec[] = [
    { name: 'node -e 0 (the floor)', args: ['-e', '0'] },
    { name: 'lestrade --version', args: built(['--version']) },
    { name: 'lestrade --help', args: built(['--help']) },
    { name: 'lestrade list (stub API, empty list)', args: built(['list']) },
    { name: 'lestrade --version, sources through tsx', args: built(['--version']), env: { LESTRADE_FROM_SOURCE: '1' } },
  ];
  if (!before) return list;
  const theirs = (args: string[]): string[] => [`${before}/bin/lestrade.js`, ...args];
  const label = process.env.BENCH_CLI_BEFORE_LABEL ?? 'BENCH_CLI_BEFORE_DIR';
  return [
    ...list,
    { name: `before (${label}): lestrade --version`, args: theirs(['--version']) },
    { name: `before (${label}): lestrade --help`, args: theirs(['--help']) },
    { name: `before (${label}): lestrade list`, args: theirs(['list']) },
  ];
}

/** Every case, `runs` times each after three warm-up runs; dist/ must be built (run.ts builds it). */
export async function cliStart(runs: number, before = process.env.BENCH_CLI_BEFORE_DIR): Promise<CliStartCase[]> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"items":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const out: CliStartCase[] = [];
    for (const spec of specs(before)) {
      out.push(await measure(spec, url, runs));
      process.stderr.write(`cli start: ${JSON.stringify(out.at(-1))}\n`);
    }
    return out;
  } finally {
    server.close();
  }
}
