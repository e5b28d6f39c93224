import { afterEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { failureOf as fail } from '../../../helpers/failure-of.js';
import { opsgenieDoc as doc, opsgenieWriterSuite } from '../../../helpers/opsgenie-writer-suite.js';

describe('OpsGenie write-back: one alert note per distinct RCA, through the asynchronous notes API', () => {
  const t = opsgenieWriterSuite();
  const { locator, notes, posts, polls, makeWriter } = t;

  afterEach(() => {
    expect(t.og.violations).toEqual([]);
    expect(t.og.responseViolations).toEqual([]);
  });

  it('adds one note (GenieKey, identifierType=id, our user), and counts it written once the request succeeded', async () => {
    const out = await writeRca(t.writer, locator(), doc('## Root cause\nPool exhausted.'), null);
    expect(out.action).toBe('created');
    expect(notes()).toHaveLength(1);
    const n = notes()[0]!;
    expect(out.comment).toEqual({ id: n.offset, url: null });
    expect(n.owner).toBe('Lestrade');
    expect(n.note).toContain('Pool exhausted.');
    expect(n.note).toMatch(/\n\nlestrade:rca:42 sha=[0-9a-f]{12}$/);
    const post = posts()[0]!;
    expect(post.headers.authorization).toBe('GenieKey test-genie-key');
    expect(post.query).toEqual({ identifierType: 'id' });
    expect(post.body).toMatchObject({ user: 'Lestrade', source: 'Lestrade' });
    expect(polls()).toHaveLength(1);
  });

  it('an unchanged RCA (from another investigation) adds nothing; a changed one adds a note, as notes cannot be edited', async () => {
    const first = await writeRca(t.writer, locator(), doc('## Root cause\nA', 'inv-1'), null);
    const again = await writeRca(t.writer, locator(), doc('## Root cause\nA', 'inv-2'), first.comment.id);
    expect(again).toEqual({ action: 'updated', comment: first.comment });
    expect(posts()).toHaveLength(1);
    const changed = await writeRca(makeWriter(), locator(), doc('## Root cause\nB', 'inv-3'), null);
    expect(changed.comment.id).not.toBe(first.comment.id);
    await writeRca(makeWriter(), locator(), doc('## Root cause\nB', 'inv-4'), null);
    expect(notes().map((n) => n.note.match(/## Root cause\n(\w)/)?.[1])).toEqual(['A', 'B']);
  });

  it.each(['accept-then-drop', 'accept-then-502'] as const)(
    '%s on the note POST: retryable, and the retry finds the note (one in the end)',
    async (kind) => {
      t.og.faults.add({ method: 'POST', path: /\/notes$/, kind });
      expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
      expect(notes()).toHaveLength(1);
      const retry = await writeRca(t.writer, locator(), doc('x'), null);
      expect(retry).toEqual({ action: 'updated', comment: { id: notes()[0]!.offset, url: null } });
      expect(notes()).toHaveLength(1);
      expect(posts()).toHaveLength(1);
    },
  );

  // Issue 16, defect 6: a note by someone else carrying our marker (even with the RCA's own digest)
  // was taken as ours, so no RCA was written. This test failed before the fix.
  it('a note by another user carrying our marker is not ours: our own note is written', async () => {
    const rca = doc('## Root cause\nPool exhausted.');
    const mine = await writeRca(t.makeWriter(), locator(), rca, null);
    const copy = notes()[0]!.note;
    t.og.state.alerts.get(t.alert.id)!.notes.length = 0;
    t.og.state.addNote(t.alert.id, copy, 'mallory@example.com');
    expect(mine.action).toBe('created');
    expect(await t.writer.find(locator(), null)).toBeNull();
    const out = await writeRca(t.writer, locator(), rca, null);
    expect(out.action).toBe('created');
    expect(notes().map((n) => n.owner)).toEqual(['mallory@example.com', 'Lestrade']);
  });

  it('finds our note past the first page of notes, ignoring notes of others and about other alerts', async () => {
    for (let i = 0; i < 120; i++) t.og.state.addNote(t.alert.id, `note ${i}`);
    t.og.state.addNote(t.alert.id, 'about another alert\n\nlestrade:rca:43 sha=0123456789ab', 'Lestrade');
    const ours = t.og.state.addNote(t.alert.id, 'RCA\n\nlestrade:rca:42 sha=0123456789ab', 'Lestrade');
    t.og.state.addNote(t.alert.id, 'a human note after ours');
    expect(await t.writer.find(locator(), null)).toEqual({ id: ours.offset, url: null });
    const pages = t.og.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/notes'));
    expect(pages.map((r) => r.query.offset)).toEqual([undefined, expect.any(String)]);
    expect(pages.every((r) => r.query.order === 'asc' && r.query.limit === '100')).toBe(true);
  });

  it("429 is retryable with OpsGenie's wait (Retry-After, X-RateLimit-Period-In-Sec) or a minute, without sleeping", async () => {
    const body = { message: 'You are making too many requests!', took: 0, requestId: 'r' };
    t.og.faults.add(
      { method: 'GET', path: /\/notes$/, kind: 'status', status: 429, headers: { 'retry-after': '7' }, body },
      {
        method: 'GET',
        path: /\/notes$/,
        kind: 'status',
        status: 429,
        headers: { 'x-ratelimit-state': 'THROTTLED', 'x-ratelimit-period-in-sec': '30' },
        body,
      },
      { method: 'POST', path: /\/notes$/, kind: 'status', status: 429, body },
    );
    const started = Date.now();
    const waits = [];
    for (let i = 0; i < 3; i++) {
      const err = await fail(writeRca(t.writer, locator(), doc('x'), null));
      expect(err).toBeInstanceOf(RetryableError);
      expect((err as Error).message).toMatch(/^OpsGenie answered HTTP 429: .*You are making too many requests!/);
      waits.push((err as RetryableError).retryAfterMs);
    }
    expect(waits).toEqual([7_000, 30_000, 60_000]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(notes()).toHaveLength(0);
    // A 429 refused the POST before anything happened: the retry adds the note without waiting for it to show up.
    expect((await writeRca(t.writer, locator(), doc('x'), null)).action).toBe('created');
    expect(notes()).toHaveLength(1);
  });

  it("other 4xx are permanent with OpsGenie's message; 5xx and timeouts are retryable", async () => {
    const denied = await fail(writeRca(makeWriter('wrong-key'), locator(), doc('x'), null));
    expect(denied).toBeInstanceOf(PermanentError);
    expect((denied as Error).message).toBe(
      `OpsGenie answered HTTP 401: list notes of alert ${t.alert.id}: Could not authenticate`,
    );
    t.og.faults.add({
      method: 'POST',
      path: /\/notes$/,
      kind: 'status',
      status: 403,
      body: { message: 'You do not have permission to add notes', took: 0, requestId: 'r' },
    });
    expect(((await fail(writeRca(t.writer, locator(), doc('x'), null))) as Error).message).toMatch(
      /HTTP 403: add note to alert .*: You do not have permission to add notes$/,
    );
    t.og.faults.add({ method: 'GET', path: /\/notes$/, kind: 'status', status: 503 });
    expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    t.og.faults.add({ method: 'GET', path: /\/notes$/, kind: 'delay', ms: 1_000 });
    const slow = await fail(writeRca(makeWriter('test-genie-key', 200), locator(), doc('x'), null));
    expect(slow).toBeInstanceOf(RetryableError);
    expect((slow as Error).message).toMatch(/^OpsGenie \(list notes of alert .*\) unreachable: /);
    expect(notes()).toHaveLength(0);
  });
});
