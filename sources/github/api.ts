import { PermanentError } from '../../src/errors.js';
import type { GitHubOctokit } from './client.js';
import { callGitHub, githubError } from './github-error.js';
import type { GhComment, GhIssue } from './map.js';

/** A GitHub identity Lestrade acts as: a token's user, or an App's installation. */
export type AuthKind = 'token' | 'app';

const PAGE = 100;
/** Writes never retry in-process: a POST retried after a lost answer is a second comment. */
const NO_RETRY = { request: { retries: 0 } };

/**
 * The GitHub calls Lestrade makes, each failing with a typed error (see github-error.ts).
 * One instance per config, so our own login is looked up once.
 */
export class GitHubApi {
  private login: Promise<string> | null = null;

  constructor(
    readonly octokit: GitHubOctokit,
    readonly instance: string,
    private readonly auth: AuthKind,
  ) {}

  /** Our login: the token's user, or `<app slug>[bot]` for an App (its comments appear under that name). */
  botLogin(): Promise<string> {
    this.login ??= callGitHub(async () => {
      if (this.auth === 'token') return (await this.octokit.rest.users.getAuthenticated()).data.login;
      const app = (await this.octokit.rest.apps.getAuthenticated()).data;
      return `${app?.slug ?? ''}[bot]`;
    }).catch((err: unknown) => {
      this.login = null;
      throw tokenWithoutUser(err, this.auth);
    });
    return this.login;
  }

  async repository(owner: string, repo: string): Promise<{ full_name: string; private: boolean }> {
    const { data } = await callGitHub(() => this.octokit.rest.repos.get({ owner, repo }));
    return { full_name: data.full_name, private: data.private };
  }

  /** The user's permission on the repository; null when GitHub does not know them there (404). */
  async permission(
    owner: string,
    repo: string,
    username: string,
  ): Promise<{ permission: string; role_name: string } | null> {
    return orNull(
      async () => (await this.octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username })).data,
    );
  }

  /** Every comment on the issue, oldest first, all pages. */
  async comments(owner: string, repo: string, number: number): Promise<GhComment[]> {
    return callGitHub(() =>
      this.octokit.paginate(this.octokit.rest.issues.listComments, {
        owner,
        repo,
        issue_number: number,
        per_page: PAGE,
      }),
    );
  }

  /** The last `want` comments (or a few more), from the last pages only; `total` is the issue's comment count. */
  async recentComments(owner: string, repo: string, number: number, total: number, want: number): Promise<GhComment[]> {
    let page = Math.ceil(total / PAGE);
    // `total` comes from the delivery: however large it claims to be, walk back two pages at most.
    const stop = Math.max(1, page - 1);
    const out: GhComment[] = [];
    while (page >= stop && out.length < want) {
      const p = page;
      const { data } = await callGitHub(() =>
        this.octokit.rest.issues.listComments({ owner, repo, issue_number: number, per_page: PAGE, page: p }),
      );
      out.unshift(...data);
      page -= 1;
    }
    return out;
  }

  async comment(owner: string, repo: string, id: number): Promise<(GhComment & { issue_url: string }) | null> {
    return orNull(async () => (await this.octokit.rest.issues.getComment({ owner, repo, comment_id: id })).data);
  }

  async createComment(owner: string, repo: string, number: number, body: string): Promise<GhComment> {
    return (
      await callGitHub(() =>
        this.octokit.rest.issues.createComment({ owner, repo, issue_number: number, body, ...NO_RETRY }),
      )
    ).data;
  }

  async updateComment(owner: string, repo: string, id: number, body: string): Promise<GhComment> {
    return (
      await callGitHub(() => this.octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body, ...NO_RETRY }))
    ).data;
  }

  /**
   * GET /search/issues, following every page (up to `limit` results when given). Search answers at
   * most 1,000 results per query; pollers move their cursor forward to get past that.
   */
  async searchIssues(
    q: string,
    sort: 'created' | 'updated',
    order: 'asc' | 'desc',
    limit?: number,
  ): Promise<GhIssue[]> {
    let seen = 0;
    return callGitHub(() =>
      this.octokit.paginate(
        this.octokit.rest.search.issuesAndPullRequests,
        { q, sort, order, per_page: PAGE },
        (res, done) => {
          seen += res.data.length;
          if (limit !== undefined && seen >= limit) done();
          return res.data;
        },
      ),
    );
  }
}

/** An installation token passed as GITHUB_TOKEN cannot read GET /user, so we could not tell our comments from others'. */
function tokenWithoutUser(err: unknown, auth: AuthKind): unknown {
  if (auth !== 'token' || !(err instanceof PermanentError) || !/HTTP 403/.test(err.message)) return err;
  return new PermanentError(
    `github: cannot tell whose GITHUB_TOKEN this is (GET /user: ${err.message}); use a user's token or GitHub App credentials`,
    { cause: err },
  );
}

async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if ((err as { response?: { status?: number } }).response?.status === 404) return null;
    // A name that cannot be written into a URL (a lone surrogate) names nothing GitHub knows.
    if (err instanceof URIError) return null;
    throw githubError(err);
  }
}
