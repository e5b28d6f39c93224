/**
 * One storm case, for finding where its time goes: `node --import tsx bench/storm-one.ts '<json>'`, the JSON a
 * partial StormCase (e.g. {"alerts":300,"concurrency":128}); runs against the dist/ already built (npm run build).
 * With BENCH_TRACE=1 it prints the phases of every investigation (see storm-phases.ts).
 */
import os from 'node:os';
import { startRedis } from '../tests/helpers/redis-server.js';
import { stormCase, type StormCase } from './storm.js';

const c = JSON.parse(process.argv[2] ?? '{}') as Partial<StormCase>;
const load1 = os.loadavg();
const redis = await startRedis();
const r = await stormCase(redis.url, { label: 'one', alerts: 60, processes: 1, latencyMs: 1_500, ...c }).finally(() =>
  redis.stop(),
);
const load = [load1, os.loadavg()].map((l) => l.map((x) => x.toFixed(1)).join(' '));
process.stdout.write(`${JSON.stringify({ ...r, loadBefore: load[0], loadAfter: load[1] })}\n`);
