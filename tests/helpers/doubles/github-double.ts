import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type ExtraRoute, type Handler, type OpenApiDouble } from './openapi-double.js';
import { GITHUB_SPEC, loadSpec } from './specs.js';
import { githubHandlers, type GithubApp } from './github-handlers.js';
import { ghError } from './github-shapes.js';
import { GithubState, type GhUser } from './github-state.js';

export { GithubState, GITHUB_SPEC };
export type { GhComment, GhIssue, GhRepo, GhUser, Permission } from './github-state.js';
export { GITHUB_COMMENT_LIMIT } from './github-handlers.js';

export interface GithubDoubleOptions {
  /** The token clients send (`Authorization: token X` or `Bearer X`); default 'test-token'. */
  token?: string;
  /** Whom that token authenticates; default the app's bot, `${app.slug}[bot]`. */
  login?: string;
  userId?: number;
  /** The GitHub App behind the bot: GET /app and installation tokens (any JWT-shaped Bearer is accepted there). */
  app?: Partial<GithubApp>;
  /** The double's clock, for created_at/updated_at. */
  clock?: () => Date;
  /** Routes the spec subset does not cover (e.g. github-changes-routes.ts), each validated by its own rules. */
  extra?: { routes: ExtraRoute[]; handlers: Record<string, Handler> };
}

export interface GithubDouble extends OpenApiDouble {
  state: GithubState;
  /** The user behind `token`. */
  user: GhUser;
  token: string;
  addRepo: GithubState['addRepo'];
  addIssue: GithubState['addIssue'];
  addComment: GithubState['addComment'];
  setPermission: GithubState['setPermission'];
}

const JWT = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** A GitHub REST double on 127.0.0.1 that validates requests against the issues subset of GitHub's spec. */
export async function startGithubDouble(opts: GithubDoubleOptions = {}): Promise<GithubDouble> {
  const spec = loadSpec(GITHUB_SPEC);
  const app: GithubApp = { id: 4242, slug: 'lestrade-bot', installationId: 1, ...opts.app };
  const state = new GithubState(opts.clock);
  const token = opts.token ?? 'test-token';
  const user = state.addToken(token, opts.login ?? `${app.slug}[bot]`, opts.userId);
  const examples = (spec as Document & { components: { examples: Record<string, { value: Record<string, unknown> }> } })
    .components.examples;

  const double = await startOpenApiDouble({
    spec,
    handlers: {
      ...githubHandlers({
        state,
        app,
        repoExample: examples['full-repository-default-response']?.value ?? {},
        appExample: examples.integration?.value ?? {},
      }),
      ...opts.extra?.handlers,
    },
    extraRoutes: opts.extra?.routes,
    authenticate: (headers, operationId) => {
      const cred = /^(?:token|bearer)\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
      if (!cred) return undefined;
      // App endpoints take the app's JWT; everything else a user or installation token.
      if (operationId.startsWith('apps/')) return JWT.test(cred) ? cred : undefined;
      return state.tokens.has(cred) ? cred : undefined;
    },
    unauthorized: () => ghError(401, 'Bad credentials'),
    // GitHub answers 400 to a body that is not JSON and 422 to one its schema refuses.
    refuse: (kind, errors) => {
      if (kind === 'not-found') return ghError(404, 'Not Found');
      if (errors.some((e) => e.startsWith('body is not JSON'))) return ghError(400, 'Problems parsing JSON');
      return ghError(422, `Invalid request.\n\n${errors.join('\n')}`);
    },
    commonHeaders: () => ({
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(state.clock().getTime() / 1000) + 3600),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    }),
  });

  return {
    ...double,
    state,
    user,
    token,
    addRepo: state.addRepo.bind(state),
    addIssue: state.addIssue.bind(state),
    addComment: state.addComment.bind(state),
    setPermission: state.setPermission.bind(state),
  };
}
