/**
 * github_recent_changes against the GitHub double. The double validates the repository read (the
 * prerequisite) against the spec subset in tests/fixtures/specs/github; that subset has no list-commits,
 * list-pulls or list-deployments, so those three are validated by github-changes-routes.ts from GitHub's
 * REST reference (known query parameters, per_page, ISO 8601 times, enums) and the test fails on any
 * request the double refuses.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { createGithubChangesToolset, type GithubChangesConfig } from '../../../../toolsets/github-changes/index.js';
import { githubChangesRoutes, type ChangesData } from '../../../helpers/doubles/github-changes-routes.js';
import { startGithubDouble, type GithubDouble } from '../../../helpers/doubles/github-double.js';

const ISSUE_START = '2026-03-01T10:00:00Z';
const data: ChangesData = {
  commits: [
    { sha: '7c9f4d6b8a1e', message: 'Checkout v2 (#912)\n\nlong body', author: 'alice', date: '2026-03-01T09:39:00Z' },
    { sha: '1a2b3c4d5e6f', message: 'Pool size from env', author: 'bob', date: '2026-02-28T16:00:00Z' },
    { sha: '0000aaaa1111', message: 'old change', author: 'carol', date: '2026-02-20T08:00:00Z' },
  ],
  pulls: [
    {
      number: 912,
      title: 'Checkout v2',
      user: 'alice',
      base: 'main',
      head: 'feature/checkout-v2',
      updated_at: '2026-03-01T09:41:00Z',
      merged_at: '2026-03-01T09:40:00Z',
      closed_at: '2026-03-01T09:40:00Z',
    },
    {
      number: 911,
      title: 'Closed without merging',
      user: 'bob',
      base: 'main',
      head: 'try',
      updated_at: '2026-03-01T08:00:00Z',
      merged_at: null,
      closed_at: '2026-03-01T08:00:00Z',
    },
    {
      number: 900,
      title: 'Merged long ago',
      user: 'carol',
      base: 'main',
      head: 'old',
      updated_at: '2026-02-10T08:00:00Z',
      merged_at: '2026-02-10T08:00:00Z',
      closed_at: '2026-02-10T08:00:00Z',
    },
    {
      number: 913,
      title: 'Still open',
      user: 'dave',
      base: 'main',
      head: 'wip',
      updated_at: '2026-03-01T09:50:00Z',
      merged_at: null,
      closed_at: null,
    },
  ],
  deployments: [
    {
      id: 42,
      sha: '7c9f4d6b8a1e',
      ref: 'v1.5.0',
      environment: 'production',
      creator: 'ci-bot',
      description: 'Deploy 1.5.0',
      created_at: '2026-03-01T09:57:40Z',
    },
    {
      id: 41,
      sha: '7c9f4d6b8a1e',
      ref: 'v1.5.0',
      environment: 'staging',
      creator: 'ci-bot',
      description: null,
      created_at: '2026-03-01T09:45:00Z',
    },
  ],
};

let gh: GithubDouble;
let exec: ToolExecutor;
let cfg: GithubChangesConfig;
beforeAll(async () => {
  gh = await startGithubDouble({ extra: githubChangesRoutes('acme/shop', data) });
  gh.addRepo({ owner: 'acme', name: 'shop' });
  cfg = { repos: ['acme/shop'], token: gh.token, apiUrl: gh.url };
  exec = new ToolExecutor({ tools: createGithubChangesToolset(cfg).tools });
});
afterEach(() => {
  expect(gh.violations).toEqual([]);
});
afterAll(async () => {
  await gh?.close();
});
const call = (args: Record<string, unknown>) =>
  exec.execute({ id: 'c', name: 'github_recent_changes', arguments: JSON.stringify(args) });

describe('github_recent_changes', () => {
  it('lists commits, merged pull requests and deployments of the day before until, newest first', async () => {
    const r = await call({ until: ISSUE_START });
    expect(r.status).toBe('success');
    expect(r.data!.split('\n')).toEqual([
      'acme/shop, 2026-02-28T10:00:00.000Z to 2026-03-01T10:00:00.000Z, newest first:',
      '2026-03-01T09:57:40Z deployment 42 to production: ref v1.5.0 (7c9f4d6) by ci-bot: Deploy 1.5.0',
      '2026-03-01T09:45:00Z deployment 41 to staging: ref v1.5.0 (7c9f4d6) by ci-bot',
      '2026-03-01T09:40:00Z merged PR #912 into main by alice: Checkout v2 (feature/checkout-v2)',
      '2026-03-01T09:39:00Z commit 7c9f4d6 by alice: Checkout v2 (#912)',
      '2026-02-28T16:00:00Z commit 1a2b3c4 by bob: Pool size from env',
      '(2 commits, 1 merged pull requests, 2 deployments; at most 30 of each)',
    ]);
    const commits = gh.requests.find((q) => q.path === '/repos/acme/shop/commits')!;
    expect(commits.query).toMatchObject({ since: '2026-02-28T10:00:00.000Z', until: '2026-03-01T10:00:00.000Z' });
    expect(commits.headers.authorization).toMatch(/test-token/);
  });

  it('narrows to some kinds, one environment and an explicit window', async () => {
    const r = await call({
      include: ['deployments'],
      environment: 'production',
      since: '2026-03-01T09:00:00Z',
      until: ISSUE_START,
    });
    expect(r.data!.split('\n').slice(1, -1)).toEqual([
      '2026-03-01T09:57:40Z deployment 42 to production: ref v1.5.0 (7c9f4d6) by ci-bot: Deploy 1.5.0',
    ]);
    expect(gh.requests.at(-1)!.query).toMatchObject({ environment: 'production' });
  });

  it('says no_data for a window without changes, and refuses a repository not configured', async () => {
    const none = await call({ since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' });
    expect(none.status).toBe('no_data');
    const other = await call({ repo: 'acme/secret-repo', until: ISSUE_START });
    expect(other).toMatchObject({ status: 'error' });
    expect(other.error).toMatch(/one of the configured repositories: acme\/shop/);
  });
});

describe('the toolset', () => {
  it("tells the model to set until to the issue's start", () => {
    expect(createGithubChangesToolset(cfg).instructions).toMatch(/until set to the issue's start/);
  });

  it('is enabled when the token reads every repository, and says which it cannot read', async () => {
    const ok = await resolveToolsets([createGithubChangesToolset(cfg)], {}, {});
    expect(ok.statuses[0]).toMatchObject({ name: 'github_changes', state: 'enabled' });
    const missing = await resolveToolsets(
      [createGithubChangesToolset({ ...cfg, repos: ['acme/shop', 'acme/gone'] })],
      {},
      {},
    );
    expect(missing.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: expect.stringMatching(/acme\/gone: .*404/),
    });
  });

  it('names the fix without repositories or a token, and never shows the token', async () => {
    const noRepos = await resolveToolsets([createGithubChangesToolset({ ...cfg, repos: [] })], {}, {});
    expect(noRepos.statuses[0]!.reason).toMatch(/toolsets\.github_changes\.repos/);
    const noToken = await resolveToolsets([createGithubChangesToolset({ ...cfg, token: undefined })], {}, {});
    expect(noToken.statuses[0]!.reason).toMatch(/GITHUB_TOKEN/);
    const bad = await resolveToolsets([createGithubChangesToolset({ ...cfg, token: 'wrong-token-xyz' })], {}, {});
    expect(bad.statuses[0]!.reason).toMatch(/401/);
    expect(JSON.stringify(bad.statuses)).not.toContain('wrong-token-xyz');
  });
});
