import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

const h = serviceHarness();

function runbooksDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-runbooks-'));
  writeFileSync(
    join(dir, 'crashloop.md'),
    '---\ntitle: Crash loops in prod\ndescription: First checks for a crash-looping pod\n' +
      'match: [\'alertname="KubePodCrashLooping"\', \'namespace=~"prod|shop"\']\n---\nRead the previous logs first.\n',
  );
  writeFileSync(
    join(dir, 'staging.md'),
    '---\ntitle: Staging\ndescription: d\nmatch: [\'namespace="staging"\']\n---\nx\n',
  );
  writeFileSync(join(dir, 'broken.md'), '---\ntitle: [\n---\n');
  return dir;
}

describe('runbooks in an investigation, through serve', () => {
  it('lists the matching runbooks outside the fence, fetch_runbook reads one, and the record says which', async () => {
    h.llm = await startScriptedLlm((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { content: '## Root cause\nper the runbook' }
        : { toolCalls: [{ name: 'fetch_runbook', arguments: { id: 'crashloop' } }] },
    );
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_MODEL: 'scripted',
      LESTRADE_RUNBOOKS_DIR: runbooksDir(),
    });
    const s = h.svc;
    const body = amFixture('group-next').body;
    await fetch(`${s.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, alerts: body.alerts.slice(0, 1) }),
    });
    const id = await waitFor('a completed investigation', async () => {
      const items = (await getJson(`${s.base}/api/investigations`)).body.items as Array<{ id: string; status: string }>;
      return items[0]?.status === 'completed' && items[0].id;
    });
    const prompt = h.llm.requests[0]!.messages[1]!.content as string;
    const fenceEnd = prompt.lastIndexOf('</untrusted-');
    const listed = prompt.indexOf('- crashloop: Crash loops in prod (First checks for a crash-looping pod)');
    expect(listed).toBeGreaterThan(fenceEnd);
    expect(prompt).not.toContain('staging');
    const tool = h.llm.requests[1]!.messages.find((m) => m.role === 'tool')!.content as string;
    expect(tool).toContain('Read the previous logs first.');
    const inv = (await getJson(`${s.base}/api/investigations/${id}`)).body;
    expect(inv.runbooks).toEqual([
      { id: 'crashloop', title: 'Crash loops in prod', how: 'matched' },
      { id: 'crashloop', title: 'Crash loops in prod', how: 'fetched' },
    ]);
    // The broken file is reported at start-up with its place, and the others still load.
    const skipped = s.logs.filter((l) => /^runbook skipped: /.test(String(l.msg)));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ file: expect.stringMatching(/broken\.md$/), line: expect.any(Number) });
  });
});
