import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsmOpsDouble, type JsmAlert, type JsmOpsDouble } from '../../../helpers/doubles/jsm-ops-double.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const run = runCli;

let jsm: JsmOpsDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;
let p1: JsmAlert;

beforeAll(async () => {
  // Add-note answering 202 + requestId, processed at once: the CLI's one attempt polls it and is done.
  jsm = await startJsmOpsDouble({ addNoteMode: 'request' });
  jsm.addAlert({ message: 'Disk 91% on db-2', priority: 'P3', createdAt: new Date('2024-06-10T10:00:00Z') });
  p1 = jsm.addAlert({
    message: 'Checkout API returns 502',
    priority: 'P1',
    tinyId: '12',
    createdAt: new Date('2024-06-10T11:00:00Z'),
  });
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe connection pool is exhausted.' }));
  env = {
    OPENAI_API_KEY: 'sk-cli',
    OPENAI_BASE_URL: llm.baseUrl,
    JSM_OPS_SITE_URL: jsm.url,
    JSM_OPS_API_URL: jsm.url,
    JSM_OPS_EMAIL: jsm.email,
    JSM_OPS_API_TOKEN: jsm.apiToken,
  };
});
afterAll(async () => {
  expect(jsm.violations).toEqual([]);
  await jsm.close();
  await llm.close();
});

describe('lestrade investigate jsm-ops', () => {
  it('--update adds one note; run again, still one (nothing edited: the RCA did not change)', async () => {
    const first = await run(['investigate', 'jsm-ops', '--query', 'status: open AND priority: P1', '--update'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Found 1 alert to investigate.');
    expect(first.stdout).toContain(`(Posted comment on #12: ${jsm.url}/jira/ops/alerts/${p1.id})`);
    expect(jsm.notes(p1.id)).toHaveLength(1);
    const second = await run(['investigate', 'jsm-ops', '--query', 'status: open AND priority: P1', '--update'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('(Updated comment on #12');
    expect(jsm.notes(p1.id)).toHaveLength(1);
    expect(jsm.requests.filter((r) => r.method === 'POST' || r.method === 'PATCH')).toHaveLength(1);
    expect(jsm.requests.filter((r) => r.path === '/_edge/tenant_info')).toHaveLength(2);
  }, 60_000);

  it('without credentials it says what is missing (exit 2)', async () => {
    const off = await run(['investigate', 'jsm-ops'], { ...env, JSM_OPS_API_TOKEN: '' });
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/source jsm-ops is off: no JSM_OPS_EMAIL \+ JSM_OPS_API_TOKEN/);
  }, 30_000);
});
