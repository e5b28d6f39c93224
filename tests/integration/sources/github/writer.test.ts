import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { writeRca, WriteRefusedError } from '../../../../src/delivery/write-rca.js';
import { githubWriter } from '../../../../sources/github/writer.js';
import { locatorFor } from '../../../../sources/github/map.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { apiOn, BOT, seededDouble } from '../../../fixtures/github/double-setup.js';

let gh: GithubDouble;
const locator = locatorFor('octo/app', 12);
const doc = (rca: string) =>
  composeComment({ rca, issueKey: locator.key, investigationId: 'inv-1', allowedHosts: new Set() });
const comments = () => gh.state.comments('octo', 'app', 12);
const posts = () => gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'));

beforeEach(async () => {
  gh = await seededDouble();
  gh.addRepo({ owner: 'octo', name: 'app', private: true });
  gh.addIssue({ owner: 'octo', repo: 'app', number: 12, title: 'Checkout is slow' });
  gh.addIssue({ owner: 'octo', repo: 'app', number: 13, title: 'Another one' });
});
afterEach(async () => {
  expect(gh.violations).toEqual([]);
  expect(gh.responseViolations).toEqual([]);
  await gh.close();
});

function writer(over: Record<string, unknown> = {}, pacing = false) {
  const { api, config } = apiOn(gh, over, pacing);
  return githubWriter(api, config);
}

describe('GitHub writer: find, create, update', () => {
  it('creates one comment with the RCA and our marker, finds it by id or by marker, and edits it in place', async () => {
    const w = writer();
    expect(await w.find(locator, null)).toBeNull();
    const created = await w.create(locator, doc('## Root cause\nThe pool is exhausted.'));
    expect(comments()).toHaveLength(1);
    expect(comments()[0]).toMatchObject({ user: { login: BOT } });
    expect(comments()[0]!.body).toContain('The pool is exhausted.');
    expect(comments()[0]!.body.endsWith('<!-- lestrade:rca:octo/app#12 -->')).toBe(true);
    expect(created).toEqual({
      id: String(comments()[0]!.id),
      url: `https://github.com/octo/app/issues/12#issuecomment-${comments()[0]!.id}`,
    });

    expect(await w.find(locator, created.id)).toEqual(created);
    expect(await w.find(locator, null)).toEqual(created);
    expect(await w.find(locator, '999999')).toEqual(created);

    const out = await writeRca(w, locator, doc('## Root cause\nA slow query.'), created.id);
    expect(out).toEqual({ action: 'updated', comment: created });
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.body).toContain('A slow query.');
    expect(comments()[0]!.body).not.toContain('pool is exhausted');
  });

  it("never takes a forged marker in someone else's comment for ours", async () => {
    const forged = gh.addComment({
      owner: 'octo',
      repo: 'app',
      issue_number: 12,
      user: 'mallory',
      body: 'trust me\n\n<!-- lestrade:rca:octo/app#12 -->',
    });
    const w = writer();
    expect(await w.find(locator, null)).toBeNull();
    expect(await w.find(locator, String(forged.id))).toBeNull();
    const out = await writeRca(w, locator, doc('## Root cause\nReal.'), String(forged.id));
    expect(out.action).toBe('created');
    expect(comments().map((c) => c.user.login)).toEqual(['mallory', BOT]);
    expect(forged.body).toBe('trust me\n\n<!-- lestrade:rca:octo/app#12 -->');
  });

  it('does not take our comment on another issue for this one', async () => {
    const w = writer();
    const on13 = await w.create(locatorFor('octo/app', 13), doc('other'));
    expect(await w.find(locator, on13.id)).toBeNull();
  });

  it('follows every page of comments to find ours', async () => {
    for (let i = 0; i < 130; i++)
      gh.addComment({ owner: 'octo', repo: 'app', issue_number: 12, user: 'alice', body: `note ${i}` });
    const w = writer();
    const created = await w.create(locator, doc('late'));
    expect(await w.find(locator, null)).toEqual(created);
    expect(
      gh.requests.filter((r) => r.method === 'GET' && r.path === '/repos/octo/app/issues/12/comments'),
    ).toHaveLength(2);
  });
});

