import { Octokit } from '@octokit/rest';
import { Version2Client, Version3Client, type Version3Models } from 'jira.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGithubDouble, type GithubDouble } from '../../helpers/doubles/github-double.js';
import { startJiraDouble, type JiraDouble } from '../../helpers/doubles/jira-double.js';
import type { OpenApiDouble } from '../../helpers/doubles/openapi-double.js';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const doc = (text: string): Version3Models.Document => ({
  type: 'doc',
  version: 1,
  content: [{ type: 'paragraph', content: [{ type: 'text', text }] }],
});
const failure = (p: Promise<unknown>): Promise<{ status?: number; response?: { headers?: Record<string, string> } }> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as { status?: number },
  );

/** Every test leaves the double without spec violations of its own answers, and the client's unless it expects some. */
function expectHonest(d: OpenApiDouble, violations = 0): void {
  expect(d.responseViolations).toEqual([]);
  expect(d.violations).toHaveLength(violations);
  expect(d.faults.pending).toEqual([]);
  d.violations.length = 0;
}

describe('GitHub double with @octokit/rest', () => {
  let gh: GithubDouble;
  let octokit: Octokit;
  beforeAll(async () => {
    gh = await startGithubDouble({ clock: () => new Date('2024-02-01T00:00:00Z') });
    octokit = new Octokit({ auth: gh.token, baseUrl: gh.url, log: quiet });
    gh.addRepo({ owner: 'acme', name: 'ops' });
    gh.addRepo({ owner: 'acme', name: 'secret', tokenAccess: 'none' });
    for (let n = 1; n <= 7; n++) {
      const at = `2024-01-0${n}T00:00:00Z`;
      gh.addIssue({
        owner: 'acme',
        repo: 'ops',
        title: `alert ${n}`,
        labels: n % 2 ? ['alert'] : [],
        created_at: at,
        updated_at: at,
      });
    }
    gh.addIssue({ owner: 'acme', repo: 'secret', title: 'hidden alert', labels: ['alert'] });
  });
  afterAll(() => gh.close());
  afterEach(() => gh.faults.clear());

  it('creates a comment as the token user, shaped like GitHub', async () => {
    const { status, data } = await octokit.rest.issues.createComment({
      owner: 'acme',
      repo: 'ops',
      issue_number: 2,
      body: 'RCA: disk full',
    });
    expect(status).toBe(201);
    expect(data.user?.login).toBe('lestrade-bot[bot]');
    expect(gh.state.comments('acme', 'ops', 2).map((c) => [c.body, c.created_at])).toEqual([
      ['RCA: disk full', '2024-02-01T00:00:00Z'],
    ]);
    const edited = await octokit.rest.issues.updateComment({
      owner: 'acme',
      repo: 'ops',
      comment_id: data.id,
      body: 'RCA v2',
    });
    expect(edited.data.body).toBe('RCA v2');
    expect((await octokit.rest.issues.getComment({ owner: 'acme', repo: 'ops', comment_id: data.id })).data.body).toBe(
      'RCA v2',
    );
    expectHonest(gh);
  });

  it('pages issues and comments with Link headers that paginate follows', async () => {
    const before = gh.requests.length;
    const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
      owner: 'acme',
      repo: 'ops',
      per_page: 2,
      sort: 'created',
      direction: 'asc',
    });
    expect(issues.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(gh.requests.slice(before).filter((r) => r.operationId === 'issues/list-for-repo')).toHaveLength(4);
    const labelled = await octokit.rest.issues.listForRepo({
      owner: 'acme',
      repo: 'ops',
      labels: 'alert',
      since: '2024-01-04T00:00:00Z',
    });
    expect(labelled.data.map((i) => i.number)).toEqual([7, 5]);
    for (let k = 0; k < 5; k++)
      gh.addComment({ owner: 'acme', repo: 'ops', issue_number: 4, body: `c${k}`, user: 'alice' });
    const comments = await octokit.paginate(octokit.rest.issues.listComments, {
      owner: 'acme',
      repo: 'ops',
      issue_number: 4,
      per_page: 2,
    });
    expect(comments.map((c) => c.body)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expectHonest(gh);
  });

  it('searches issues with qualifiers, only in repositories the token can see', async () => {
    const q = 'repo:acme/ops is:issue is:open label:alert updated:>=2024-01-03T00:00:00Z';
    const items = await octokit.paginate(octokit.rest.search.issuesAndPullRequests, { q, per_page: 1 });
    expect(items.map((i) => i.number).sort()).toEqual([3, 5, 7]);
    const everywhere = await octokit.rest.search.issuesAndPullRequests({ q: 'is:issue label:alert hidden' });
    expect(everywhere.data.total_count).toBe(0);
    expectHonest(gh);
  });

  it('reports permissions, the repository and rate limits', async () => {
    gh.setPermission('acme', 'ops', 'alice', 'triage');
    const alice = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: 'acme',
      repo: 'ops',
      username: 'alice',
    });
    expect([alice.data.permission, alice.data.role_name]).toEqual(['read', 'triage']);
    const bot = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: 'acme',
      repo: 'ops',
      username: 'lestrade-bot[bot]',
    });
    expect(bot.data.permission).toBe('write');
    expect((await octokit.rest.repos.get({ owner: 'acme', repo: 'ops' })).data).toMatchObject({
      full_name: 'acme/ops',
      private: true,
    });
    expect((await failure(octokit.rest.repos.get({ owner: 'acme', repo: 'secret' }))).status).toBe(404);
    expect((await octokit.rest.rateLimit.get()).data.resources.core.limit).toBe(5000);
    // An installation token cannot read /user.
    expect((await failure(octokit.rest.users.getAuthenticated())).status).toBe(403);
    expectHonest(gh);
  });

  it('refuses what the spec refuses, and records it', async () => {
    const noBody = octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'acme',
      repo: 'ops',
      issue_number: 3,
      title: 'no body',
    } as never);
    expect((await failure(noBody)).status).toBe(422);
    expect((await failure(octokit.request('GET /users/{u}', { u: 'alice' }))).status).toBe(404);
    expect(gh.violations.map((v) => v.operationId)).toEqual(['issues/create-comment', undefined]);
    expect(gh.violations[0]?.errors.join()).toMatch(/requestBody/);
    expect(gh.state.comments('acme', 'ops', 3)).toEqual([]);
    expectHonest(gh, 2);
  });

  it('answers like GitHub to a comment over 65536 characters and to a bad token', async () => {
    expect(
      (
        await failure(
          octokit.rest.issues.createComment({ owner: 'acme', repo: 'ops', issue_number: 3, body: 'x'.repeat(65537) }),
        )
      ).status,
    ).toBe(422);
    const stranger = new Octokit({ auth: 'wrong', baseUrl: gh.url, log: quiet });
    expect((await failure(stranger.rest.issues.get({ owner: 'acme', repo: 'ops', issue_number: 3 }))).status).toBe(401);
    expect(gh.state.comments('acme', 'ops', 3)).toEqual([]);
    expectHonest(gh);
  });

  it('serves the GitHub App: GET /app and installation tokens take a JWT', async () => {
    const asApp = new Octokit({ auth: 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjQyNDJ9.c2ln', baseUrl: gh.url, log: quiet });
    expect((await asApp.rest.apps.getAuthenticated()).data?.slug).toBe('lestrade-bot');
    const { data } = await asApp.rest.apps.createInstallationAccessToken({ installation_id: 1 });
    const asInstallation = new Octokit({ auth: data.token, baseUrl: gh.url, log: quiet });
    expect((await asInstallation.rest.issues.get({ owner: 'acme', repo: 'ops', issue_number: 1 })).data.number).toBe(1);
    expect((await failure(asApp.rest.issues.get({ owner: 'acme', repo: 'ops', issue_number: 1 }))).status).toBe(401);
    expectHonest(gh);
  });

  it('checks its own answers against the spec', () => {
    const check = gh.backend.validateResponse({ id: 1 }, 'issues/get', 200);
    expect(check.errors?.length).toBeGreaterThan(0);
  });

  it('faults: 429 with Retry-After reaches the client and changes nothing', async () => {
    gh.faults.add({
      method: 'POST',
      path: /\/issues\/5\/comments$/,
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
    });
    const err = await failure(
      octokit.rest.issues.createComment({ owner: 'acme', repo: 'ops', issue_number: 5, body: 'x' }),
    );
    expect(err.status).toBe(429);
    expect(err.response?.headers?.['retry-after']).toBe('7');
    expect(gh.state.comments('acme', 'ops', 5)).toEqual([]);
    expectHonest(gh);
  });

  it('faults: accept-then-drop creates the comment but the client sees an error', async () => {
    gh.faults.add({ method: 'POST', path: /\/issues\/6\/comments$/, kind: 'accept-then-drop' });
    await failure(octokit.rest.issues.createComment({ owner: 'acme', repo: 'ops', issue_number: 6, body: 'dropped' }));
    expect(gh.state.comments('acme', 'ops', 6).map((c) => c.body)).toEqual(['dropped']);
    expectHonest(gh);
  });

  it('faults: accept-then-502, a repeated 403 secondary limit, and a delay', async () => {
    gh.faults.add(
      { method: 'POST', path: /\/issues\/7\/comments$/, kind: 'accept-then-502' },
      {
        method: 'GET',
        path: /^\/repos\/acme\/ops$/,
        kind: 'status',
        status: 403,
        times: 2,
        headers: { 'retry-after': '60' },
        body: { message: 'You have exceeded a secondary rate limit.' },
      },
      { path: /^\/rate_limit$/, kind: 'delay', ms: 5 },
    );
    expect(
      (
        await failure(
          octokit.rest.issues.createComment({ owner: 'acme', repo: 'ops', issue_number: 7, body: 'twice?' }),
        )
      ).status,
    ).toBe(502);
    expect(gh.state.comments('acme', 'ops', 7)).toHaveLength(1);
    for (let k = 0; k < 2; k++)
      expect((await failure(octokit.rest.repos.get({ owner: 'acme', repo: 'ops' }))).status).toBe(403);
    expect((await octokit.rest.repos.get({ owner: 'acme', repo: 'ops' })).status).toBe(200);
    expect((await octokit.rest.rateLimit.get()).status).toBe(200);
    expectHonest(gh);
  });
});

