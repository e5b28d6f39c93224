import type { RetrievalQuality } from '../../tests/helpers/memory-retrieval.js';

export interface MemoryBench {
  date: string;
  cpus: number;
  cpuModel: string;
  redisVersion: string;
  load1: number[];
  load2: number[];
  quality: {
    incidents: number;
    minScore: number;
    chosen: RetrievalQuality;
    rows: Array<RetrievalQuality & { minScore: number }>;
  };
  scale: {
    records: number;
    loadSeconds: number;
    bytesPerRecord: number;
    recordKeyBytes: number;
    queries: number;
    offeredShare: number;
    p50: number;
    p99: number;
    max: number;
  };
}

const HEADING = '## Memory retrieval';
const f3 = (x: number) => x.toFixed(3);
const loadText = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');

export function memorySection(b: MemoryBench): string {
  const q = b.quality.chosen;
  const s = b.scale;
  const sweep = b.quality.rows
    .map(
      (r) =>
        `| ${r.minScore.toFixed(2)} | ${f3(r.precision)} | ${f3(r.recall)} | ${f3(r.falseOfferRate)} | ${r.offered} |`,
    )
    .join('\n');
  return `${HEADING}

Issue 31's memory of past incidents ([Memory](memory.md)), measured ${b.date} on ${b.cpus} × ${b.cpuModel}, redis-server
${b.redisVersion} on loopback (AOF on, fsync \`no\`), load average ${loadText(b.load1)} before and ${loadText(b.load2)} after
(the machine is shared: other work moves the timings, not the quality figures, which are deterministic).

**Quality on the labelled set** (tests/fixtures/memory: ${b.quality.incidents} past incidents, ${q.queries} queries, ${q.withRepeats} with
true repeats and ${q.novel} without), default \`memory.minScore\` ${b.quality.minScore}:

| measure | target | measured |
|---|---|---|
| precision of the first offered match | ≥ 0.9 | ${f3(q.precision)} (${q.offered} queries offered something) |
| share of true repeats found (first offer is one) | ≥ 0.8 | ${f3(q.recall)} |
| false offers on incidents with no repeat | ≤ 0.05 | ${f3(q.falseOfferRate)} |

The same set for other thresholds (the calibration):

| minScore | precision | repeats found | false offers | queries offered |
|---|---|---|---|---|
${sweep}

**Scale**: ${s.records.toLocaleString('en')} records (bench/memory/synthetic.ts: 2,000 workloads, 15 alert kinds, one in ten a ticket),
loaded in ${s.loadSeconds.toFixed(1)} s (64 writes in flight), then ${s.queries.toLocaleString('en')} \`findSimilar\` calls one after another
(${(s.offeredShare * 100).toFixed(0)}% offered something):

| measure | target | measured |
|---|---|---|
| findSimilar p50 | | ${s.p50.toFixed(2)} ms |
| findSimilar p99 | < 50 ms | ${s.p99.toFixed(2)} ms (max ${s.max.toFixed(1)} ms) |
| Redis memory per record, indexes included (used_memory delta / records) | | ${s.bytesPerRecord.toFixed(0)} bytes |
| the record's own key (MEMORY USAGE, mean of 200) | | ${s.recordKeyBytes.toFixed(0)} bytes |

Latency is of the whole call as the engine makes it (one Lua script reading at most five indexes, one MGET of the
candidates, scoring in the process), with no other Redis traffic. On a shared machine the p99 is mostly time spent
waiting for a core (Node's and Redis's); the p50 is closer to the work itself. It does not grow with memory: each
query reads at most 50 entries of each of five indexes, however many records there are.

Reproduce: \`npm run bench:memory\` (BENCH_MEMORY_RECORDS and BENCH_MEMORY_QUERIES change the scale); it rewrites this section.
`;
}

export function spliceMemory(doc: string, section: string): string {
  const start = doc.indexOf(HEADING);
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + 3);
  return `${doc.slice(0, start)}${section}${next < 0 ? '' : `\n${doc.slice(next + 1)}`}`;
}
