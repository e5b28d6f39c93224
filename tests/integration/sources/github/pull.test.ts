import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import { runPoll } from '../../../../src/polling/poll-runner.js';
import { keys } from '../../../../src/redis/keys.js';
import { github } from '../../../../sources/github/index.js';
import { GitHubIssueSearch } from '../../../../sources/github/issue-search.js';
import { githubPollers } from '../../../../sources/github/pollers.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { intakeOnRedis } from '../../../helpers/intake-on-redis.js';
import { apiOn, BOT, configFor, seededDouble } from '../../../fixtures/github/double-setup.js';

let gh: GithubDouble;
const log = createLogger('silent');
const searches = () => gh.requests.filter((r) => r.path === '/search/issues');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 8, minute)).toISOString().replace(/\.000Z$/, 'Z');

beforeEach(async () => {
  gh = await seededDouble();
  gh.addRepo({ owner: 'octo', name: 'app', private: true });
  gh.addRepo({ owner: 'octo', name: 'other', private: true });
});
afterEach(async () => {
  expect(gh.violations).toEqual([]);
  expect(gh.responseViolations).toEqual([]);
  await gh.close();
});

describe('lestrade investigate github (pull mode)', () => {
  it('follows every page of the search, in the one repository, newest first', async () => {
    for (let n = 1; n <= 230; n++)
      gh.addIssue({
        owner: 'octo',
        repo: 'app',
        number: n,
        title: `issue ${n}`,
        labels: n % 2 ? ['bug'] : [],
        created_at: at(n),
      });
    gh.addIssue({ owner: 'octo', repo: 'app', number: 231, title: 'closed', state: 'closed', created_at: at(300) });
    gh.addIssue({ owner: 'octo', repo: 'other', number: 1, title: 'elsewhere' });
    const { api } = apiOn(gh);
    const issues = await new GitHubIssueSearch(api).fetchIssues({ repo: 'octo/app', query: 'is:open' });
    expect(issues).toHaveLength(230);
    expect(issues[0]).toMatchObject({
      identity: 'octo/app#230',
      locator: { key: 'octo/app#230', ref: { owner: 'octo', repo: 'app', number: 230 } },
    });
    expect(new Set(issues.map((i) => i.identity)).size).toBe(230);
    expect(searches()).toHaveLength(3);
    expect(searches()[0]!.query).toMatchObject({
      q: 'repo:octo/app is:issue is:open',
      sort: 'created',
      order: 'desc',
      per_page: '100',
    });

    const bugs = await new GitHubIssueSearch(api).fetchIssues({ repo: 'octo/app', query: 'is:open label:bug' });
    expect(bugs).toHaveLength(115);
  });

  it("stops paging once -n issues are in hand, and brings each one's recent comments", async () => {
    for (let n = 1; n <= 230; n++)
      gh.addIssue({ owner: 'octo', repo: 'app', number: n, title: `issue ${n}`, created_at: at(n) });
    gh.addComment({
      owner: 'octo',
      repo: 'app',
      issue_number: 230,
      user: 'alice',
      body: 'seen on web-3 too',
      created_at: at(400),
    });
    gh.addComment({
      owner: 'octo',
      repo: 'app',
      issue_number: 230,
      user: BOT,
      body: 'ours\n<!-- lestrade:rca:octo/app#230 -->',
    });
    const { api } = apiOn(gh);
    const issues = await new GitHubIssueSearch(api).fetchIssues({ repo: 'octo/app', query: 'is:open', limit: 3 });
    expect(issues.map((i) => i.identity)).toEqual(['octo/app#230', 'octo/app#229', 'octo/app#228']);
    expect(issues[0]!.untrusted).toEqual([{ label: `comment by @alice at ${at(400)}`, text: 'seen on web-3 too' }]);
    expect(searches()).toHaveLength(1);
  });

  it('needs --repo as owner/name', () => {
    const prepare = (opts: Record<string, unknown>) => github.pull!.prepare(configFor(gh), opts, { log, env: {} });
    expect(() => prepare({})).toThrow(ConfigError);
    expect(() => prepare({ repo: 'octo' })).toThrow(/--repo octo: expected owner\/name/);
    expect(prepare({ repo: 'octo/app', query: 'is:open label:bug', limit: 2 }).query).toEqual({
      repo: 'octo/app',
      query: 'is:open label:bug',
      limit: 2,
    });
  });
});

describe('the poller', () => {
  const db = intakeOnRedis();
  it('keeps the newest updated_at as its cursor and asks only for what changed since, so a restart neither misses nor repeats', async () => {
    gh.addIssue({ owner: 'octo', repo: 'app', number: 1, title: 'a', labels: ['lestrade'], updated_at: at(1) });
    gh.addIssue({ owner: 'octo', repo: 'app', number: 2, title: 'b', labels: ['lestrade'], updated_at: at(5) });
    gh.addIssue({ owner: 'octo', repo: 'app', number: 3, title: 'unlabelled', updated_at: at(9) });
    const { api, config } = apiOn(gh, { poll: [{ repo: 'octo/app' }] });
    const [poller] = githubPollers(config, api, log);
    expect(poller!.id).toBe('github:octo/app:is:open label:lestrade');

    expect(await runPoll(poller!, db.conn, db.intake, log)).toEqual({ queued: 2, seen: 2 });
    expect(await db.conn.get(keys.pollCursor(poller!.id))).toBe(at(5));
    expect(searches().at(-1)!.query).toMatchObject({
      q: 'repo:octo/app is:issue is:open label:lestrade',
      sort: 'updated',
      order: 'asc',
    });

    gh.addIssue({ owner: 'octo', repo: 'app', number: 4, title: 'c', labels: ['lestrade'], updated_at: at(7) });
    // A restart: a new poller object, the cursor from Redis.
    const [restarted] = githubPollers(config, apiOn(gh, { poll: [{ repo: 'octo/app' }] }).api, log);
    expect(await runPoll(restarted!, db.conn, db.intake, log)).toEqual({ queued: 1, seen: 2 });
    expect(searches().at(-1)!.query.q).toBe(`repo:octo/app is:issue is:open label:lestrade updated:>=${at(5)}`);
    expect(await db.conn.get(keys.pollCursor(poller!.id))).toBe(at(7));

    expect(await runPoll(restarted!, db.conn, db.intake, log)).toEqual({ queued: 0, seen: 1 });
  });

  it('skips a public repository that is not allowed', async () => {
    gh.addRepo({ owner: 'octo', name: 'public', private: false });
    gh.addIssue({ owner: 'octo', repo: 'public', number: 1, title: 'a', labels: ['lestrade'] });
    const { api, config } = apiOn(gh, { poll: [{ repo: 'octo/public' }] });
    const [poller] = githubPollers(config, api, log);
    expect(await poller!.poll(null)).toEqual({ issues: [], cursor: '' });
    expect(searches()).toHaveLength(0);
    const allowed = apiOn(gh, { poll: [{ repo: 'octo/public' }], allowPublicRepos: ['octo/public'] });
    expect((await githubPollers(allowed.config, allowed.api, log)[0]!.poll(null)).issues).toHaveLength(1);
  });
});
