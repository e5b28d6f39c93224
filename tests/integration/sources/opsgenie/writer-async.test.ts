import { afterEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { failureOf as fail } from '../../../helpers/failure-of.js';
import { opsgenieDoc as doc, opsgenieWriterSuite } from '../../../helpers/opsgenie-writer-suite.js';

describe('OpsGenie write-back: the asynchronous request, seen through (processing, failed, lost, expired) without a second note', () => {
  const t = opsgenieWriterSuite();
  const { locator, notes, posts, polls, makeWriter } = t;

  afterEach(() => {
    expect(t.og.violations).toEqual([]);
    expect(t.og.responseViolations).toEqual([]);
  });

  it('request still processing: RetryableError with a short wait and no note; the next attempt polls the same request (one POST)', async () => {
    t.og.state.processingPolls = 1;
    const err = await fail(writeRca(t.writer, locator(), doc('x'), null));
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as RetryableError).retryAfterMs).toBe(2_000);
    expect((err as Error).message).toMatch(/still processing request/);
    expect(notes()).toHaveLength(0);
    const out = await writeRca(t.writer, locator(), doc('x'), null);
    expect(out.action).toBe('created');
    expect(notes()).toHaveLength(1);
    expect(posts()).toHaveLength(1);
    expect(polls()).toHaveLength(2);
  });

  it('another process (a fresh writer) given the resume token polls the same request instead of adding a second note', async () => {
    t.og.state.processingPolls = 2;
    const err = (await fail(writeRca(t.writer, locator(), doc('x'), null))) as RetryableError;
    expect(err.resumeToken).toEqual(expect.any(String));
    const elsewhere = makeWriter();
    const again = (await fail(
      writeRca(elsewhere, locator(), doc('x'), null, { resume: err.resumeToken! }),
    )) as RetryableError;
    expect(again.message).toMatch(/still processing request/);
    const out = await writeRca(makeWriter(), locator(), doc('x'), null, { resume: again.resumeToken! });
    expect(out.action).toBe('created');
    expect(posts()).toHaveLength(1);
    expect(notes()).toHaveLength(1);
    // Without the token a fresh writer has no way to know: it would post again (what the token prevents).
    expect(polls()).toHaveLength(3);
  });

  it('a failed request is retried: the next attempt adds it again, and there is still exactly one note', async () => {
    t.og.state.failNext('Internal error while processing the request');
    const err = await fail(writeRca(t.writer, locator(), doc('x'), null));
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toMatch(/failed request .*Internal error/);
    expect(notes()).toHaveLength(0);
    await writeRca(t.writer, locator(), doc('x'), null);
    expect(notes()).toHaveLength(1);
    expect(posts()).toHaveLength(2);
  });

  it('a request that failed because the alert is gone is permanent', async () => {
    t.og.state.failNext('Alert does not exist');
    const err = await fail(writeRca(t.writer, locator(), doc('x'), null));
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe(`OpsGenie could not add the note to alert ${t.alert.id}: Alert does not exist`);
  });

  it('a lost answer while OpsGenie is still processing: the retry waits for the note instead of adding it again', async () => {
    t.og.state.processingPolls = 5;
    t.og.faults.add({ method: 'POST', path: /\/notes$/, kind: 'accept-then-drop' });
    expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    const waiting = await fail(writeRca(t.writer, locator(), doc('x'), null));
    expect((waiting as Error).message).toMatch(/answer to adding the note .* was lost; waiting/);
    expect(posts()).toHaveLength(1);
    t.og.state.settle();
    expect((await writeRca(t.writer, locator(), doc('x'), null)).action).toBe('updated');
    expect(notes()).toHaveLength(1);
  });

  it('a POST that never reached OpsGenie is added again once the grace period has passed', async () => {
    t.og.faults.add({
      method: 'POST',
      path: /\/notes$/,
      kind: 'status',
      status: 502,
      body: { message: 'Bad Gateway', took: 0, requestId: 'r' },
    });
    expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    t.now += 31_000;
    expect((await writeRca(t.writer, locator(), doc('x'), null)).action).toBe('created');
    expect(notes()).toHaveLength(1);
    expect(posts()).toHaveLength(2);
  });

  it('a request OpsGenie never heard of (expired) counts as lost after a while, and the note is added again (once)', async () => {
    t.og.state.processingPolls = 1;
    expect(await fail(writeRca(t.writer, locator(), doc('x'), null))).toBeInstanceOf(RetryableError);
    t.og.state.requests.clear();
    t.now += 11 * 60_000;
    expect(((await fail(writeRca(t.writer, locator(), doc('x'), null))) as Error).message).toMatch(/treated as lost/);
    t.og.state.processingPolls = 0;
    await writeRca(t.writer, locator(), doc('x'), null);
    expect(notes()).toHaveLength(1);
    expect(posts()).toHaveLength(2);
  });
});
