import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError, RetryableError } from '../../../../src/errors.js';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import type { DeliveryOutcome, WebhookHandler } from '../../../../src/registration/source.js';
import { github } from '../../../../sources/github/index.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { BOT, configFor, seededDouble } from '../../../fixtures/github/double-setup.js';
import {
  commentCreated,
  EXAMPLE_REPO,
  issuesClosed,
  issuesLabeled,
  issuesOpened,
  ping,
  signed,
} from '../../../fixtures/github/payloads.js';

/** The webhook handler against the GitHub double: trust checks and context reads are real API calls. */
let gh: GithubDouble;
let handler: WebhookHandler;
let logs: Array<Record<string, unknown>>;
const { owner, name } = EXAMPLE_REPO;

beforeEach(async () => {
  gh = await seededDouble();
  gh.setPermission(owner, name, 'writer', 'write');
  gh.setPermission(owner, name, 'maintainer', 'maintain');
  gh.setPermission(owner, name, 'triager', 'triage');
  logs = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      logs.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  handler = github.webhook!(configFor(gh), { log: createLogger('debug', sink), env: {} });
});
afterEach(async () => {
  expect(gh.violations).toEqual([]);
  await gh.close();
});

async function deliver(event: string, payload: Record<string, unknown>): Promise<DeliveryOutcome> {
  const s = signed(event, payload, 'whsec');
  const delivery = { headers: s.headers, rawBody: Buffer.from(s.body) };
  expect(await handler.verify!(delivery)).toEqual({ ok: true });
  return handler.handle(JSON.parse(s.body), delivery);
}

const issuesOf = (o: DeliveryOutcome): Issue[] => {
  if (o.kind !== 'issues') throw new Error(`expected issues, got ${JSON.stringify(o)}`);
  return o.issues;
};

describe('the trigger label', () => {
  it('added by someone with write or maintain access starts an investigation of the issue', async () => {
    for (const sender of ['writer', 'maintainer', owner]) {
      const [issue] = issuesOf(await deliver('issues', issuesLabeled({ sender })));
      expect(issue).toMatchObject({
        identity: 'Codertocat/Hello-World#1',
        status: 'open',
        locator: { key: 'Codertocat/Hello-World#1' },
      });
    }
    expect(
      gh.requests.filter((r) => r.path === `/repos/${owner}/${name}/collaborators/writer/permission`),
    ).toHaveLength(1);
  });

  it('added by someone with triage or read access, or none, starts nothing', async () => {
    expect(await deliver('issues', issuesLabeled({ sender: 'triager' }))).toEqual({
      kind: 'ignored',
      reason: '@triager (triage) may not start investigations: it takes write, maintain or admin',
    });
    expect(await deliver('issues', issuesLabeled({ sender: 'stranger' }))).toMatchObject({
      kind: 'ignored',
      reason: expect.stringContaining('@stranger (none)'),
    });
  });

  it('opened with the label, then labelled again, is one identity (intake keeps one investigation)', async () => {
    const [opened] = issuesOf(await deliver('issues', issuesOpened({ sender: 'writer', labels: ['lestrade'] })));
    const [labelled] = issuesOf(await deliver('issues', issuesLabeled({ sender: 'writer' })));
    expect(opened!.identity).toBe(labelled!.identity);
  });

  it('brings the recent comments, not ours, as untrusted context', async () => {
    gh.addComment({
      owner,
      repo: name,
      issue_number: 1,
      user: 'alice',
      body: 'It started after the deploy',
      created_at: '2019-05-15T16:00:00Z',
    });
    gh.addComment({
      owner,
      repo: name,
      issue_number: 1,
      user: BOT,
      body: 'old RCA\n\n<!-- lestrade:rca:Codertocat/Hello-World#1 -->',
    });
    // Adapted: the issue's comment count as GitHub would send it for the seeded comments.
    const payload = issuesLabeled({ sender: 'writer' });
    const [issue] = issuesOf(await deliver('issues', { ...payload, issue: { ...payload.issue, comments: 2 } }));
    expect(issue!.untrusted).toEqual([
      { label: 'comment by @alice at 2019-05-15T16:00:00Z', text: 'It started after the deploy' },
    ]);
  });

  it('still starts, without comments, when they cannot be read; a failed trust check fails the delivery', async () => {
    const payload = issuesLabeled({ sender: 'writer' });
    gh.faults.add({ method: 'GET', path: /\/comments$/, kind: 'status', status: 404 });
    const [issue] = issuesOf(await deliver('issues', { ...payload, issue: { ...payload.issue, comments: 3 } }));
    expect(issue!.untrusted).toBeUndefined();
    expect(logs.some((l) => l.msg === 'could not read recent comments; investigating without them')).toBe(true);

    gh.faults.add({ method: 'GET', path: /\/permission$/, kind: 'status', status: 503, times: 2 });
    await expect(deliver('issues', payload)).rejects.toBeInstanceOf(RetryableError);
  });
});

describe('the command comment', () => {
  it('by a trusted author re-investigates under a new identity, on the same issue', async () => {
    const [issue] = issuesOf(
      await deliver('issue_comment', commentCreated({ id: 5001, login: 'writer', association: 'COLLABORATOR' })),
    );
    expect(issue).toMatchObject({
      identity: 'Codertocat/Hello-World#1/comment/5001',
      fingerprint: 'Codertocat/Hello-World#1',
      locator: { key: 'Codertocat/Hello-World#1' },
    });
  });

  it('by our own login is an echo, even without the marker', async () => {
    expect(await deliver('issue_comment', commentCreated({ login: BOT, association: 'COLLABORATOR' }))).toEqual({
      kind: 'ignored',
      reason: 'our own comment',
    });
  });

  it('by an untrusted author starts nothing, and no API call is made for it', async () => {
    expect(await deliver('issue_comment', commentCreated({ login: 'mallory', association: 'NONE' }))).toMatchObject({
      kind: 'ignored',
    });
    expect(gh.requests).toHaveLength(0);
  });
});

describe('other deliveries', () => {
  it('closing the issue resolves it', async () => {
    expect(issuesOf(await deliver('issues', issuesClosed()))).toEqual([
      expect.objectContaining({ identity: 'Codertocat/Hello-World#1', status: 'resolved' }),
    ]);
  });

  it('ping is answered, other events are ignored', async () => {
    expect(await deliver('ping', ping())).toEqual({ kind: 'reply', status: 200, body: { pong: true } });
    expect(await deliver('push', { ref: 'refs/heads/main' })).toEqual({
      kind: 'ignored',
      reason: 'event push is not handled',
    });
  });

  it('a payload missing a field is bad input naming it', async () => {
    const payload = issuesLabeled();
    const { number: _n, ...issue } = payload.issue;
    const err = await deliver('issues', { ...payload, issue }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).field).toBe('issue.number');
  });

  it('the delivery id is X-GitHub-Delivery', () => {
    expect(handler.deliveryId!({ 'x-github-delivery': 'abc-123' })).toBe('abc-123');
    expect(handler.deliveryId!({})).toBeUndefined();
  });
});
