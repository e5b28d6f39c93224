/** The CLI start-up section of docs/benchmarks.md (see cli-start.ts). */
import os from 'node:os';
import type { CliStartCase } from './cli-start.js';

const HEADING = '## CLI start-up';
/** The target of issue 29 for `lestrade --version` on the 2-core machine. */
const VERSION_TARGET_MS = 300;

const f = (n: number, d = 0) => n.toFixed(d);
const loadText = (l: number[]) => l.map((x) => f(x, 2)).join(', ');

export function cliStartSection(cases: CliStartCase[], load1: number[], load2: number[]): string {
  const rows = cases.map(
    (c) => `| ${c.name} | ${c.runs} | ${f(c.medianMs)} | ${f(c.p90Ms)} | ${c.rssMb === null ? '—' : f(c.rssMb)} |`,
  );
  const version = cases.find((c) => c.name === 'lestrade --version');
  const verdict = version
    ? `| \`lestrade --version\` ≤ ${VERSION_TARGET_MS} ms (median) | ${f(version.medianMs)} ms | ${version.medianMs <= VERSION_TARGET_MS ? 'met' : '**not met**'} |`
    : '';
  return `${HEADING}

Run on ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${os.cpus().length} cores; load average
${loadText(load1)} before and ${loadText(load2)} after (the machine is shared: other work moves these figures).

Reproduce: \`BENCH_CASES=cli npm run bench\` (this section alone; it builds \`dist/\` first). \`bench/cli-start.ts\`
runs each command line as a fresh process, three warm-up runs then the counted ones, and reads the wall time from
spawn to exit and the peak RSS (GNU time's \`%M\`). \`list\` asks a stub API on loopback that answers an empty list.
\`bin/lestrade.js\` runs the built \`dist/\`; the tsx row runs the sources as the tests do. Start-up imports commander
and the commands' declarations only; each command imports its implementation when it runs
(tests/integration/cli/lazy-start.test.ts checks what \`--version\` and \`--help\` load). With
\`BENCH_CLI_BEFORE_DIR=<a checkout with dist/ built>\` (and \`BENCH_CLI_BEFORE_LABEL\`) the "before" rows run that checkout's
CLI: \`d=$(mktemp -d); git archive 28988b0 | tar -x -C $d; ln -s $PWD/node_modules $d/; (cd $d && npm run build)\`.

| command line | runs | median ms | p90 ms | peak RSS MB (median) |
|---|---|---|---|---|
${rows.join('\n')}

| target | measured | |
|---|---|---|
${verdict}

Node alone takes the floor's time; \`--version\` and \`--help\` add commander and the declarations. \`list\` also loads the API client and
Node's \`fetch\` (undici, compiled on first use): most of its extra time and memory. Before, every command line loaded
the engine, every source and toolset, the openai SDK and BullMQ first.
`;
}

/** Replaces the section in an existing docs/benchmarks.md, or appends it. */
export function spliceCliStart(doc: string, section: string): string {
  const start = doc.indexOf(HEADING);
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + 3);
  return `${doc.slice(0, start)}${section}${next < 0 ? '' : `\n${doc.slice(next + 1)}`}`;
}
