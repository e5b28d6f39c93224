import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../../src/memory/memory-record.js';
import { MemoryStore } from '../../../src/memory/memory-store.js';
import { keys } from '../../../src/redis/keys.js';
import { runCli } from '../../helpers/run-cli.js';
import { serviceHarness } from '../../helpers/service-harness.js';
import { startTestService } from '../../helpers/service.js';

const h = serviceHarness();
const TOKEN = 'cli-forget-token';
const ID = '0a1b2c3d-0000-4000-8000-0000000000aa';

const rec: MemoryRecord = {
  investigationId: ID,
  source: 'jira',
  fingerprint: 'OPS-7',
  labels: { project: 'OPS' },
  title: 'Invoice export did not run',
  rootCause: 'The CronJob was suspended.',
  rootCauseBy: 'person',
  verdict: 'wrong',
  confirmedBy: 'alice',
  at: new Date().toISOString(),
};

// A fresh Node process running the TypeScript sources: seconds on a busy machine.
describe('lestrade forget', { timeout: 120_000 }, () => {
  it('forgets a remembered investigation through DELETE /api/memory/:id; a second time fails naming why', async () => {
    h.svc = await startTestService(h.redis.url, { LESTRADE_API_TOKEN: TOKEN });
    const memory = new MemoryStore(h.admin, keys, { retentionDays: 365, minScore: 0.75, maxSimilar: 3 });
    await memory.remember(rec);
    const env = { LESTRADE_URL: h.svc.base, LESTRADE_API_TOKEN: TOKEN };

    const done = await runCli(['forget', ID], env);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toBe(`forgotten: investigation ${ID} is no longer offered as a similar past incident\n`);
    expect(await memory.get(ID)).toBeNull();

    const again = await runCli(['forget', ID], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`nothing remembered of investigation ${ID} (HTTP 404 from ${h.svc.base})`);

    const noToken = await runCli(['forget', ID], { LESTRADE_URL: h.svc.base });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/401\).*set LESTRADE_API_TOKEN/);
  });
});
