import { randomBytes } from 'node:crypto';
import type { Handler, HandlerInput, HandlerResult } from './openapi-double.js';
import { firstString, githubPage, githubPaged } from './paging.js';
import { commentJson, ghError, issueJson, permissionJson, privateUser, repoJson, simpleUser } from './github-shapes.js';
import { parseSearch, sortHits, type SearchHit } from './github-search.js';
import { ghTime, type GhRepo, type GhUser, type GithubState } from './github-state.js';

export const GITHUB_COMMENT_LIMIT = 65536;

export interface GithubApp {
  id: number;
  slug: string;
  installationId: number;
}

interface Ctx {
  state: GithubState;
  app: GithubApp;
  repoExample: Record<string, unknown>;
  appExample: Record<string, unknown>;
}

const api = (i: HandlerInput): string => i.url.origin;
const ok = (body: unknown, headers: Record<string, string> = {}, status = 200): HandlerResult => ({
  status,
  body,
  headers,
});
const notFound = (): HandlerResult => ghError(404, 'Not Found');
// Search results may not carry a null body (issue-search-result-item.body is not nullable), unlike issues.
const searchItem = ({ body, ...rest }: Record<string, unknown>): Record<string, unknown> =>
  body === null ? { ...rest, score: 1 } : { ...rest, body, score: 1 };
const forbidden = (): HandlerResult => ghError(403, 'Resource not accessible by integration');

