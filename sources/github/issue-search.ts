import type { Issue } from '../../src/issue.js';
import type { SourceClient } from '../../src/registration/source.js';
import type { GitHubApi } from './api.js';
import {
  isPullRequest,
  issueKey,
  MAX_UNTRUSTED_COMMENTS,
  repoFromUrl,
  toIssue,
  type GhComment,
  type GhIssue,
} from './map.js';

/** What `lestrade investigate github` asks for. */
export interface PullQuery {
  /** "owner/name". */
  repo: string;
  /** Search qualifiers added to `repo:… is:issue`. */
  query: string;
  limit?: number;
}

/** Pull mode: GET /search/issues in one repository, every page, newest first; pull requests skipped. */
export class GitHubIssueSearch implements SourceClient<PullQuery> {
  /** What the last fetch found, by issue key ("owner/name#7"): the search result and its recent comments. */
  readonly found = new Map<string, Found>();

  constructor(
    private readonly api: GitHubApi,
    private readonly trustedAssociations?: readonly string[],
  ) {}

  async fetchIssues(q: PullQuery): Promise<Issue[]> {
    const items = await this.api.searchIssues(`repo:${q.repo} is:issue ${q.query}`.trim(), 'created', 'desc', q.limit);
    const issues = items.filter((i) => !isPullRequest(i)).slice(0, q.limit ?? Infinity);
    return issuesWithComments(this.api, issues, this.trustedAssociations, (key, found) => this.found.set(key, found));
  }
}

export interface Found {
  item: GhIssue;
  comments: GhComment[];
}

/** Search results as Issues, each with its recent comments as untrusted context. */
export async function issuesWithComments(
  api: GitHubApi,
  items: readonly GhIssue[],
  trustedAssociations?: readonly string[],
  seen?: (key: string, found: Found) => void,
): Promise<Issue[]> {
  // Unknown login: our own comments are still left out by their marker, and a failed lookup must not lose the issues.
  const botLogin = await api.botLogin().catch(() => null);
  const out: Issue[] = [];
  for (const item of items) {
    const repo = repoFromUrl(item.repository_url);
    if (!repo) continue;
    const [owner = '', name = ''] = repo.split('/');
    const comments = item.comments
      ? await api.recentComments(owner, name, item.number, item.comments, MAX_UNTRUSTED_COMMENTS)
      : [];
    seen?.(issueKey(repo, item.number), { item, comments });
    out.push(
      toIssue(item, {
        repo,
        instance: api.instance,
        trigger: { kind: 'label' },
        comments,
        botLogin,
        trustedAssociations,
      }),
    );
  }
  return out;
}
