import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import type { RcaWriter } from '../../../../src/registration/rca-writer.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { locatorOf } from '../../../../sources/pagerduty/map.js';
import { pagerdutyWriter } from '../../../../sources/pagerduty/writer.js';
import { startPagerDutyDouble, type PagerDutyDouble } from '../../../helpers/doubles/pagerduty-double.js';
import { apiOn, FROM } from '../../../fixtures/pagerduty/double-setup.js';

let pd: PagerDutyDouble;
let incidentId = '';
const locator = () => locatorOf({ id: incidentId, html_url: `https://acme.pagerduty.com/incidents/${incidentId}` });
const doc = (rca: string, inv = 'inv-1') =>
  composeComment({ rca, issueKey: incidentId, investigationId: inv, allowedHosts: new Set() });
const notes = () => pd.notes(incidentId);
const posts = () => pd.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes'));
const writer = (over: Record<string, unknown> = {}): RcaWriter => {
  const { api, config } = apiOn(pd, over);
  return pagerdutyWriter(api, config.fromEmail!, config.noteLimit);
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );

beforeEach(async () => {
  pd = await startPagerDutyDouble();
  incidentId = pd.addIncident({ title: 'Checkout latency', serviceId: 'PSVC001' }).id;
});
afterEach(async () => {
  expect(pd.violations).toEqual([]);
  expect(pd.responseViolations).toEqual([]);
  await pd.close();
});

describe('PagerDuty writer: find, create, update', () => {
  it('adds one note as the From user, with our marker first, and finds it again by marker or by id', async () => {
    const w = writer();
    expect(await w.find(locator(), null)).toBeNull();
    const created = await w.create(locator(), doc('## Root cause\nThe pool is exhausted.'));
    expect(notes()).toHaveLength(1);
    expect(posts()[0]!.headers.from).toBe(FROM);
    expect(notes()[0]!.user.email).toBe(FROM);
    expect(notes()[0]!.content).toMatch(new RegExp(`^lestrade:rca:${incidentId} sha=[0-9a-f]{12}\\n`));
    expect(notes()[0]!.content).toContain('The pool is exhausted.');
    expect(created).toMatchObject({ id: notes()[0]!.id, url: `https://acme.pagerduty.com/incidents/${incidentId}` });
    expect(await w.find(locator(), null)).toMatchObject({ id: created.id });
    expect(await w.find(locator(), created.id)).toMatchObject({ id: created.id });
    expect(await w.find(locator(), 'PNOTE99')).toMatchObject({ id: created.id });
  });

  it('an unchanged RCA adds nothing; a changed one adds one more note (notes cannot be edited), then again nothing', async () => {
    const w = writer();
    const first = await writeRca(w, locator(), doc('## Root cause\nA slow query.'), null);
    expect(first.action).toBe('created');
    const same = await writeRca(w, locator(), doc('## Root cause\nA slow query.', 'inv-2'), first.comment.id);
    expect(same.comment.id).toBe(first.comment.id);
    expect(notes()).toHaveLength(1);
    const changed = await writeRca(w, locator(), doc('## Root cause\nA missing index.', 'inv-3'), first.comment.id);
    expect(notes()).toHaveLength(2);
    expect(changed.comment.id).toBe(notes()[1]!.id);
    expect(notes()[1]!.content).toContain('A missing index.');
    // The newest marked note is ours now, whichever id the caller still remembers.
    expect((await writeRca(w, locator(), doc('## Root cause\nA missing index.', 'inv-4'), null)).comment.id).toBe(
      changed.comment.id,
    );
    expect(notes()).toHaveLength(2);
  });

  it('ignores notes of others, and our marker for another incident', async () => {
    const alice = pd.state.addUser('Alice', 'alice@example.com');
    pd.state.addNote(incidentId, 'Looking into it', alice);
    pd.state.addNote(incidentId, `lestrade:rca:${incidentId}X sha=0123456789ab\n\nsomewhere else`, alice);
    expect(await writer().find(locator(), null)).toBeNull();
  });
});