describe('GitHub writer under faults: never a second comment', () => {
  it.each(['accept-then-drop', 'accept-then-502'] as const)(
    '%s on the POST: the attempt fails retryably, the next finds the comment by marker and edits it',
    async (kind) => {
      const w = writer();
      gh.faults.add({ method: 'POST', path: /\/issues\/12\/comments$/, kind });
      const err = await writeRca(w, locator, doc('first'), null).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetryableError);
      expect(posts()).toHaveLength(1);
      expect(comments()).toHaveLength(1);

      const again = await writeRca(w, locator, doc('second'), null);
      expect(again.action).toBe('updated');
      expect(posts()).toHaveLength(1);
      expect(comments()).toHaveLength(1);
      expect(comments()[0]!.body).toContain('second');
    },
  );

  it('429 with Retry-After: 7 surfaces at once (no in-process wait or retry) as RetryableError of 7 s', async () => {
    const w = writer({}, true);
    gh.faults.add({
      method: 'POST',
      path: /\/comments$/,
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { message: 'Too many requests' },
    });
    const started = Date.now();
    const err = await w.create(locator, doc('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as RetryableError).retryAfterMs).toBe(7_000);
    // The plugin's own pacing may hold a write up to 3 s; honouring Retry-After in-process would take 7.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(posts()).toHaveLength(1);
    expect(comments()).toHaveLength(0);
  });

  it('a secondary rate limit (403, no retry-after) is retryable after at least a minute', async () => {
    const w = writer({}, true);
    gh.faults.add({
      method: 'POST',
      path: /\/comments$/,
      kind: 'status',
      status: 403,
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url: 'https://docs.github.com/rest',
      },
    });
    const err = await w.create(locator, doc('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as RetryableError).retryAfterMs).toBeGreaterThanOrEqual(60_000);
    expect(posts()).toHaveLength(1);
  });

  it('an exhausted primary rate limit (403, x-ratelimit-remaining 0) waits until the reset', async () => {
    const w = writer();
    const reset = Math.floor(Date.now() / 1000) + 120;
    gh.faults.add({
      method: 'GET',
      path: /\/comments$/,
      kind: 'status',
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      body: { message: 'API rate limit exceeded for user.' },
    });
    const err = await w.find(locator, null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as RetryableError).retryAfterMs).toBeGreaterThan(110_000);
    expect((err as RetryableError).retryAfterMs).toBeLessThanOrEqual(122_000);
  });

  it("404 and 422 are permanent, with GitHub's message", async () => {
    const w = writer();
    const missing = await writeRca(w, locatorFor('octo/app', 404), doc('x'), null).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PermanentError);
    expect((missing as Error).message).toBe('github answered HTTP 404: Not Found');
    gh.faults.add({
      method: 'PATCH',
      path: /\/issues\/comments\/\d+$/,
      kind: 'status',
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long' }],
      },
    });
    const created = await w.create(locator, doc('x'));
    const invalid = await w.update(locator, created, doc('y')).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(PermanentError);
    expect((invalid as Error).message).toBe('github answered HTTP 422: Validation Failed; body is too long');
  });

  it('a read hit by a 502 is retried once in-process; twice, it fails retryably', async () => {
    const w = writer();
    gh.faults.add({ method: 'GET', path: /\/issues\/12\/comments$/, kind: 'status', status: 502 });
    expect(await w.find(locator, null)).toBeNull();
    gh.faults.add({ method: 'GET', path: /\/issues\/12\/comments$/, kind: 'status', status: 502, times: 2 });
    expect(await w.find(locator, null).catch((e: unknown) => e)).toBeInstanceOf(RetryableError);
  });

  it('an unreachable GitHub is retryable', async () => {
    const { createGitHubApi } = await import('../../../../sources/github/index.js');
    const { configFor } = await import('../../../fixtures/github/double-setup.js');
    const config = configFor(gh, { apiUrl: 'http://127.0.0.1:9' });
    const err = await githubWriter(createGitHubApi(config, { pacing: false }), config)
      .create(locator, doc('x'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toMatch(/^github unreachable: /);
  });
});

describe('our identity', () => {
  it('an installation token given as GITHUB_TOKEN (GET /user forbidden) is a permanent, explained failure', async () => {
    const { startGithubDouble } = await import('../../../helpers/doubles/github-double.js');
    const botToken = await startGithubDouble();
    try {
      botToken.addRepo({ owner: 'octo', name: 'app', private: true });
      botToken.addIssue({ owner: 'octo', repo: 'app', number: 12, title: 'x' });
      const { api, config } = apiOn(botToken);
      const err = await githubWriter(api, config)
        .find(locator, null)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as Error).message).toMatch(
        /^github: cannot tell whose GITHUB_TOKEN this is .*use a user's token or GitHub App credentials$/,
      );
    } finally {
      await botToken.close();
    }
  });
});

describe('public repositories', () => {
  it('are refused unless allowed, and nothing is posted', async () => {
    gh.addRepo({ owner: 'octo', name: 'public-app', private: false });
    gh.addIssue({ owner: 'octo', repo: 'public-app', number: 1, title: 'x' });
    const pub = locatorFor('octo/public-app', 1);
    expect(await writer().refusal!(pub)).toBe(
      'github: octo/public-app is public; set sources.github.allowPublicRepos to post there',
    );
    expect(await writeRca(writer(), pub, doc('x'), null).catch((e: unknown) => e)).toBeInstanceOf(WriteRefusedError);
    expect(gh.state.comments('octo', 'public-app', 1)).toHaveLength(0);
    expect(await writer({ allowPublicRepos: ['octo/public-app'] }).refusal!(pub)).toBeNull();
    expect(await writer().refusal!(locator)).toBeNull();
  });
});