describe('Jira Cloud double with jira.js Version3Client', () => {
  let jira: JiraDouble;
  let client: Version3Client;
  beforeAll(async () => {
    jira = await startJiraDouble({ deployment: 'cloud', email: 'bot@example.com', apiToken: 'api-token' });
    client = new Version3Client({
      host: jira.url,
      authentication: { basic: { email: 'bot@example.com', apiToken: 'api-token' } },
    });
    for (let n = 1; n <= 7; n++) {
      const at = `2024-01-0${n}T10:00:00Z`;
      jira.addIssue({
        key: `OPS-${n}`,
        summary: `alert ${n}`,
        description: 'disk full',
        labels: n % 2 ? ['alert'] : [],
        created: at,
        updated: at,
      });
    }
  });
  afterAll(() => jira.close());
  afterEach(() => jira.faults.clear());

  it('searches with JQL, token paging and only the fields asked for', async () => {
    const jql = 'project = OPS AND labels = alert AND updated >= "2024-01-02 00:00" ORDER BY updated ASC';
    const seen: string[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
        jql,
        maxResults: 1,
        fields: ['summary', 'labels'],
        nextPageToken,
      });
      for (const i of page.issues ?? []) seen.push(`${i.key} ${i.fields.summary}`);
      nextPageToken = page.nextPageToken ?? undefined;
    } while (nextPageToken);
    expect(seen).toEqual(['OPS-3 alert 3', 'OPS-5 alert 5', 'OPS-7 alert 7']);
    const bare = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({ jql: 'key = OPS-2' });
    expect(bare).toEqual({ issues: [{ id: expect.any(String), key: 'OPS-2' }], isLast: true });
    expect(
      (await failure(client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({ jql: 'ORDER BY created' }))).status,
    ).toBe(400);
    expectHonest(jira);
  });

  it('adds an ADF comment with properties, edits it, and reads the property back', async () => {
    const added = await client.issueComments.addComment({
      issueIdOrKey: 'OPS-1',
      comment: doc('RCA: disk full'),
      properties: [{ key: 'lestrade', value: { run: 'r1' } }],
    });
    expect(added.author?.accountId).toBe(jira.user.accountId);
    const id = added.id ?? '';
    await client.issueComments.updateComment({ issueIdOrKey: 'OPS-1', id, body: doc('RCA v2') });
    expect(await client.issueCommentProperties.getCommentProperty({ commentId: id, propertyKey: 'lestrade' })).toEqual({
      key: 'lestrade',
      value: { run: 'r1' },
    });
    const [stored] = jira.state.comments('OPS-1');
    expect(stored?.body).toEqual(doc('RCA v2'));
    expect(stored?.properties).toEqual({ lestrade: { run: 'r1' } });
    const listed = await client.issueComments.getComments({ issueIdOrKey: 'OPS-1', expand: 'properties' });
    expect(listed.comments?.[0]?.properties).toEqual([{ key: 'lestrade', value: { run: 'r1' } }]);
    expect((await client.issueComments.getCommentsByIds({ ids: [Number(id)] })).values).toHaveLength(1);
    const issue = await client.issues.getIssue({ issueIdOrKey: 'OPS-1' });
    expect(issue.fields.comment.comments).toHaveLength(1);
    expect((await client.serverInfo.getServerInfo()).deploymentType).toBe('Cloud');
    expectHonest(jira);
  });

  it('refuses a body that is not ADF, an over-long comment and bad credentials', async () => {
    const wiki = client.issueComments.addComment({
      issueIdOrKey: 'OPS-2',
      comment: { type: 'paragraph' } as unknown as Version3Models.Document,
    });
    expect((await failure(wiki)).status).toBe(400);
    expect(
      (await failure(client.issueComments.addComment({ issueIdOrKey: 'OPS-2', comment: 'x'.repeat(32768) }))).status,
    ).toBe(400);
    const stranger = new Version3Client({
      host: jira.url,
      authentication: { basic: { email: 'bot@example.com', apiToken: 'nope' } },
    });
    expect((await failure(stranger.myself.getCurrentUser())).status).toBe(401);
    expect(jira.state.comments('OPS-2')).toEqual([]);
    expectHonest(jira, 1);
  });

  it('catches jira.js sending startAt=false when getComments is given only a key', async () => {
    expect((await failure(client.issueComments.getComments('OPS-1'))).status).toBe(400);
    expect(jira.violations[0]?.errors.join()).toMatch(/startAt must be integer/);
    expectHonest(jira, 1);
  });

  it('faults: 429 with Retry-After, then accept-then-drop', async () => {
    jira.faults.add(
      {
        method: 'POST',
        path: /\/issue\/OPS-3\/comment$/,
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '7' },
      },
      { method: 'POST', path: /\/issue\/OPS-3\/comment$/, kind: 'accept-then-drop' },
    );
    const post = () => client.issueComments.addComment({ issueIdOrKey: 'OPS-3', comment: doc('RCA') });
    expect((await failure(post())).status).toBe(429);
    expect(jira.state.comments('OPS-3')).toHaveLength(0);
    await failure(post());
    expect(jira.state.comments('OPS-3')).toHaveLength(1);
    expectHonest(jira);
  });
});

