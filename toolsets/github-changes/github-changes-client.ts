import { createOctokit, type GitHubOctokit } from '../../sources/github/client.js';
import { GitHubConfigSchema } from '../../sources/github/config.js';
import { callGitHub } from '../../sources/github/github-error.js';

/** One change in a repository: a commit, a merged pull request or a deployment, at a time. */
export interface Change {
  at: string;
  kind: 'commit' | 'pull' | 'deployment';
  text: string;
}

export interface Window {
  since: Date;
  until: Date;
}

/** Pages of closed pulls or deployments read back in time at most (100 each) before giving up on older ones. */
const MAX_PAGES = 3;

const inWindow = (iso: string | null | undefined, w: Window): boolean => {
  if (!iso) return false;
  const t = Date.parse(iso);
  return t >= w.since.getTime() && t <= w.until.getTime();
};
const short = (sha: string) => sha.slice(0, 7);
const firstLine = (s: string | null | undefined) => (s ?? '').split('\n')[0]!.slice(0, 200);

/**
 * What changed in a repository, read through the GitHub source's client (octokit with its retry
 * and rate-limit handling, typed errors).
 */
export class GitHubChangesClient {
  private readonly octokit: GitHubOctokit;

  constructor(cfg: { token?: string; apiUrl: string }) {
    this.octokit = createOctokit(GitHubConfigSchema.parse({ token: cfg.token, apiUrl: cfg.apiUrl }), { pacing: false });
  }

  /** null when the token can read the repository, else why not. */
  async probe(repo: string): Promise<string | null> {
    const [owner, name] = repo.split('/') as [string, string];
    try {
      await callGitHub(() => this.octokit.rest.repos.get({ owner, repo: name }));
      return null;
    } catch (err) {
      return `${repo}: ${(err as Error).message}`;
    }
  }

  async commits(repo: string, w: Window, limit: number, branch?: string): Promise<Change[]> {
    const [owner, name] = repo.split('/') as [string, string];
    const { data } = await callGitHub(() =>
      this.octokit.rest.repos.listCommits({
        owner,
        repo: name,
        since: w.since.toISOString(),
        until: w.until.toISOString(),
        per_page: limit,
        ...(branch ? { sha: branch } : {}),
      }),
    );
    return data.map((c) => ({
      at: c.commit.author?.date ?? c.commit.committer?.date ?? '',
      kind: 'commit',
      text: `commit ${short(c.sha)} by ${c.author?.login ?? c.commit.author?.name ?? '?'}: ${firstLine(c.commit.message)}`,
    }));
  }

  /** Pull requests merged in the window: closed ones, most recently updated first, until older than it. */
  async mergedPulls(repo: string, w: Window, limit: number): Promise<Change[]> {
    const [owner, name] = repo.split('/') as [string, string];
    const out: Change[] = [];
    for (let page = 1; page <= MAX_PAGES && out.length < limit; page += 1) {
      const { data } = await callGitHub(() =>
        this.octokit.rest.pulls.list({
          owner,
          repo: name,
          state: 'closed',
          sort: 'updated',
          direction: 'desc',
          per_page: 100,
          page,
        }),
      );
      for (const p of data.filter((x) => inWindow(x.merged_at, w))) {
        out.push({
          at: p.merged_at!,
          kind: 'pull',
          text: `merged PR #${p.number} into ${p.base.ref} by ${p.user?.login ?? '?'}: ${firstLine(p.title)} (${p.head.ref})`,
        });
      }
      // Updated before the window began: merged before it too.
      if (data.length < 100 || Date.parse(data.at(-1)!.updated_at) < w.since.getTime()) break;
    }
    return out.slice(0, limit);
  }

  async deployments(repo: string, w: Window, limit: number, environment?: string): Promise<Change[]> {
    const [owner, name] = repo.split('/') as [string, string];
    const out: Change[] = [];
    for (let page = 1; page <= MAX_PAGES && out.length < limit; page += 1) {
      const { data } = await callGitHub(() =>
        this.octokit.rest.repos.listDeployments({
          owner,
          repo: name,
          per_page: 100,
          page,
          ...(environment ? { environment } : {}),
        }),
      );
      for (const d of data.filter((x) => inWindow(x.created_at, w))) {
        const what = d.description ? `: ${firstLine(d.description)}` : '';
        out.push({
          at: d.created_at,
          kind: 'deployment',
          text: `deployment ${d.id} to ${d.environment}: ref ${d.ref} (${short(d.sha)}) by ${d.creator?.login ?? '?'}${what}`,
        });
      }
      if (data.length < 100 || Date.parse(data.at(-1)!.created_at) < w.since.getTime()) break;
    }
    return out.slice(0, limit);
  }
}
