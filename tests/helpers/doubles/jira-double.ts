import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type OpenApiDouble } from './openapi-double.js';
import { JIRA_V3_SPEC, loadSpec } from './specs.js';
import { jiraHandlers } from './jira-handlers.js';
import { DC_SEARCH_ROUTES, dcSearch } from './jira-search.js';
import { jiraError, type Site } from './jira-shapes.js';
import { JiraState, makeUser, type Deployment, type JiraUser } from './jira-state.js';
import { dataCenterSpec } from './jira-v2.js';

export { JiraState, adfParagraph, adfText } from './jira-state.js';
export type {
  AdfDoc,
  Deployment,
  JiraComment,
  JiraIssue,
  JiraUser,
  NewJiraComment,
  NewJiraIssue,
} from './jira-state.js';

export interface JiraDoubleOptions {
  deployment: Deployment;
  /** Cloud basic auth: `Authorization: Basic base64(email:apiToken)`. */
  email?: string;
  apiToken?: string;
  /** Data Center personal access token: `Authorization: Bearer <pat>`. */
  pat?: string;
  /** The authenticated user (default "Lestrade Bot"). */
  user?: Partial<JiraUser>;
  /** Comment size limit (Jira's default 32767; configurable on Data Center). */
  commentLimit?: number;
  clock?: () => Date;
}

export interface JiraDouble extends OpenApiDouble {
  deployment: Deployment;
  state: JiraState;
  /** The user behind the credentials; comments created through the API are theirs. */
  user: JiraUser;
  /** The REST prefix this deployment serves: /rest/api/3 (Cloud) or /rest/api/2 (Data Center). */
  apiPath: string;
  addIssue: JiraState['addIssue'];
  addComment: JiraState['addComment'];
  addProject: JiraState['addProject'];
}

function authenticate(opts: Required<Pick<JiraDoubleOptions, 'deployment' | 'email' | 'apiToken' | 'pat'>>) {
  return (headers: IncomingHttpHeaders): string | undefined => {
    const auth = headers.authorization ?? '';
    if (opts.deployment === 'cloud') {
      const basic = /^Basic\s+(\S+)$/i.exec(auth)?.[1];
      return basic && Buffer.from(basic, 'base64').toString('utf8') === `${opts.email}:${opts.apiToken}`
        ? opts.email
        : undefined;
    }
    return /^Bearer\s+(\S+)$/i.exec(auth)?.[1] === opts.pat ? opts.pat : undefined;
  };
}

/**
 * GET /user, /project/{key}/role and /project/{key}/role/{id}, trimmed from
 * Atlassian's public jira-cloud-platform-v3 swagger-v3.v3.json with tests/fixtures/specs/tools/trim_openapi.py
 * (`trim_openapi.py <spec> jira-trust.json '/rest/api/3/user:get' '/rest/api/3/project/{projectIdOrKey}/role:get'
 * '/rest/api/3/project/{projectIdOrKey}/role/{id}:get'`): how the webhook checks who may command Lestrade.
 */
const TRUST_SPEC = new URL('../../fixtures/specs/jira-trust.json', import.meta.url);

function withTrust(spec: Document): Document {
  const extra = JSON.parse(readFileSync(TRUST_SPEC, 'utf8')) as Document;
  const merged = structuredClone(spec) as Document & { components: Record<string, Record<string, unknown>> };
  merged.paths = { ...merged.paths, ...extra.paths };
  for (const [kind, entries] of Object.entries(extra.components ?? {})) {
    merged.components[kind] = { ...(entries as Record<string, unknown>), ...(merged.components[kind] ?? {}) };
  }
  return merged;
}

/** A Jira double on 127.0.0.1: Cloud (/rest/api/3) or Data Center (/rest/api/2), validated against Atlassian's v3 spec subset. */
export async function startJiraDouble(opts: JiraDoubleOptions): Promise<JiraDouble> {
  const cloud = opts.deployment === 'cloud';
  const email = opts.email ?? 'lestrade@example.com';
  const user = { ...makeUser('Lestrade Bot', email, '5b10ac8d82e05b22cc7d4ef5'), ...opts.user };
  if (!cloud) user.accountId = '';
  const state = new JiraState(opts.deployment, user, opts.clock);
  const v3 = withTrust(loadSpec(JIRA_V3_SPEC));
  let site: Site = { base: '', deployment: opts.deployment };
  const ctx = { state, site: () => site, commentLimit: opts.commentLimit ?? 32767 };

  const double = await startOpenApiDouble({
    spec: cloud ? v3 : dataCenterSpec(v3),
    handlers: { ...jiraHandlers(ctx), ...(cloud ? {} : dcSearch(state, ctx.site)) },
    extraRoutes: cloud ? [] : DC_SEARCH_ROUTES,
    authenticate: authenticate({
      deployment: opts.deployment,
      email,
      apiToken: opts.apiToken ?? 'test-api-token',
      pat: opts.pat ?? 'test-pat',
    }),
    unauthorized: () =>
      jiraError(401, ['You are not authenticated. Authentication required to perform this operation.']),
    refuse: (kind, errors) =>
      kind === 'not-found' ? jiraError(404, [`null for uri: ${errors.join('; ')}`]) : jiraError(400, errors),
  });
  site = { base: double.url, deployment: opts.deployment };

  return {
    ...double,
    deployment: opts.deployment,
    state,
    user,
    apiPath: cloud ? '/rest/api/3' : '/rest/api/2',
    addIssue: state.addIssue.bind(state),
    addComment: state.addComment.bind(state),
    addProject: state.addProject.bind(state),
  };
}