// Issue 16, defect 6: ours was found by marker alone ("notes name their author by user id only"),
// so a note by someone else carrying our marker and digest stopped the RCA from being written.
// This test failed before the fix.
describe('PagerDuty writer: a note is ours only when written by the From user', () => {
  it("a note by another user carrying our marker and the RCA's digest is not ours: our own note is written", async () => {
    const rca = doc('## Root cause\nThe pool is exhausted.');
    const probe = await startPagerDutyDouble();
    const probeIncident = probe.addIncident({ title: 'x', serviceId: 'PSVC001' }).id;
    const { api, config } = apiOn(probe, {});
    await pagerdutyWriter(api, config.fromEmail!, config.noteLimit).create(
      { ...locator(), ref: { ...locator().ref, incidentId: probeIncident } },
      rca,
    );
    const copy = probe.notes(probeIncident)[0]!.content;
    await probe.close();
    const mallory = pd.state.addUser('Mallory', 'mallory@example.com');
    pd.state.addNote(incidentId, copy, mallory);
    const w = writer();
    expect(await w.find(locator(), null)).toBeNull();
    const out = await writeRca(w, locator(), rca, null);
    expect(out.action).toBe('created');
    expect(notes().map((n) => n.user.email)).toEqual(['mallory@example.com', FROM]);
    const lookups = pd.requests.filter((r) => r.path === '/users');
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups[0]!.query.query).toBe(FROM);
  });
});

describe('PagerDuty writer under faults: never a second note', () => {
  it.each(['accept-then-drop', 'accept-then-502'] as const)(
    '%s on the POST: retryable; the next attempt finds the note by marker and adds nothing',
    async (kind) => {
      const w = writer();
      pd.faults.add({ method: 'POST', path: /\/notes$/, kind });
      expect(await failure(writeRca(w, locator(), doc('## Root cause\nDisk full.'), null))).toBeInstanceOf(
        RetryableError,
      );
      expect(notes()).toHaveLength(1);
      const again = await writeRca(w, locator(), doc('## Root cause\nDisk full.', 'inv-1'), null);
      expect(again.comment.id).toBe(notes()[0]!.id);
      expect(posts()).toHaveLength(1);
      expect(notes()).toHaveLength(1);
    },
  );

  it.each([
    ['Retry-After', { 'retry-after': '7' }, 7_000],
    ['ratelimit-reset', { 'ratelimit-limit': '960', 'ratelimit-remaining': '0', 'ratelimit-reset': '23' }, 23_000],
    ['no rate-limit headers', {}, 60_000],
  ] as const)(
    '429 with %s is a RetryableError carrying the wait, at once (no in-process sleep or retry)',
    async (_what, headers, wait) => {
      pd.faults.add({
        method: 'POST',
        path: /\/notes$/,
        kind: 'status',
        status: 429,
        headers,
        body: { error: { message: 'Rate Limit Exceeded', code: 2020 } },
      });
      const started = Date.now();
      const err = await failure(writer().create(locator(), doc('x')));
      expect(err).toBeInstanceOf(RetryableError);
      expect((err as RetryableError).retryAfterMs).toBe(wait);
      expect(err.message).toBe(`PagerDuty answered HTTP 429: add note to ${incidentId}: Rate Limit Exceeded`);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(posts()).toHaveLength(1);
      expect(notes()).toHaveLength(0);
    },
  );

  it("400 and 404 are permanent, with PagerDuty's message", async () => {
    pd.faults.add({
      method: 'POST',
      path: /\/notes$/,
      kind: 'status',
      status: 400,
      body: { error: { message: 'Invalid Input Provided', code: 2001, errors: ['Incident is already resolved'] } },
    });
    const bad = await failure(writer().create(locator(), doc('x')));
    expect(bad).toBeInstanceOf(PermanentError);
    expect(bad.message).toBe(
      `PagerDuty answered HTTP 400: add note to ${incidentId}: Invalid Input Provided; Incident is already resolved`,
    );
    const missing = await failure(writeRca(writer(), locatorOf({ id: 'PGONE00' }), doc('x'), null));
    expect(missing).toBeInstanceOf(PermanentError);
    expect(missing.message).toBe('PagerDuty answered HTTP 404: list notes of PGONE00: Not Found');
  });

  it('a 5xx on the read is retryable; an unreachable or silent PagerDuty too (the timeout aborts)', async () => {
    pd.faults.add({
      method: 'GET',
      path: /\/notes$/,
      kind: 'status',
      status: 503,
      body: { error: { message: 'Service Unavailable' } },
    });
    expect(await failure(writer().find(locator(), null))).toBeInstanceOf(RetryableError);
    const { api } = apiOn(pd, { apiUrl: 'http://127.0.0.1:9' });
    const down = await failure(pagerdutyWriter(api, FROM, 25_000).find(locator(), null));
    expect(down).toBeInstanceOf(RetryableError);
    // The first call of a new writer looks its From user up.
    expect(down.message.startsWith(`PagerDuty (look up the user ${FROM}) unreachable: `)).toBe(true);
    pd.faults.add({ method: 'GET', path: /\/notes$/, kind: 'delay', ms: 1_500 });
    const started = Date.now();
    expect(await failure(writer({ requestTimeoutMs: 300 }).find(locator(), null))).toBeInstanceOf(RetryableError);
    expect(Date.now() - started).toBeLessThan(1_200);
  });
});
