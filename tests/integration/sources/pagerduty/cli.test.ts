import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADING } from '../../../../src/render/compose-comment.js';
import {
  startPagerDutyDouble,
  type PagerDutyDouble,
  type PdIncident,
} from '../../../helpers/doubles/pagerduty-double.js';
import { runCli as run } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { alertFromEvent } from '../../../fixtures/pagerduty/fixtures.js';

let pd: PagerDutyDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;
let open: PdIncident;

beforeAll(async () => {
  pd = await startPagerDutyDouble();
  open = pd.addIncident({
    title: 'Checkout latency',
    serviceId: 'PSVC001',
    priority: 'P1',
    alerts: [alertFromEvent('am-0.30-events-v2-firing.json')],
  });
  pd.addIncident({ title: 'Old and resolved', serviceId: 'PSVC001', status: 'resolved' });
  // The same analysis on every run: the second run has nothing new to add.
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe cache is cold after the deploy.' }));
  env = {
    OPENAI_API_KEY: 'sk-cli',
    OPENAI_BASE_URL: llm.baseUrl,
    PAGERDUTY_API_KEY: pd.apiKey,
    PAGERDUTY_API_URL: pd.url,
    PAGERDUTY_FROM_EMAIL: 'lestrade@example.com',
  };
});
afterAll(async () => {
  expect(pd.violations).toEqual([]);
  await pd.close();
  await llm.close();
});

describe('lestrade investigate pagerduty', () => {
  it('--update adds one note per incident; a second run with the same RCA adds none', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-pd-cli-')), 'rca.json');
    const first = await run(['investigate', 'pagerduty', '--update', '--json-output-file', out], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Found 1 incident to investigate.');
    expect(first.stdout).toContain('# Checkout latency\n\n## Root cause\nThe cache is cold after the deploy.');
    expect(first.stdout).toContain(`Posted comment on ${open.id}: https://acme.pagerduty.com/incidents/${open.id}`);
    const notes = () => pd.notes(open.id);
    expect(notes()).toHaveLength(1);
    expect(notes()[0]!.content).toContain(COMMENT_HEADING);
    expect(notes()[0]!.user.email).toBe('lestrade@example.com');
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json).toEqual([
      expect.objectContaining({
        issue: expect.objectContaining({ identity: open.id, severity: 'critical', related: expect.any(Array) }),
        writeBack: { action: 'created', commentId: notes()[0]!.id, url: expect.any(String) },
      }),
    ]);

    const second = await run(
      ['investigate', 'pagerduty', '--service', 'PSVC001', '--statuses', 'triggered', '--update'],
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`Updated comment on ${open.id}`);
    expect(notes()).toHaveLength(1);
    expect(
      pd.requests.filter((r) => r.path === '/incidents').map((r) => [r.query['statuses[]'], r.query['service_ids[]']]),
    ).toEqual([
      [['triggered', 'acknowledged'], undefined],
      ['triggered', 'PSVC001'],
    ]);
  }, 60_000);

  it('says what is missing: the API key, the From user for --update, a valid status', async () => {
    const noKey = await run(['investigate', 'pagerduty'], { OPENAI_API_KEY: 'sk-cli', OPENAI_BASE_URL: llm.baseUrl });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/source pagerduty is off: no PAGERDUTY_API_KEY/);
    const { PAGERDUTY_FROM_EMAIL: _from, ...noFrom } = env;
    const cannot = await run(['investigate', 'pagerduty', '--update'], noFrom);
    expect(cannot.code).toBe(2);
    expect(cannot.stderr).toMatch(/source pagerduty cannot write back \(--update\)/);
    const bad = await run(['investigate', 'pagerduty', '--statuses', 'open'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--statuses open: expected a comma-separated list of triggered, acknowledged, resolved/);
  }, 60_000);
});
