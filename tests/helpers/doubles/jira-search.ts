import { z } from 'zod';
import type { ExtraRoute, Handler, HandlerResult } from './openapi-double.js';
import { firstString, intParam } from './paging.js';
import { JqlError, compareKeys, parseJql } from './jira-jql.js';
import { issueJson, jiraError, selectFields, type Site } from './jira-shapes.js';
import type { JiraIssue, JiraState } from './jira-state.js';

/** Issues matching `jql`, ordered as it asks (created DESC when it does not), or Jira's 400. */
function evaluate(state: JiraState, jql: string, requireBound: boolean): JiraIssue[] | HandlerResult {
  try {
    const q = parseJql(jql, { now: state.now(), projects: state.projects, keys: new Set(state.issues.keys()) });
    if (requireBound && !q.bounded) {
      return jiraError(400, [
        'Unbounded JQL queries are not allowed here. Please add a search restriction to your query.',
      ]);
    }
    const order = q.order.length ? q.order : [{ field: 'created' as const, dir: -1 as const }];
    return [...state.issues.values()].filter(q.pred).sort((a, b) => {
      for (const { field, dir } of order) {
        const d = field === 'key' ? compareKeys(a.key, b.key) : a[field] - b[field];
        if (d) return dir * d;
      }
      return compareKeys(b.key, a.key);
    });
  } catch (e) {
    if (e instanceof JqlError) return jiraError(400, [e.message]);
    throw e;
  }
}

interface CloudArgs {
  jql: string;
  nextPageToken?: string;
  maxResults?: number;
  fields?: string | string[];
}

/** GET/POST /rest/api/3/search/jql: token paging (nextPageToken, isLast), no total, only the fields asked for. */
export function cloudSearch(state: JiraState, site: () => Site): Record<string, Handler> {
  const run = (a: CloudArgs): HandlerResult => {
    const found = evaluate(state, a.jql, true);
    if (!Array.isArray(found)) return found;
    let offset = 0;
    if (a.nextPageToken) {
      try {
        const t = JSON.parse(Buffer.from(a.nextPageToken, 'base64url').toString('utf8')) as {
          jql: string;
          offset: number;
        };
        if (t.jql !== a.jql || !Number.isInteger(t.offset)) throw new Error('mismatch');
        offset = t.offset;
      } catch {
        return jiraError(400, ['The provided next page token is invalid or expired.']);
      }
    }
    const fields = selectFields(a.fields, 'none');
    // Jira may return fewer than asked: up to 5000 ids/keys, fewer with fields (the double: 100).
    const size = Math.max(1, Math.min(a.maxResults ?? 50, fields.length ? 100 : 5000));
    const page = found.slice(offset, offset + size);
    const isLast = offset + size >= found.length;
    const body: Record<string, unknown> = { issues: page.map((i) => issueJson(i, fields, site())), isLast };
    if (!isLast)
      body.nextPageToken = Buffer.from(JSON.stringify({ jql: a.jql, offset: offset + size })).toString('base64url');
    return { status: 200, body };
  };
  return {
    searchAndReconsileIssuesUsingJql: (i) =>
      run({
        jql: firstString(i.query.jql) ?? '',
        nextPageToken: firstString(i.query.nextPageToken),
        maxResults: intParam(i.query, 'maxResults', 50),
        fields: i.query.fields,
      }),
    searchAndReconsileIssuesUsingJqlPost: (i) => run({ jql: '', ...(i.body as Partial<CloudArgs>) }),
  };
}

/*
 * Data Center's /rest/api/2/search, which no spec here covers. Parameters per Atlassian's Data Center
 * REST docs (search resource): jql, startAt (default 0), maxResults (default 50, at most 1000),
 * validateQuery (boolean), fields (comma-separated, repeatable; default *navigable), expand;
 * POST takes the same as a JSON body with fields and expand as arrays. Unknown parameters are refused
 * here so that Cloud-only ones (nextPageToken, reconcileIssues, ...) sent to Data Center show up.
 */
const strOrList = z.union([z.string(), z.array(z.string())]);
const uint = z.string().regex(/^\d+$/, 'must be a non-negative integer');
const DcSearchQuery = z.strictObject({
  jql: z.string().optional(),
  startAt: uint.optional(),
  maxResults: uint.optional(),
  validateQuery: z.enum(['true', 'false']).optional(),
  fields: strOrList.optional(),
  expand: z.string().optional(),
});
const DcSearchBody = z.strictObject({
  jql: z.string().optional(),
  startAt: z.number().int().min(0).optional(),
  maxResults: z.number().int().min(0).optional(),
  validateQuery: z.boolean().optional(),
  fields: z.array(z.string()).optional(),
  expand: z.array(z.string()).optional(),
});

const zodErrors = (r: { success: boolean; error?: z.ZodError }): string[] =>
  r.error?.issues.map((i) => `/${i.path.join('/')} ${i.message}`) ?? [];

export const DC_SEARCH_ROUTES: ExtraRoute[] = [
  {
    method: 'GET',
    path: '/rest/api/2/search',
    operationId: 'searchDc',
    validate: ({ query }) => zodErrors(DcSearchQuery.safeParse(query)),
  },
  {
    method: 'POST',
    path: '/rest/api/2/search',
    operationId: 'searchDcPost',
    validate: ({ body }) => zodErrors(DcSearchBody.safeParse(body ?? {})),
  },
];

export function dcSearch(state: JiraState, site: () => Site): Record<string, Handler> {
  const run = (
    jql: string,
    startAt: number,
    maxResults: number,
    fields: string | string[] | undefined,
  ): HandlerResult => {
    const found = evaluate(state, jql, false);
    if (!Array.isArray(found)) return found;
    const size = Math.min(maxResults, 1000);
    const selected = selectFields(fields, 'navigable');
    return {
      status: 200,
      body: {
        expand: 'schema,names',
        startAt,
        maxResults: size,
        total: found.length,
        issues: found.slice(startAt, startAt + size).map((i) => issueJson(i, selected, site())),
      },
    };
  };
  return {
    searchDc: (i) =>
      run(
        firstString(i.query.jql) ?? '',
        intParam(i.query, 'startAt', 0),
        intParam(i.query, 'maxResults', 50),
        i.query.fields,
      ),
    searchDcPost: (i) => {
      const b = (i.body ?? {}) as z.infer<typeof DcSearchBody>;
      return run(b.jql ?? '', b.startAt ?? 0, b.maxResults ?? 50, b.fields);
    },
  };
}
