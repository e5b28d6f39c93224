import { describe, expect, it } from 'vitest';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService } from '../../../helpers/service.js';

/**
 * Redaction through the whole service: an alert quoting an address and an e-mail address is investigated by a
 * model that sees only placeholders and answers with them; the record counts what was replaced, the API keeps
 * the placeholders unless `redaction.restoreIn` lists it, the dashboard maps them back by default, and
 * lestrade_redactions_total counts each value once.
 */
const h = serviceHarness();

const ANNOTATIONS = { description: 'host 10.61.4.20 is down, owner dana.lee@corp.example' };

/** Answers at once, naming the alert's address and owner by the placeholders it was sent. */
const script: Script = (req) => {
  const prompt = req.messages.map((m) => m.content ?? '').join('\n');
  const ip = /<ip-\d+>/.exec(prompt)?.[0] ?? 'NO-IP-PLACEHOLDER';
  const email = /<email-\d+>/.exec(prompt)?.[0] ?? 'NO-EMAIL-PLACEHOLDER';
  return { content: `## Root cause\nHost ${ip} (owner ${email}) is down.` };
};

async function serve(extraYaml = '') {
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: runtimeConfig(extraYaml).config,
  });
  const id = await deliverOne(h.svc.base, '0a0b0c0d0e0f1011', ANNOTATIONS);
  const inv = await statusIs(h.svc.base, id, ['completed', 'failed']);
  return { base: h.svc.base, id, inv };
}

describe('redaction in the service', () => {
  it('counts on the record, keeps placeholders in the API, maps them back on the dashboard, and counts the metric', async () => {
    const { base, id, inv } = await serve();
    expect(inv.status).toBe('completed');
    expect(JSON.stringify(h.llm!.requests)).not.toMatch(/10\.61\.4\.20|dana\.lee@corp\.example/);
    expect(inv.rca).toBe('## Root cause\nHost <ip-1> (owner <email-1>) is down.');
    expect(inv.redactions).toEqual({ ip: 1, email: 1 });
    // The mapping stays in the checkpoint: not in the API's answer, nor in a log line.
    expect(JSON.stringify(inv)).not.toContain('placeholders');
    expect(JSON.stringify(h.svc!.logs)).not.toContain('<ip-1>');

    const page = await (await fetch(`${base}/investigations/${id}`)).text();
    expect(page).toContain('<p>Host 10.61.4.20 (owner <code>dana.lee@corp.example</code>) is down.</p>');
    expect(page).not.toMatch(/&lt;(ip|email)-1&gt;/);

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/lestrade_redactions_total\{kind="ip"\} 1\n/);
    expect(metrics).toMatch(/lestrade_redactions_total\{kind="email"\} 1\n/);
  }, 60_000);

  it('restores in the API and not on the dashboard when restoreIn says so', async () => {
    const { base, id, inv } = await serve('redaction:\n  restoreIn: [api]\n');
    expect(inv.rca).toBe('## Root cause\nHost 10.61.4.20 (owner dana.lee@corp.example) is down.');
    const page = await (await fetch(`${base}/investigations/${id}`)).text();
    expect(page).toContain('Host &lt;ip-1&gt; (owner &lt;email-1&gt;) is down.');
    expect((await getJson(`${base}/api/investigations`)).status).toBe(200);
  }, 60_000);

  it('sends the values as they are when redaction is off', async () => {
    const { inv } = await serve('redaction:\n  enabled: false\n');
    expect(JSON.stringify(h.llm!.requests)).toContain('10.61.4.20');
    expect(inv.rca).toBe('## Root cause\nHost NO-IP-PLACEHOLDER (owner NO-EMAIL-PLACEHOLDER) is down.');
    expect(inv.redactions).toEqual({});
  }, 60_000);
});