export function githubHandlers({ state, app, repoExample, appExample }: Ctx): Record<string, Handler> {
  const viewer = (i: HandlerInput): GhUser => state.tokens.get(i.principal) ?? state.user('ghost');
  const visibleRepo = (i: HandlerInput): GhRepo | undefined => {
    const r = state.repo(i.params.owner ?? '', i.params.repo ?? '');
    return r && state.canSee(r, viewer(i).login) ? r : undefined;
  };
  const mayWrite = (r: GhRepo, u: GhUser): boolean =>
    u.type !== 'Bot' || !['none', 'read'].includes(state.permission(r, u.login));
  const bodyText = (i: HandlerInput): string => (i.body as { body: string }).body;
  const tooLong = (text: string): HandlerResult | undefined =>
    [...text].length > GITHUB_COMMENT_LIMIT
      ? ghError(422, 'Validation Failed', {
          errors: [
            {
              resource: 'IssueComment',
              code: 'custom',
              field: 'body',
              message: `body is too long (maximum is ${GITHUB_COMMENT_LIMIT} characters)`,
            },
          ],
        })
      : undefined;

  return {
    'issues/list-for-repo': (i) => {
      const r = visibleRepo(i);
      if (!r) return notFound();
      const q = i.query;
      const st = firstString(q.state) ?? 'open';
      const labels = (firstString(q.labels) ?? '')
        .split(',')
        .map((l) => l.trim().toLowerCase())
        .filter(Boolean);
      const since = firstString(q.since);
      const creator = firstString(q.creator);
      const sort = firstString(q.sort) ?? 'created';
      const dir = firstString(q.direction) === 'asc' ? 1 : -1;
      const list = [...r.issues.values()]
        .filter((x) => st === 'all' || x.state === st)
        .filter((x) => labels.every((l) => x.labels.some((have) => have.toLowerCase() === l)))
        .filter((x) => !since || Date.parse(x.updated_at) >= Date.parse(since))
        .filter((x) => !creator || x.user.login === creator)
        .sort((a, b) =>
          sort === 'comments'
            ? dir * (a.comments.length - b.comments.length)
            : dir *
                (sort === 'updated'
                  ? a.updated_at.localeCompare(b.updated_at)
                  : a.created_at.localeCompare(b.created_at)) || dir * (a.number - b.number),
        );
      const { items, headers } = githubPaged(list, q, i.url);
      return ok(
        items.map((x) => issueJson(r, x, api(i))),
        headers,
      );
    },

    'issues/get': (i) => {
      const r = visibleRepo(i);
      const issue = r?.issues.get(Number(i.params.issue_number));
      return r && issue ? ok(issueJson(r, issue, api(i))) : notFound();
    },

    'issues/list-comments': (i) => {
      const r = visibleRepo(i);
      const issue = r?.issues.get(Number(i.params.issue_number));
      if (!r || !issue) return notFound();
      const since = firstString(i.query.since);
      const list = issue.comments.filter((c) => !since || Date.parse(c.updated_at) >= Date.parse(since));
      const { items, headers } = githubPaged(list, i.query, i.url);
      return ok(
        items.map((c) => commentJson(state, r, c, api(i))),
        headers,
      );
    },

    'issues/create-comment': (i) => {
      const r = visibleRepo(i);
      const issue = r?.issues.get(Number(i.params.issue_number));
      if (!r || !issue) return notFound();
      if (!mayWrite(r, viewer(i))) return forbidden();
      const text = bodyText(i);
      const refused = tooLong(text);
      if (refused) return refused;
      const c = state.addComment({
        owner: r.owner,
        repo: r.name,
        issue_number: issue.number,
        body: text,
        user: viewer(i).login,
      });
      const json = commentJson(state, r, c, api(i));
      return ok(json, { location: String(json.url) }, 201);
    },

    'issues/get-comment': (i) => {
      const r = visibleRepo(i);
      const c = r && state.findComment(r.owner, r.name, Number(i.params.comment_id));
      return r && c ? ok(commentJson(state, r, c, api(i))) : notFound();
    },

    'issues/update-comment': (i) => {
      const r = visibleRepo(i);
      const c = r && state.findComment(r.owner, r.name, Number(i.params.comment_id));
      if (!r || !c) return notFound();
      const u = viewer(i);
      if (c.user.login !== u.login && !['admin', 'maintain', 'write'].includes(state.permission(r, u.login)))
        return forbidden();
      const text = bodyText(i);
      const refused = tooLong(text);
      if (refused) return refused;
      c.body = text;
      c.updated_at = state.now();
      return ok(commentJson(state, r, c, api(i)));
    },

    'repos/get': (i) => {
      const r = visibleRepo(i);
      return r ? ok(repoJson(repoExample, state, r, viewer(i).login, api(i))) : notFound();
    },

    'repos/get-collaborator-permission-level': (i) => {
      const r = visibleRepo(i);
      if (!r) return notFound();
      const username = i.params.username ?? '';
      return ok(permissionJson(state.permission(r, username), state.user(username), api(i)));
    },

    // Installation tokens cannot read /user: GitHub answers 403 to a bot (its login is `${app slug}[bot]`).
    'users/get-authenticated': (i) => {
      const u = viewer(i);
      return u.type === 'Bot' ? forbidden() : ok(privateUser(u, api(i), '2020-01-01T00:00:00Z'));
    },

    'apps/get-authenticated': (i) =>
      ok({
        ...appExample,
        id: app.id,
        slug: app.slug,
        node_id: `A_${app.id}`,
        name: app.slug,
        html_url: `https://github.com/apps/${app.slug}`,
        owner: simpleUser(state.user('octocat'), api(i)),
      }),

    'apps/create-installation-access-token': (i) => {
      if (Number(i.params.installation_id) !== app.installationId) return notFound();
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      state.addToken(token, `${app.slug}[bot]`);
      const expires = ghTime(new Date(state.clock().getTime() + 3600_000));
      return ok(
        { token, expires_at: expires, permissions: { issues: 'write', metadata: 'read' }, repository_selection: 'all' },
        {},
        201,
      );
    },

    'search/issues-and-pull-requests': (i) => {
      const parsed = parseSearch(firstString(i.query.q) ?? '');
      if ('error' in parsed)
        return ghError(422, 'Validation Failed', {
          errors: [{ resource: 'Search', field: 'q', code: 'invalid', message: parsed.error }],
        });
      const login = viewer(i).login;
      const hits: SearchHit[] = [];
      for (const repo of state.repos.values()) {
        if (!state.canSee(repo, login)) continue;
        if (parsed.repos.length && !parsed.repos.includes(`${repo.owner}/${repo.name}`.toLowerCase())) continue;
        for (const issue of repo.issues.values()) if (parsed.pred({ repo, issue })) hits.push({ repo, issue });
      }
      sortHits(hits, firstString(i.query.sort), firstString(i.query.order));
      const { page, perPage } = githubPage(i.query);
      if ((page - 1) * perPage >= 1000) return ghError(422, 'Only the first 1000 search results are available');
      const { items, headers } = githubPaged(hits, i.query, i.url);
      // Key order matters: octokit's paginate takes the first key left after total_count and
      // incomplete_results as the list, so items must come before search_type.
      return ok(
        {
          total_count: hits.length,
          incomplete_results: false,
          items: items.map((h) => searchItem(issueJson(h.repo, h.issue, api(i)))),
          search_type: 'lexical',
        },
        headers,
      );
    },

    'rate-limit/get': () => {
      const reset = Math.floor(state.clock().getTime() / 1000) + 3600;
      const core = { limit: 5000, remaining: 4999, reset, used: 1 };
      const search = { limit: 30, remaining: 30, reset, used: 0 };
      return ok({ resources: { core, search }, rate: core });
    },
  };
}
