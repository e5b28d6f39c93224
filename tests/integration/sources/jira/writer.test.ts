import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import type { RcaWriter } from '../../../../src/registration/rca-writer.js';
import { cloudApi } from '../../../../sources/jira/cloud-api.js';
import { dataCenterApi } from '../../../../sources/jira/datacenter-api.js';
import { textOf } from '../../../../sources/jira/text-of.js';
import { jiraWriter } from '../../../../sources/jira/writer.js';
import { startJiraDouble } from '../../../helpers/doubles/jira-double.js';
import { jiraDoubleSuite } from '../../../helpers/jira-double-suite.js';

const locator = { key: 'OPS-7', ref: { issueKey: 'OPS-7', id: '10001' } };
const MARKER = 'lestrade:rca:OPS-7';
const doc = (rca: string) =>
  composeComment({ rca, issueKey: 'OPS-7', investigationId: 'inv-1', allowedHosts: new Set() });
const alice = {
  accountId: '712020:alice',
  name: 'alice',
  key: 'JIRAUSER10100',
  displayName: 'Alice',
  emailAddress: 'alice@example.com',
};

describe.each(['cloud', 'datacenter'] as const)('Jira write-back (%s)', (deployment) => {
  const d = jiraDoubleSuite(deployment, (jira) => {
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout 502s' });
  });
  let writer: RcaWriter;
  const api = () =>
    deployment === 'cloud'
      ? cloudApi(d.jira.url, 'lestrade@example.com', 'test-api-token')
      : dataCenterApi(d.jira.url, 'test-pat');
  const comments = () => d.jira.state.comments('OPS-7');
  const posts = () => d.jira.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comment'));

  beforeEach(() => {
    writer = jiraWriter(api(), 32_767);
  });
  afterEach(() => {
    expect(d.jira.violations).toEqual([]);
    expect(d.jira.responseViolations).toEqual([]);
  });

  it("creates one comment in the deployment's format, with the marker property set in the same request", async () => {
    const out = await writeRca(writer, locator, doc('## Root cause\nPool exhausted.'), null);
    expect(out.action).toBe('created');
    expect(comments()).toHaveLength(1);
    const c = comments()[0]!;
    expect(out.comment).toEqual({ id: c.id, url: `${d.jira.url}/browse/OPS-7?focusedCommentId=${c.id}` });
    expect(c.properties).toEqual({ lestrade: { marker: MARKER } });
    expect(posts()[0]!.path).toBe(`${d.jira.apiPath}/issue/OPS-7/comment`);
    expect((posts()[0]!.body as { properties: unknown }).properties).toEqual([
      { key: 'lestrade', value: { marker: MARKER } },
    ]);
    expect(d.jira.requests.some((r) => r.method === 'PUT' && r.path.includes('/properties/'))).toBe(false);
    if (deployment === 'cloud') expect(c.body).toMatchObject({ type: 'doc', version: 1 });
    else expect(c.body).toEqual(expect.stringMatching(/^h3\. Lestrade/));
    expect(textOf(c.body)).toContain('Pool exhausted.');
    expect(textOf(c.body)).toContain(MARKER);
  });

  it('edits the same comment on the next write, by the stored id', async () => {
    const first = await writeRca(writer, locator, doc('first'), null);
    const second = await writeRca(writer, locator, doc('second'), first.comment.id);
    expect(second).toEqual({ action: 'updated', comment: first.comment });
    expect(comments()).toHaveLength(1);
    expect(textOf(comments()[0]!.body)).toContain('second');
    expect(
      d.jira.requests.filter(
        (r) => r.method === 'PUT' && r.path === `${d.jira.apiPath}/issue/OPS-7/comment/${first.comment.id}`,
      ),
    ).toHaveLength(1);
  });

  it('without a stored id, finds our comment by its property among many, past the first page', async () => {
    for (let i = 0; i < 120; i++) d.jira.addComment({ issueKey: 'OPS-7', body: `note ${i}`, author: alice });
    const ours = d.jira.addComment({
      issueKey: 'OPS-7',
      body: 'no marker in this text',
      properties: { lestrade: { marker: MARKER } },
    });
    expect(await writer.find(locator, null)).toEqual({
      id: ours.id,
      url: expect.stringContaining(`focusedCommentId=${ours.id}`),
    });
    const pages = d.jira.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/issue/OPS-7/comment'));
    expect(pages.map((r) => r.query.startAt)).toEqual(['0', '100']);
  });

  it("falls back to the footer text when the property is missing, and ignores others' comments that quote the marker", async () => {
    d.jira.addComment({
      issueKey: 'OPS-7',
      body: `quoting ${MARKER}`,
      author: alice,
      properties: { lestrade: { marker: MARKER } },
    });
    d.jira.addComment({
      issueKey: 'OPS-7',
      body: 'ours, about another issue',
      properties: { lestrade: { marker: 'lestrade:rca:OPS-8' } },
    });
    expect(await writer.find(locator, null)).toBeNull();
    const ours = d.jira.addComment({ issueKey: 'OPS-7', body: `RCA … ${MARKER}` });
    expect((await writer.find(locator, null))?.id).toBe(ours.id);
  });

  it('a stored id that was deleted or is not ours falls back to the search', async () => {
    const theirs = d.jira.addComment({ issueKey: 'OPS-7', body: 'human', author: alice });
    expect(await writer.find(locator, '99999')).toBeNull();
    expect(await writer.find(locator, theirs.id)).toBeNull();
    const ours = d.jira.addComment({ issueKey: 'OPS-7', body: 'x', properties: { lestrade: { marker: MARKER } } });
    expect((await writer.find(locator, theirs.id))?.id).toBe(ours.id);
  });

  it.each(['accept-then-drop', 'accept-then-502'] as const)(
    '%s on the create: retryable, and the retry edits that comment (one in the end)',
    async (kind) => {
      d.jira.faults.add({ method: 'POST', path: /\/issue\/OPS-7\/comment$/, kind });
      const err = await writeRca(writer, locator, doc('try one'), null).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetryableError);
      expect(comments()).toHaveLength(1);
      const retry = await writeRca(writer, locator, doc('try two'), null);
      expect(retry.action).toBe('updated');
      expect(comments()).toHaveLength(1);
      expect(retry.comment.id).toBe(comments()[0]!.id);
      expect(textOf(comments()[0]!.body)).toContain('try two');
      expect(d.jira.requests.some((r) => r.path.endsWith(`/comment/${retry.comment.id}/properties/lestrade`))).toBe(
        true,
      );
    },
  );

  it("429 is retryable with Jira's Retry-After (seconds), or its X-RateLimit-Reset date", async () => {
    d.jira.faults.add({
      method: 'POST',
      path: /\/comment$/,
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
    });
    const err = await writeRca(writer, locator, doc('x'), null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as RetryableError).retryAfterMs).toBe(7_000);
    expect((err as Error).message).toMatch(/^Jira answered HTTP 429/);

    const reset = new Date(Date.now() + 90_000).toISOString();
    d.jira.faults.add({
      method: 'GET',
      path: /\/comment$/,
      kind: 'status',
      status: 429,
      headers: { 'x-ratelimit-reset': reset },
    });
    const err2 = (await writeRca(writer, locator, doc('x'), null).catch((e: unknown) => e)) as RetryableError;
    expect(err2).toBeInstanceOf(RetryableError);
    expect(err2.retryAfterMs).toBeGreaterThan(80_000);
    expect(err2.retryAfterMs).toBeLessThanOrEqual(90_000);
    expect(comments()).toHaveLength(0);
  });

  it("5xx is retryable; 400 is permanent with Jira's own message", async () => {
    d.jira.faults.add({ method: 'GET', path: /\/comment$/, kind: 'status', status: 503 });
    expect(await writeRca(writer, locator, doc('x'), null).catch((e: unknown) => e)).toBeInstanceOf(RetryableError);
    const strict = await startJiraDouble({ deployment, commentLimit: 1_500 });
    try {
      strict.addIssue({ key: 'OPS-7', summary: 's' });
      const w = jiraWriter(
        deployment === 'cloud'
          ? cloudApi(strict.url, 'lestrade@example.com', 'test-api-token')
          : dataCenterApi(strict.url, 'test-pat'),
        32_767,
      );
      const err = await writeRca(w, locator, doc(`## Root cause\n${'long '.repeat(2000)}`), null).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as Error).message).toMatch(
        /^Jira answered HTTP 400: add comment to OPS-7: comment: The entered text is too long\. It exceeds the allowed limit of 1,500 characters\./,
      );
      expect(strict.state.comments('OPS-7')).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('fits the body to commentLimit, so a Jira with a lower limit accepts it', async () => {
    const strict = await startJiraDouble({ deployment, commentLimit: 3_000 });
    try {
      strict.addIssue({ key: 'OPS-7', summary: 's' });
      const w = jiraWriter(
        deployment === 'cloud'
          ? cloudApi(strict.url, 'lestrade@example.com', 'test-api-token')
          : dataCenterApi(strict.url, 'test-pat'),
        3_000,
      );
      const rca = Array.from({ length: 8 }, (_, i) => `## Part ${i}\n${'evidence '.repeat(120)}`).join('\n\n');
      await writeRca(w, locator, doc(rca), null);
      expect(textOf(strict.state.comments('OPS-7')[0]!.body)).toMatch(/cut to fit Jira's comment limit/);
      expect(strict.violations).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('bad credentials are permanent (401)', async () => {
    const bad = jiraWriter(
      deployment === 'cloud'
        ? cloudApi(d.jira.url, 'lestrade@example.com', 'wrong')
        : dataCenterApi(d.jira.url, 'wrong'),
      32_767,
    );
    const err = await bad.find(locator, null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(/HTTP 401.*not authenticated/);
  });
});
