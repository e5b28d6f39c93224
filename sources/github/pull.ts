import { ConfigError } from '../../src/errors.js';
import type { PullSpec, SourceContext } from '../../src/registration/source.js';
import type { GitHubApi } from './api.js';
import { repoName, type GitHubConfig } from './config.js';
import { GitHubIssueSearch, type PullQuery } from './issue-search.js';
import { githubWriteGate } from './pull-trust.js';

export const DEFAULT_PULL_QUERY = 'is:open';

/** `lestrade investigate github --repo OWNER/NAME [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function githubPull(apiFor: (c: GitHubConfig, ctx: SourceContext) => GitHubApi): PullSpec<GitHubConfig> {
  return {
    description: 'investigate GitHub issues found by a search in one repository (GET /search/issues)',
    noun: 'issue',
    options: [
      { flags: '--repo <owner/name>', description: 'the repository to search (required)' },
      {
        flags: '--query <qualifiers>',
        description: 'search qualifiers, e.g. "is:open label:bug"',
        defaultValue: DEFAULT_PULL_QUERY,
      },
    ],
    prepare(config, opts, ctx) {
      const repo = opts.repo as string | undefined;
      if (!repo) throw new ConfigError('--repo OWNER/NAME is required');
      if (!repoName.safeParse(repo).success) throw new ConfigError(`--repo ${repo}: expected owner/name`);
      const query: PullQuery = {
        repo,
        query: (opts.query as string | undefined) ?? DEFAULT_PULL_QUERY,
        limit: opts.limit as number | undefined,
      };
      const api = apiFor(config, ctx);
      const client = new GitHubIssueSearch(api, config.trustedAssociations);
      return { client, query, writeGate: githubWriteGate(api, config, client) };
    },
  };
}