describe('Jira Data Center double with jira.js Version2Client', () => {
  let jira: JiraDouble;
  let client: Version2Client;
  beforeAll(async () => {
    jira = await startJiraDouble({ deployment: 'datacenter', pat: 'dc-pat' });
    client = new Version2Client({ host: jira.url, authentication: { oauth2: { accessToken: 'dc-pat' } } });
    for (let n = 1; n <= 3; n++)
      jira.addIssue({
        key: `DC-${n}`,
        summary: `alert ${n}`,
        description: 'h1. disk',
        status: n === 3 ? 'Done' : 'Open',
      });
  });
  afterAll(() => jira.close());

  it('searches /rest/api/2/search with startAt paging and a total', async () => {
    const first = await client.issueSearch.searchForIssuesUsingJql({
      jql: 'project = DC AND status = Open ORDER BY key ASC',
      fields: ['summary'],
      maxResults: 1,
    });
    expect(first).toMatchObject({
      startAt: 0,
      maxResults: 1,
      total: 2,
      issues: [{ key: 'DC-1', fields: { summary: 'alert 1' } }],
    });
    const second = await client.issueSearch.searchForIssuesUsingJqlPost({
      jql: 'project = DC AND status = Open ORDER BY key ASC',
      startAt: 1,
      fields: ['summary'],
    });
    expect(second.issues?.map((i) => i.key)).toEqual(['DC-2']);
    expect((await client.serverInfo.getServerInfo()).deploymentType).toBe('Server');
    expectHonest(jira);
  });

  it('adds and edits wiki-markup comments with properties', async () => {
    const added = await client.issueComments.addComment({
      issueIdOrKey: 'DC-1',
      comment: 'h2. RCA\n* disk full',
      properties: [{ key: 'lestrade', value: 'r1' }],
    });
    // jira.js types a v2 comment's text as `comment`; on the wire (and in Jira's answer) it is `body`.
    expect((added as { body?: unknown }).body).toBe('h2. RCA\n* disk full');
    await client.issueComments.updateComment({ issueIdOrKey: 'DC-1', id: added.id ?? '', comment: 'edited' });
    expect(jira.state.comments('DC-1').map((c) => [c.body, c.properties])).toEqual([['edited', { lestrade: 'r1' }]]);
    expectHonest(jira);
  });

  it('refuses an ADF body, a Cloud-only search parameter and a wrong PAT', async () => {
    expect(
      (await failure(client.issueComments.addComment({ issueIdOrKey: 'DC-2', comment: doc('x') as unknown as string })))
        .status,
    ).toBe(400);
    const cloudOnly = await fetch(`${jira.url}/rest/api/2/search?jql=project%3DDC&nextPageToken=abc`, {
      headers: { authorization: 'Bearer dc-pat' },
    });
    expect(cloudOnly.status).toBe(400);
    const stranger = new Version2Client({ host: jira.url, authentication: { oauth2: { accessToken: 'wrong' } } });
    expect((await failure(stranger.myself.getCurrentUser())).status).toBe(401);
    expect(jira.state.comments('DC-2')).toEqual([]);
    expectHonest(jira, 2);
  });
});
