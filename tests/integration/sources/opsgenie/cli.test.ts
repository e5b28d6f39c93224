import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsgenieDouble, type OgAlert, type OpsgenieDouble } from '../../../helpers/doubles/opsgenie-double.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const run = runCli;

let og: OpsgenieDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;
let p1: OgAlert;
let p3: OgAlert;

beforeAll(async () => {
  og = await startOpsgenieDouble();
  p3 = og.addAlert({
    message: 'Disk 91% on db-2',
    priority: 'P3',
    tinyId: '7',
    createdAt: Date.parse('2024-06-10T10:00:00Z'),
  });
  p1 = og.addAlert({
    message: 'Checkout API returns 502',
    priority: 'P1',
    tinyId: '8',
    createdAt: Date.parse('2024-06-10T11:00:00Z'),
    details: { service: 'checkout' },
  });
  og.addAlert({ message: 'closed long ago', priority: 'P1', status: 'closed' });
  // The same analysis every run: a second run has nothing new to say, so it adds nothing.
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe connection pool is exhausted.' }));
  env = {
    OPENAI_API_KEY: 'sk-cli',
    OPENAI_BASE_URL: llm.baseUrl,
    OPSGENIE_API_KEY: og.apiKey,
    OPSGENIE_API_URL: og.url,
  };
});
afterAll(async () => {
  expect(og.violations).toEqual([]);
  await og.close();
  await llm.close();
});

describe('lestrade investigate opsgenie', () => {
  it('--update adds one note per alert; run again with the same RCA, still one', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-og-cli-')), 'rca.json');
    const first = await run(
      ['investigate', 'opsgenie', '--query', 'status:open priority:P1', '--update', '--json-output-file', out],
      env,
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Found 1 alert to investigate.');
    expect(first.stdout).toContain('# Checkout API returns 502\n\n## Root cause\nThe connection pool is exhausted.');
    expect(first.stdout).toContain('(Posted comment on #8)');
    expect(og.notes(p1.id)).toHaveLength(1);
    expect(og.notes(p1.id)[0]!.note).toMatch(new RegExp(`lestrade:rca:${p1.id} sha=[0-9a-f]{12}$`));
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json).toEqual([
      expect.objectContaining({
        issue: expect.objectContaining({ identity: p1.id, severity: 'critical', annotations: { service: 'checkout' } }),
        writeBack: { action: 'created', commentId: og.notes(p1.id)[0]!.offset, url: null },
      }),
    ]);

    const second = await run(['investigate', 'opsgenie', '--query', 'status:open priority:P1', '--update'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('(Updated comment on #8)');
    expect(og.notes(p1.id)).toHaveLength(1);
    expect(og.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  }, 60_000);

  it('-n limits the alerts investigated (newest first, default query status:open)', async () => {
    const res = await run(['investigate', 'opsgenie', '-n', '1'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Found 1 alert to investigate.');
    expect(res.stdout).toContain('# Checkout API returns 502');
    expect(og.notes(p3.id)).toHaveLength(0);
  }, 30_000);

  it('without an API key it says so (exit 2)', async () => {
    const offRun = await run(['investigate', 'opsgenie'], { ...env, OPSGENIE_API_KEY: '' });
    expect(offRun.code).toBe(2);
    expect(offRun.stderr).toMatch(/source opsgenie is off: no OPSGENIE_API_KEY/);
  }, 30_000);

  it('--update waits out a note OpsGenie is still processing, then counts it written (one POST)', async () => {
    og.state.processingPolls = 1;
    const posts = () => og.requests.filter((r) => r.method === 'POST' && r.path === `/v2/alerts/${p3.id}/notes`).length;
    const res = await run(['investigate', 'opsgenie', '--query', 'priority:P3', '--update'], env);
    og.state.processingPolls = 0;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('(Posted comment on #7)');
    expect(og.notes(p3.id)).toHaveLength(1);
    expect(posts()).toBe(1);
  }, 60_000);
});
