import type { SourceContext, SourceRegistration } from '../../src/registration/source.js';
import { GitHubApi } from './api.js';
import { createOctokit, type ClientOptions } from './client.js';
import { appCredentials, disabledReason, GITHUB_ENV, GitHubConfigSchema, type GitHubConfig } from './config.js';
import { SOURCE } from './map.js';
import { githubPollers } from './pollers.js';
import { githubPull } from './pull.js';
import { githubWebhook } from './webhook.js';
import { githubWriter } from './writer.js';
import { perConfig } from '../common/per-config.js';

/** The GitHub calls for one config, authenticated as a token's user or an App installation. */
export function createGitHubApi(config: GitHubConfig, opts: ClientOptions = {}): GitHubApi {
  return new GitHubApi(createOctokit(config, opts), new URL(config.apiUrl).host, config.token ? 'token' : 'app');
}

// One client per config, so the webhook, the writer and the pollers share its pacing and our looked-up login.
const apiFor = perConfig((config: GitHubConfig, ctx: SourceContext) => createGitHubApi(config, { log: ctx.log }));

/** Said only by a process serving webhooks (not by `lestrade worker`). */
function webhookWarnings(c: GitHubConfig): string[] {
  return c.webhookSecret ? [] : ['no GITHUB_WEBHOOK_SECRET set: /webhooks/github refuses every delivery (401)'];
}

function warnings(c: GitHubConfig): string[] {
  const out: string[] = [];
  if (c.token && appCredentials(c)) out.push('both GITHUB_TOKEN and GitHub App credentials set: using the token');
  if (c.allowPublicRepos === true)
    out.push('sources.github.allowPublicRepos is true: RCAs may be posted on public repositories');
  return out;
}

/**
 * GitHub issues: webhook (label, command comment, close), pull mode (search), pollers, and the
 * RCA written back as one comment per issue, edited on later investigations.
 */
export const github: SourceRegistration<GitHubConfig> = {
  name: SOURCE,
  configSchema: GitHubConfigSchema,
  env: GITHUB_ENV,
  disabledReason,
  warnings,
  webhookWarnings,
  webhook: (c, ctx) => githubWebhook(c, apiFor(c, ctx), ctx.log),
  writer: (c, ctx) => (c.writeBack ? githubWriter(apiFor(c, ctx), c) : null),
  pollers: (c, ctx) => githubPollers(c, apiFor(c, ctx), ctx.log),
  pull: githubPull(apiFor),
};
