import type { Issue } from '../../src/issue.js';
import type { WriteGate } from '../../src/registration/source.js';
import type { GitHubApi } from './api.js';
import type { GitHubConfig } from './config.js';
import type { GitHubIssueSearch } from './issue-search.js';
import { labelNames } from './map.js';
import { hasAnyMarker } from './marker.js';
import { publicRepoAllowed, repoPolicy, sameLabel } from './repo-policy.js';
import { isCommand } from './trigger.js';

/**
 * The webhooks' trust rules for `lestrade investigate github --update`: the repository passes the
 * same gates (enabled in sources.github.repos; public ones only when allowed), and the issue carries
 * the trigger label (applying a label takes triage access), or was opened by an author of
 * sources.github.trustedAssociations, or has a `/lestrade investigate` comment by one.
 */
export function githubWriteGate(api: GitHubApi, config: GitHubConfig, search: GitHubIssueSearch): WriteGate {
  const privacy = new Map<string, Promise<boolean>>();
  const isPrivate = (repo: string) => {
    const [owner = '', name = ''] = repo.split('/');
    if (!privacy.has(repo))
      privacy.set(
        repo,
        api.repository(owner, name).then((r) => r.private),
      );
    return privacy.get(repo)!;
  };
  return async (issue: Issue) => {
    const found = issue.locator ? search.found.get(issue.locator.key) : undefined;
    if (!found) return 'not found by this search';
    const repo = issue.locator!.key.replace(/#\d+$/, '');
    const policy = repoPolicy(config, repo);
    if (!policy.enabled) return `${repo} is disabled in sources.github.repos`;
    if (!(await isPrivate(repo)) && !publicRepoAllowed(config, repo))
      return `${repo} is public and not in sources.github.allowPublicRepos`;
    const { item, comments } = found;
    if (labelNames(item).some((l) => sameLabel(l, policy.triggerLabel))) return null;
    const trusted = (association: string | undefined) => config.trustedAssociations.includes(association as never);
    if (trusted(item.author_association)) return null;
    const command = comments.some(
      (c) => !hasAnyMarker(c.body ?? '') && isCommand(c.body ?? '', config.command) && trusted(c.author_association),
    );
    if (command) return null;
    return (
      `no label ${policy.triggerLabel}, opened by @${item.user?.login ?? 'ghost'} (${item.author_association ?? 'NONE'}, ` +
      `not in sources.github.trustedAssociations) and no ${config.command} comment by a trusted account`
    );
  };
}
