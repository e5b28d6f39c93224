import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCases } from '../../../cli/eval/eval-case.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';
import { runCli } from '../../helpers/run-cli.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { DAY, giveVerdict, HOUR, qualityStore, seedInvestigation } from '../../helpers/quality-records.js';

// `lestrade quality` and `lestrade eval record --feedback wrong` as child processes against the service.
const TOKEN = 'quality-cli-token-93k2';
const SECRET = 'sk-live-do-not-record-7731';
let redis: TestRedis;
let client: Redis;
let svc: TestService;
let env: Record<string, string>;
const ids: Record<string, string> = {};

const CALLS = [
  {
    name: 'prometheus_query',
    params: { query: 'node_filesystem_avail_bytes' },
    status: 'success',
    durationMs: 9,
    output: 'avail 0',
  },
  { name: 'kubectl_logs', params: { pod: 'api-1' }, status: 'error', durationMs: 4, error: `denied with ${SECRET}` },
  { name: 'restart', params: { name: 'api' }, status: 'denied', durationMs: 0 },
];

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  svc = await startTestService(
    redis.url,
    { LESTRADE_API_TOKENS: `ops:${TOKEN}`, OPENAI_API_KEY: SECRET },
    { workers: false },
  );
  // The CLI knows the same secret (its configuration's), and redacts it from what it writes.
  env = { LESTRADE_URL: svc.base, LESTRADE_API_TOKEN: TOKEN, OPENAI_API_KEY: SECRET };
  const store = qualityStore(client);
  const at = Date.now() - DAY;
  const seed = async (name: string, alertname: string, over: Record<string, unknown> = {}) => {
    ids[name] = await seedInvestigation(store, client, {
      fingerprint: `fp-${name}`,
      alertname,
      createdAt: at,
      resolvedAt: at + 2 * HOUR,
      cost: { amount: 0.25, currency: 'USD', model: 'gpt-4o' },
      toolCalls: CALLS,
      ...over,
    });
  };
  await seed('right', 'DiskFull');
  await seed('wrongWithCause', 'NodeNotReady', { rca: '## Root cause\nthe kubelet crashed' });
  await seed('wrongNoCause', 'NodeNotReady');
  await seed('old', 'NodeNotReady', { createdAt: Date.now() - 40 * DAY, resolvedAt: null });
  await giveVerdict(client, ids.right!, 'correct', 'alice', at + HOUR);
  await giveVerdict(client, ids.wrongWithCause!, 'wrong', 'bob', at + HOUR, {
    rootCause: 'the node ran out of inodes\n(shown by df -i)',
  });
  await giveVerdict(client, ids.wrongNoCause!, 'wrong', 'bob', at + HOUR);
  await giveVerdict(client, ids.old!, 'wrong', 'bob', at + HOUR, { rootCause: 'an old cause' });
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('lestrade quality', { timeout: 120_000 }, () => {
  it('prints the figures as tables, the worst alert first', async () => {
    const r = await runCli(['quality'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^Quality of the answers of the last 30 days \(\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}, UTC\)$/,
    );
    expect(lines.find((l) => l.startsWith('overall'))!.split(/\s{2,}/)).toEqual([
      'overall',
      '3',
      '3',
      '1',
      '0',
      '2',
      '33%',
      '0.75',
      '1.9 h',
      '0%',
    ]);
    const worst = lines.slice(lines.indexOf('WORST ALERTS (rated ones, lowest accuracy first)') + 2);
    expect(worst[0]).toMatch(/^NodeNotReady\s+2\s+2\s+0\s+0\s+2\s+0%/);
    expect(worst[1]).toMatch(/^DiskFull\s+1\s+1\s+1\s+0\s+0\s+100%/);
  });

  it('prints the JSON of a shorter window, and refuses a bad one with the fix', async () => {
    const json = JSON.parse((await runCli(['quality', '--json', '--days', '7'], env)).stdout);
    expect(json).toMatchObject({ days: 7, overall: { investigations: 3, wrong: 2 } });
    expect(json.perDay).toHaveLength(7);
    const tooLong = await runCli(['quality', '--days', '400'], env);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain('days: "400" is not a whole number of days from 1 to 365');
    const zero = await runCli(['quality', '--days', '0'], env);
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toContain('expected a positive integer');
  });
});

describe('lestrade eval record --feedback wrong', { timeout: 120_000 }, () => {
  it('writes each wrong answer with a stated root cause as a case the eval loader reads, and says what it skipped', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lestrade-wrong-')), 'cases');
    const r = await runCli(['eval', 'record', '--feedback', 'wrong', dir], env);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(
      `Recorded 1 wrongly answered investigation as eval cases in ${dir} (2 tool outputs as mocks).`,
    );
    expect(r.stdout).toContain(
      `Skipped 1 judged wrong without a stated root cause (nothing to measure an answer against): ${ids.wrongNoCause!.slice(0, 8)};`,
    );
    const folder = join(dir, `wrong-${ids.wrongWithCause!.slice(0, 8)}`);
    expect(readdirSync(dir)).toEqual([`wrong-${ids.wrongWithCause!.slice(0, 8)}`]);
    const [c] = findCases([dir]);
    expect(c).toMatchObject({
      id: `wrong-${ids.wrongWithCause!.slice(0, 8)}`,
      expected: ['the node ran out of inodes\n(shown by df -i)'],
      tags: ['recorded', 'feedback-wrong', 'prometheus', 'kubernetes'],
    });
    expect(c!.mocks.map((m) => [m.tool, m.output.status])).toEqual([
      ['kubectl_logs', 'error'],
      ['prometheus_query', 'success'],
    ]);
    expect(readFileSync(join(folder, 'rca.md'), 'utf8')).toContain('the kubelet crashed');
    for (const f of readdirSync(folder)) expect(readFileSync(join(folder, f), 'utf8'), f).not.toContain(SECRET);

    const again = await runCli(['eval', 'record', '--feedback', 'wrong', '--days', '30', dir], env);
    expect(again.stdout).toContain('Recorded 0 wrongly answered investigations');
    expect(again.stdout).toContain(`Left 1 already recorded as they are: ${folder}.`);
    expect(existsSync(join(dir, `wrong-${ids.old!.slice(0, 8)}`))).toBe(false);
    const longer = await runCli(['eval', 'record', '--feedback', 'wrong', '--days', '60', dir], env);
    expect(longer.stdout).toContain('Recorded 1 wrongly answered investigation as eval cases');
    expect(findCases([dir]).map((x) => x.expected)).toEqual(
      expect.arrayContaining([['an old cause'], ['the node ran out of inodes\n(shown by df -i)']]),
    );
  });

  it('names the form expected when the arguments do not fit', async () => {
    const both = await runCli(['eval', 'record', '--feedback', 'wrong', 'some-id', 'dir'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('with --feedback give one folder: lestrade eval record --feedback wrong DIR');
    const right = await runCli(['eval', 'record', '--feedback', 'correct', 'dir'], env);
    expect(right.stderr).toContain('only "wrong" answers are recorded as cases');
  });
});
