import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import type { RcaWriter } from '../../../../src/registration/rca-writer.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { JsmOpsApi } from '../../../../sources/jsm-ops/api.js';
import { jsmOpsWriter } from '../../../../sources/jsm-ops/writer.js';
import { startJsmOpsDouble, type JsmAlert, type JsmOpsDouble } from '../../../helpers/doubles/jsm-ops-double.js';
import { failureOf as fail } from '../../../helpers/failure-of.js';

const doc = (rca: string, inv = 'inv-1') =>
  composeComment({ rca, issueKey: '77', investigationId: inv, allowedHosts: new Set() });

describe.each(['note', 'request'] as const)('JSM Operations write-back, add-note answering %s', (mode) => {
  let jsm: JsmOpsDouble;
  let alert: JsmAlert;
  let writer: RcaWriter;
  const locator = () => ({ key: alert.tinyId, ref: { alertId: alert.id } });
  const notes = () => jsm.notes(alert.id);
  const posts = () => jsm.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes'));
  const patches = () => jsm.requests.filter((r) => r.method === 'PATCH');
  const polls = () => jsm.requests.filter((r) => r.path.includes('/alerts/requests/'));
  const api = (token = 'test-jsm-token') =>
    new JsmOpsApi({
      apiUrl: jsm.url,
      site: jsm.url,
      cloudId: jsm.cloudId,
      email: 'lestrade@example.com',
      apiToken: token,
      timeoutMs: 5_000,
    });

  beforeAll(async () => {
    jsm = await startJsmOpsDouble({ addNoteMode: mode });
  });
  afterAll(async () => {
    await jsm?.close();
  });
  beforeEach(() => {
    jsm.state.alerts.clear();
    jsm.state.processingPolls = 0;
    jsm.requests.length = 0;
    jsm.faults.clear();
    alert = jsm.addAlert({ message: 'Checkout 502s', tinyId: '77' });
    writer = jsmOpsWriter(api(), jsm.url, { limit: 25_000 });
  });
  afterEach(() => {
    expect(jsm.violations).toEqual([]);
    expect(jsm.responseViolations).toEqual([]);
  });

  it('adds one note by the account, basic auth, under the cloudId; polls a request only when given one', async () => {
    const out = await writeRca(writer, locator(), doc('## Root cause\nPool exhausted.'), null);
    expect(out.action).toBe('created');
    expect(notes()).toHaveLength(1);
    const n = notes()[0]!;
    expect(out.comment).toEqual({ id: n.id, url: `${jsm.url}/jira/ops/alerts/${alert.id}` });
    expect(n.owner).toBe('lestrade@example.com');
    expect(n.note).toMatch(/Pool exhausted\.[\s\S]*\n\nlestrade:rca:77 sha=[0-9a-f]{12}$/);
    expect(posts()[0]!.path).toBe(`/jsm/ops/api/${jsm.cloudId}/v1/alerts/${alert.id}/notes`);
    expect(posts()[0]!.body).toEqual({ note: n.note });
    expect(posts()[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('lestrade@example.com:test-jsm-token').toString('base64')}`,
    );
    expect(polls()).toHaveLength(mode === 'request' ? 1 : 0);
  });

  // Issue 16, defect 6: a note by someone else carrying our marker was taken as ours and edited (or,
  // where JSM refuses, the write-back failed for good). This test failed before the fix.
  it('a note by another user carrying our marker is not ours: left alone, and our own note written', async () => {
    const copied = jsm.state.addNote(
      alert.id,
      'Nothing to see.\n\nlestrade:rca:77 sha=0123456789ab',
      'mallory@example.com',
    );
    expect(await writer.find(locator(), null)).toBeNull();
    expect(await writer.find(locator(), copied.id)).toBeNull();
    const out = await writeRca(writer, locator(), doc('## Root cause\nPool exhausted.'), copied.id);
    expect(out.action).toBe('created');
    expect(patches()).toHaveLength(0);
    expect(notes().find((n) => n.id === copied.id)!.note).toBe('Nothing to see.\n\nlestrade:rca:77 sha=0123456789ab');
    expect(notes().filter((n) => n.owner === 'lestrade@example.com')).toHaveLength(1);
  });

  it('unchanged RCA: no request at all; changed RCA: the same note edited in place (PATCH), still one', async () => {
    const first = await writeRca(writer, locator(), doc('## Root cause\nA', 'inv-1'), null);
    expect(await writeRca(writer, locator(), doc('## Root cause\nA', 'inv-2'), first.comment.id)).toEqual({
      action: 'updated',
      comment: first.comment,
    });
    expect(patches()).toHaveLength(0);
    const changed = await writeRca(
      jsmOpsWriter(api(), jsm.url, { limit: 25_000 }),
      locator(),
      doc('## Root cause\nB', 'inv-3'),
      first.comment.id,
    );
    expect(changed).toEqual({ action: 'updated', comment: first.comment });
    expect(notes()).toHaveLength(1);
    expect(notes()[0]!.note).toContain('## Root cause\nB');
    expect(patches().map((r) => r.path)).toEqual([
      `/jsm/ops/api/${jsm.cloudId}/v1/alerts/${alert.id}/notes/${first.comment.id}`,
    ]);
    expect(posts()).toHaveLength(1);
  });

  it('our note deleted between find and edit: a new note is added instead', async () => {
    const first = await writeRca(writer, locator(), doc('## Root cause\nA'), null);
    jsm.faults.add({
      method: 'PATCH',
      path: /\/notes\//,
      kind: 'status',
      status: 404,
      body: { errors: [{ title: 'Alert note not found', code: 'NOT_FOUND' }] },
    });
    const out = await writeRca(writer, locator(), doc('## Root cause\nB'), first.comment.id);
    expect(out.action).toBe('updated');
    expect(notes().map((n) => n.note.includes('## Root cause\nB'))).toEqual([false, true]);
    expect(out.comment.id).toBe(notes()[1]!.id);
  });

  it.each(['accept-then-drop', 'accept-then-502'] as const)(
    '%s on the note POST: retryable, the retry finds it (one in the end)',
    async (kind) => {
      jsm.faults.add({ method: 'POST', path: /\/notes$/, kind });
      expect(await fail(writeRca(writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
      expect((await writeRca(writer, locator(), doc('x'), null)).action).toBe('updated');
      expect(notes()).toHaveLength(1);
      expect(posts()).toHaveLength(1);
    },
  );

  it("429 is retryable with Retry-After or a minute, without sleeping; other 4xx are permanent with JSM's reason", async () => {
    jsm.faults.add(
      {
        method: 'GET',
        path: /\/notes$/,
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '5' },
        body: { errors: [{ title: 'Too many requests', code: 'RATE_LIMITED' }] },
      },
      {
        method: 'POST',
        path: /\/notes$/,
        kind: 'status',
        status: 429,
        body: { errors: [{ title: 'Too many requests', code: 'RATE_LIMITED' }] },
      },
    );
    const started = Date.now();
    const a = (await fail(writeRca(writer, locator(), doc('x'), null))) as RetryableError;
    const b = (await fail(writeRca(writer, locator(), doc('x'), null))) as RetryableError;
    expect([a, b].every((e) => e instanceof RetryableError)).toBe(true);
    expect([a.retryAfterMs, b.retryAfterMs]).toEqual([5_000, 60_000]);
    expect(b.message).toMatch(
      /^JSM Operations answered HTTP 429: add note to alert .*: Too many requests RATE_LIMITED$/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    const denied = await fail(
      writeRca(jsmOpsWriter(api('wrong'), jsm.url, { limit: 25_000 }), locator(), doc('x'), null),
    );
    expect(denied).toBeInstanceOf(PermanentError);
    expect((denied as Error).message).toBe(
      `JSM Operations answered HTTP 401: list notes of alert ${alert.id}: Client must be authenticated to access this resource.`,
    );
    jsm.faults.add({
      method: 'POST',
      path: /\/notes$/,
      kind: 'status',
      status: 403,
      body: { errors: [{ title: 'User does not have permission to update an alert', code: 'FORBIDDEN' }] },
    });
    expect(((await fail(writeRca(writer, locator(), doc('x'), null))) as Error).message).toMatch(
      /HTTP 403: .*User does not have permission to update an alert FORBIDDEN$/,
    );
    expect(notes()).toHaveLength(0);
  });
});

describe('JSM Operations asynchronous add-note (202 + requestId)', () => {
  let jsm: JsmOpsDouble;
  let alert: JsmAlert;
  let writer: RcaWriter;
  const locator = () => ({ key: alert.tinyId, ref: { alertId: alert.id } });
  const posts = () => jsm.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes'));

  beforeEach(async () => {
    jsm = await startJsmOpsDouble({ addNoteMode: 'request' });
    alert = jsm.addAlert({ message: 'Disk full', tinyId: '78' });
    writer = jsmOpsWriter(
      new JsmOpsApi({
        apiUrl: jsm.url,
        site: null,
        cloudId: jsm.cloudId,
        email: jsm.email,
        apiToken: jsm.apiToken,
        timeoutMs: 5_000,
      }),
      null,
      { limit: 25_000 },
    );
  });
  afterEach(async () => {
    expect(jsm.violations).toEqual([]);
    await jsm.close();
  });

  it('still processing → RetryableError; the next attempt polls the same request and counts it written', async () => {
    jsm.state.processingPolls = 2;
    for (let i = 0; i < 2; i++)
      expect(((await fail(writeRca(writer, locator(), doc('x'), null))) as Error).message).toMatch(
        /still processing request/,
      );
    expect(jsm.notes(alert.id)).toHaveLength(0);
    const out = await writeRca(writer, locator(), doc('x'), null);
    expect(out.comment).toEqual({ id: jsm.notes(alert.id)[0]!.id, url: null });
    expect(posts()).toHaveLength(1);
  });

  it('a failed request is added again (exactly one note in the end); a vanished alert is permanent', async () => {
    jsm.state.failNext('Internal server error');
    expect(await fail(writeRca(writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    await writeRca(writer, locator(), doc('x'), null);
    expect(jsm.notes(alert.id)).toHaveLength(1);
    expect(posts()).toHaveLength(2);
    jsm.state.alerts.delete(alert.id);
    const gone = jsm.addAlert({ message: 'gone', tinyId: '79' });
    jsm.state.failNext('Alert does not exist');
    expect(await fail(writeRca(writer, { key: '79', ref: { alertId: gone.id } }, doc('x'), null))).toBeInstanceOf(
      PermanentError,
    );
  });
});
