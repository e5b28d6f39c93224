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
import { startReceiver, type Receiver } from '../../../helpers/receiver.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, waitFor } from '../../../helpers/service.js';
import { postJson } from '../../../helpers/runtime.js';

/** Teams Workflows webhook: a local receiver checks every card against the Adaptive Card schema (see the schema's $comment). */
const h = serviceHarness();
const ajv = new Ajv({ allErrors: true, strict: false });
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
const validCard = ajv.compile(
  JSON.parse(readFileSync(new URL('../../../fixtures/teams/adaptive-card-1.4.schema.json', import.meta.url), 'utf8')),
);
let teams: Receiver;
const invalid: unknown[] = [];

beforeEach(async () => {
  invalid.length = 0;
  teams = await startReceiver((r) => {
    if (validCard(JSON.parse(r.body))) return null;
    invalid.push(validCard.errors);
    return 400;
  });
});
afterEach(async () => {
  expect(invalid).toEqual([]);
  await teams.close();
});

describe('Teams: an Adaptive Card per investigation', () => {
  it('posts one valid card (title, severity, RCA sections, link), retries 429 after Retry-After, posts nothing on resolve', async () => {
    teams.answers.push({ status: 429, headers: { 'retry-after': '1' } }, { status: 502 });
    const svc = await serveWithDestinations(h, { TEAMS_WEBHOOK_URL: teams.url });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7 }]));
    const id = out.queued[0] as string;
    const wb = await finalWriteBack(svc, id, 'teams');
    expect(wb).toMatchObject({ status: 'written', target: 'teams', commentId: `teams:${id}`, attempts: 3 });
    expect(teams.received).toHaveLength(3);
    expect(teams.received[1]!.at - teams.received[0]!.at).toBeGreaterThanOrEqual(1000);
    const card = JSON.parse(teams.received[2]!.body).attachments[0].content;
    const text = JSON.stringify(card);
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', weight: 'Bolder' });
    expect(text).toContain('Severity: CRITICAL');
    // Headings, which a TextBlock does not render, are bold lines.
    expect(text).toContain('**Root cause**');
    expect(text).not.toContain('## Root cause');
    expect(text).toContain('[dashboard](http://prometheus.example:9090/graph)');
    expect(text).not.toContain('](https://evil.example');
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open in Lestrade', url: `https://lestrade.example/api/investigations/${id}` },
    ]);

    await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7, status: 'resolved' }]));
    await new Promise((r) => setTimeout(r, 1500));
    expect(teams.received).toHaveLength(3);
    expect((await getJson(`${svc.base}/readyz`)).body.destinations.teams).toBe('ok');
  });

  it('a re-run posts a new card for the new run (a Workflows webhook cannot edit the first); run 1 is not sent again', async () => {
    const svc = await serveWithDestinations(h, { TEAMS_WEBHOOK_URL: teams.url });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 9 }]));
    const id = out.queued[0] as string;
    expect(await finalWriteBack(svc, id, 'teams')).toMatchObject({ status: 'written', commentId: `teams:${id}` });
    expect(teams.received).toHaveLength(1);
    expect((await postJson(`${svc.base}/api/investigations/${id}/rerun`, {})).status).toBe(202);
    await waitFor('the re-run card', async () => teams.received.length === 2);
    // The record keeps `written` throughout: wait for the new card's key, which it records once Teams answered.
    await waitFor('the record of the re-run card', async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
      return (
        inv.writeBacks.find((w: { destination?: string; commentId?: string }) => w.destination === 'teams')
          ?.commentId === `teams:${id}:run-2`
      );
    });
    // A follow-up's answer is not posted to Teams (no threads).
    expect((await postJson(`${svc.base}/api/investigations/${id}/ask`, { question: 'Why?' })).status).toBe(202);
    await waitFor('the answer', async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
      return inv.conversation[0]?.status === 'answered';
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(teams.received).toHaveLength(2);
  });

  it('a 4xx ends the write-back failed, naming TEAMS_WEBHOOK_URL, without retrying', async () => {
    teams.answers.push({ status: 404 });
    const svc = await serveWithDestinations(h, { TEAMS_WEBHOOK_URL: teams.url });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 8 }]));
    const wb = await finalWriteBack(svc, out.queued[0], 'teams');
    expect(wb.status).toBe('failed');
    expect(wb.error).toMatch(/404.*TEAMS_WEBHOOK_URL/);
    expect(teams.received).toHaveLength(1);
  });
});
