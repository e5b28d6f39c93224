import type { Logger } from '../../src/log.js';
import type { Poller } from '../../src/registration/source.js';
import type { GitHubApi } from './api.js';
import type { GitHubConfig } from './config.js';
import { issuesWithComments } from './issue-search.js';
import { isPullRequest } from './map.js';
import { labelQualifier, publicRepoAllowed, repoPolicy } from './repo-policy.js';

/** The query a poll entry runs: its own, or open issues with the repository's trigger label. */
export function pollQuery(config: GitHubConfig, entry: GitHubConfig['poll'][number]): string {
  return entry.query ?? `is:open ${labelQualifier(repoPolicy(config, entry.repo).triggerLabel)}`;
}

/**
 * One poller per `poll` entry (disabled repositories have none). The cursor is the newest
 * `updated_at` seen; each poll asks for `updated:>=cursor`, oldest first, so a restart re-reads
 * the boundary rather than missing anything, and intake's identity dedup absorbs the overlap.
 */
export function githubPollers(config: GitHubConfig, api: GitHubApi, log: Logger): Poller[] {
  return config.poll
    .filter((entry) => repoPolicy(config, entry.repo).enabled)
    .map((entry) => {
      const query = pollQuery(config, entry);
      return {
        id: `github:${entry.repo}:${query}`,
        everyMs: entry.everySeconds * 1000,
        poll: (cursor) => pollOnce(api, config, entry.repo, query, cursor || null, log),
      };
    });
}

export async function pollOnce(
  api: GitHubApi,
  config: GitHubConfig,
  repo: string,
  query: string,
  cursor: string | null,
  log: Logger,
) {
  const [owner = '', name = ''] = repo.split('/');
  const r = await api.repository(owner, name);
  if (!r.private && !publicRepoAllowed(config, r.full_name)) {
    log.warn(
      { source: 'github', repo: r.full_name },
      'poll skipped: the repository is public and not in sources.github.allowPublicRepos',
    );
    return { issues: [], cursor: cursor ?? '' };
  }
  // The cursor stays in GitHub's own form (…Z): octokit sends a "+" in q as a space, so +00:00 would break.
  const q = `repo:${repo} is:issue ${query}${cursor ? ` updated:>=${cursor}` : ''}`;
  const items = (await api.searchIssues(q, 'updated', 'asc')).filter((i) => !isPullRequest(i));
  const newest = items.reduce((max, i) => (i.updated_at > max ? i.updated_at : max), cursor ?? '');
  return { issues: await issuesWithComments(api, items, config.trustedAssociations), cursor: newest };
}
