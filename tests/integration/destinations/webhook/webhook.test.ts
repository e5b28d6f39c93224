import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORMATS } from '../../../helpers/doubles/double-io.js';
import {
  amDelivery,
  finalWriteBack,
  postAlertmanager,
  serveWithDestinations,
} from '../../../helpers/destinations-harness.js';
import { startReceiver, type Received, type Receiver } from '../../../helpers/receiver.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { waitFor } from '../../../helpers/service.js';
import { postJson } from '../../../helpers/runtime.js';

/** The generic webhook against a receiver that verifies as docs/destinations/webhook.md tells receivers to. */
const h = serviceHarness();
const ajv = new Ajv({ allErrors: true, strict: false });
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
const validPayload = ajv.compile(
  JSON.parse(readFileSync(new URL('../../../../schemas/webhook-v1.schema.json', import.meta.url), 'utf8')),
);
const NEW_SECRET = 'whsec-new';
let hook: Receiver;
const refused: string[] = [];

/** The receiver's check, written from the docs (not from Lestrade's signing code). */
function verify(r: Received, secret: string, toleranceSeconds = 300): string | null {
  const header = String(r.headers['x-lestrade-signature'] ?? '');
  const t = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1]);
  if (!t || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return 'stale or missing timestamp';
  const want = createHmac('sha256', secret).update(`${t}.${r.body}`).digest();
  const ok = [...header.matchAll(/v1=([0-9a-f]+)/g)].some((m) => {
    const got = Buffer.from(m[1]!, 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  });
  if (!ok) return 'bad signature';
  return validPayload(JSON.parse(r.body)) ? null : `schema: ${JSON.stringify(validPayload.errors)}`;
}

beforeEach(async () => {
  refused.length = 0;
  hook = await startReceiver((r) => {
    const problem = verify(r, NEW_SECRET);
    if (!problem) return null;
    refused.push(problem);
    return 401;
  });
});
afterEach(async () => {
  await hook.close();
});

describe('generic webhook', () => {
  it('posts the signed v1 payload (verified with the new of two rotating secrets), retries a 503 with the same Idempotency-Key, and sends the resolve', async () => {
    hook.answers.push({ status: 503 });
    const svc = await serveWithDestinations(h, {
      LESTRADE_WEBHOOK_URL: hook.url,
      LESTRADE_WEBHOOK_SECRET: `whsec-old, ${NEW_SECRET}`,
    });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 9 }]));
    const id = out.queued[0] as string;
    expect(await finalWriteBack(svc, id, 'webhook')).toMatchObject({ status: 'written', attempts: 2 });
    expect(refused).toEqual([]);
    expect(hook.received).toHaveLength(2);
    const keys = hook.received.map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual([`lestrade-${id}-completed`, `lestrade-${id}-completed`]);
    expect(String(hook.received[1]!.headers['x-lestrade-signature']).match(/v1=/g)).toHaveLength(2);
    const body = JSON.parse(hook.received[1]!.body);
    expect(body).toMatchObject({
      version: '1',
      event: 'investigation.completed',
      deliveryId: keys[0],
      investigation: { id, source: 'alertmanager' },
      issue: { severity: 'critical' },
    });
    expect(body.rca.markdown).toContain('## Root cause');
    expect(body.rca.markdown).not.toContain('](https://evil.example');

    await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 9, status: 'resolved' }]));
    const resolved = await waitFor('the resolve delivery', async () =>
      hook.received.find((r) => JSON.parse(r.body).event === 'investigation.resolved'),
    );
    expect(resolved.headers['idempotency-key']).toBe(`lestrade-${id}-resolved`);
    expect(JSON.parse(resolved.body).group).toMatchObject({ status: 'resolved', firing: 0, resolved: 1 });
  });

  it('sends investigation.answered once per follow-up, and investigation.completed again for a re-run', async () => {
    const svc = await serveWithDestinations(h, { LESTRADE_WEBHOOK_URL: hook.url, LESTRADE_WEBHOOK_SECRET: NEW_SECRET });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 12 }]));
    const id = out.queued[0] as string;
    expect(await finalWriteBack(svc, id, 'webhook')).toMatchObject({ status: 'written' });
    expect((await postJson(`${svc.base}/api/investigations/${id}/ask`, { question: 'Why <b>now</b>?' })).status).toBe(
      202,
    );
    const answered = await waitFor('the answer delivery', async () =>
      hook.received.find((r) => JSON.parse(r.body).event === 'investigation.answered'),
    );
    expect(answered.headers['idempotency-key']).toBe(`lestrade-${id}-answer-0`);
    const body = JSON.parse(answered.body);
    expect(body).toMatchObject({
      deliveryId: `lestrade-${id}-answer-0`,
      answer: { entry: 0, question: 'Why <b>now</b>?' },
    });
    expect(body.answer.markdown).toContain('The pod ran out of memory.');
    expect(body.answer.markdown).not.toContain('](https://evil.example');

    expect((await postJson(`${svc.base}/api/investigations/${id}/rerun`, {})).status).toBe(202);
    const again = await waitFor('the re-run delivery', async () =>
      hook.received.find((r) => r.headers['idempotency-key'] === `lestrade-${id}-completed-run-2`),
    );
    expect(JSON.parse(again.body)).toMatchObject({ event: 'investigation.completed', investigation: { id, run: 2 } });
    expect(refused).toEqual([]);
    expect(hook.received.filter((r) => JSON.parse(r.body).event === 'investigation.answered')).toHaveLength(1);
    // Pauses and decisions are no events of version 1: only completed (twice) and answered arrived.
    expect(hook.received.map((r) => JSON.parse(r.body).event).sort()).toEqual([
      'investigation.answered',
      'investigation.completed',
      'investigation.completed',
    ]);
  });

  it('a receiver refusing the signature (401) ends the write-back failed, naming the setting', async () => {
    const svc = await serveWithDestinations(h, {
      LESTRADE_WEBHOOK_URL: hook.url,
      LESTRADE_WEBHOOK_SECRET: 'not-the-receivers',
    });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 10 }]));
    const wb = await finalWriteBack(svc, out.queued[0], 'webhook');
    expect(wb.status).toBe('failed');
    expect(wb.error).toMatch(/401.*LESTRADE_WEBHOOK_URL/);
    expect(refused).toEqual(['bad signature']);
  });

  it('routes: a matching route sends to the webhook only; the default route is not used', async () => {
    const svc = await serveWithDestinations(
      h,
      {
        LESTRADE_WEBHOOK_URL: hook.url,
        LESTRADE_WEBHOOK_SECRET: NEW_SECRET,
        TEAMS_WEBHOOK_URL: 'http://127.0.0.1:9/never',
      },
      'destinations: { routes: [ { source: alertmanager, matchers: [\'namespace="prod"\'], destinations: [webhook] } ], default: [teams] }\n',
    );
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 11 }]));
    const wb = await finalWriteBack(svc, out.queued[0], 'webhook');
    expect(wb.status).toBe('written');
    const inv = (await (await fetch(`${svc.base}/api/investigations/${out.queued[0]}`)).json()) as {
      writeBacks: Array<{ destination?: string }>;
    };
    expect(inv.writeBacks.map((w) => w.destination)).toEqual(['webhook']);
  });
});
