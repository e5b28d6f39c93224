import type { ExtraRoute, Handler, Query } from './openapi-double.js';

/**
 * GET /repos/{owner}/{repo}/commits, /pulls and /deployments for the GitHub double. The spec subset in
 * tests/fixtures/specs/github (issues, comments, repository, search) has none of them, so each is validated
 * here by the rules of GitHub's REST reference (https://docs.github.com/rest: commits "List commits",
 * pulls "List pull requests", deployments "List deployments"): known query parameters only, per_page
 * 1–100, ISO 8601 since/until, the enums of state, sort and direction. Answers carry the fields of
 * GitHub's schemas that a reader of them uses, newest first as GitHub orders them, paged by page/per_page.
 */
export interface ChangesData {
  commits: { sha: string; message: string; author: string; date: string }[];
  pulls: {
    number: number;
    title: string;
    user: string;
    base: string;
    head: string;
    updated_at: string;
    merged_at: string | null;
    closed_at: string | null;
  }[];
  deployments: {
    id: number;
    sha: string;
    ref: string;
    environment: string;
    creator: string;
    description: string | null;
    created_at: string;
  }[];
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function check(query: Query, allowed: Record<string, (v: string) => boolean>): string[] {
  return Object.entries(query).flatMap(([k, v]) => {
    const test = allowed[k];
    if (!test) return [`unknown query parameter ${k}`];
    return typeof v === 'string' && test(v) ? [] : [`${k}: invalid value ${JSON.stringify(v)}`];
  });
}

const perPage = (v: string) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 100;
const page = (v: string) => /^\d+$/.test(v) && Number(v) >= 1;
const any = () => true;
const oneOf =
  (...vs: string[]) =>
  (v: string) =>
    vs.includes(v);

function paged<T>(items: T[], query: Query): T[] {
  const size = Number(query.per_page ?? 30);
  const n = Number(query.page ?? 1);
  return items.slice((n - 1) * size, n * size);
}

/** The extra routes and handlers of one repository, answering from `data`. */
export function githubChangesRoutes(
  repo: string,
  data: ChangesData,
): { routes: ExtraRoute[]; handlers: Record<string, Handler> } {
  const base = `/repos/${repo}`;
  const routes: ExtraRoute[] = [
    {
      method: 'GET',
      path: `${base}/commits`,
      operationId: 'repos/list-commits',
      validate: ({ query }) =>
        check(query, {
          sha: any,
          path: any,
          author: any,
          committer: any,
          since: (v) => ISO.test(v),
          until: (v) => ISO.test(v),
          per_page: perPage,
          page,
        }),
    },
    {
      method: 'GET',
      path: `${base}/pulls`,
      operationId: 'pulls/list',
      validate: ({ query }) =>
        check(query, {
          state: oneOf('open', 'closed', 'all'),
          head: any,
          base: any,
          sort: oneOf('created', 'updated', 'popularity', 'long-running'),
          direction: oneOf('asc', 'desc'),
          per_page: perPage,
          page,
        }),
    },
    {
      method: 'GET',
      path: `${base}/deployments`,
      operationId: 'repos/list-deployments',
      validate: ({ query }) =>
        check(query, { sha: any, ref: any, task: any, environment: any, per_page: perPage, page }),
    },
  ];
  const handlers: Record<string, Handler> = {
    'repos/list-commits': ({ query }) => ({ status: 200, body: paged(commits(data, query), query).map(commitShape) }),
    'pulls/list': ({ query }) => ({
      status: 200,
      body: paged(pulls(data, query), query).map((p) => pullShape(p, repo)),
    }),
    'repos/list-deployments': ({ query }) => ({
      status: 200,
      body: paged(
        data.deployments
          .filter((d) => query.environment === undefined || d.environment === query.environment)
          .sort((a, b) => b.created_at.localeCompare(a.created_at)),
        query,
      ).map(deploymentShape),
    }),
  };
  return { routes, handlers };
}

function commits(data: ChangesData, q: Query): ChangesData['commits'] {
  const since = typeof q.since === 'string' ? Date.parse(q.since) : -Infinity;
  const until = typeof q.until === 'string' ? Date.parse(q.until) : Infinity;
  return data.commits
    .filter((c) => Date.parse(c.date) >= since && Date.parse(c.date) <= until)
    .sort((a, b) => b.date.localeCompare(a.date));
}

function pulls(data: ChangesData, q: Query): ChangesData['pulls'] {
  const state = q.state ?? 'open';
  const key = q.sort === 'updated' ? 'updated_at' : 'number';
  const sign = q.direction === 'asc' ? 1 : -1;
  return data.pulls
    .filter((p) => state === 'all' || (state === 'closed') === (p.closed_at !== null))
    .sort((a, b) => sign * String(a[key]).localeCompare(String(b[key]), undefined, { numeric: true }));
}

const user = (login: string) => ({ login, id: 1, type: 'User' });

function commitShape(c: ChangesData['commits'][number]): Record<string, unknown> {
  return {
    sha: c.sha,
    commit: { message: c.message, author: { name: c.author, email: `${c.author}@example.com`, date: c.date } },
    author: user(c.author),
    html_url: `https://github.com/commit/${c.sha}`,
  };
}

function pullShape(p: ChangesData['pulls'][number], repo: string): Record<string, unknown> {
  return {
    number: p.number,
    title: p.title,
    state: p.closed_at ? 'closed' : 'open',
    user: user(p.user),
    base: { ref: p.base },
    head: { ref: p.head },
    updated_at: p.updated_at,
    closed_at: p.closed_at,
    merged_at: p.merged_at,
    html_url: `https://github.com/${repo}/pull/${p.number}`,
  };
}

function deploymentShape(d: ChangesData['deployments'][number]): Record<string, unknown> {
  return {
    id: d.id,
    sha: d.sha,
    ref: d.ref,
    task: 'deploy',
    environment: d.environment,
    description: d.description,
    creator: user(d.creator),
    created_at: d.created_at,
    updated_at: d.created_at,
  };
}
