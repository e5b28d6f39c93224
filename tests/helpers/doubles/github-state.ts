/** In-memory GitHub: repositories, their issues and comments, collaborators' permissions, tokens. */

export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';
export type AuthorAssociation =
  'COLLABORATOR' | 'CONTRIBUTOR' | 'FIRST_TIMER' | 'FIRST_TIME_CONTRIBUTOR' | 'MANNEQUIN' | 'MEMBER' | 'NONE' | 'OWNER';

export interface GhUser {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface GhComment {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  user: GhUser;
  created_at: string;
  updated_at: string;
}

export interface GhIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  user: GhUser;
  author_association: AuthorAssociation;
  state: 'open' | 'closed';
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  comments: GhComment[];
}

export interface GhRepo {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  issues: Map<number, GhIssue>;
  /** Explicit permissions; token users without one get `tokenAccess`, others none (private) or read (public). */
  permissions: Map<string, Permission>;
  tokenAccess: Permission;
}

export interface NewRepo {
  owner: string;
  name: string;
  private?: boolean;
  tokenAccess?: Permission;
}
export interface NewIssue {
  owner: string;
  repo: string;
  number?: number;
  title: string;
  body?: string | null;
  labels?: string[];
  user?: string;
  author_association?: AuthorAssociation;
  state?: 'open' | 'closed';
  created_at?: string;
  updated_at?: string;
}
export interface NewComment {
  owner: string;
  repo: string;
  issue_number: number;
  body: string;
  user?: string;
  created_at?: string;
}

/** GitHub timestamps have no milliseconds. */
export const ghTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export class GithubState {
  readonly repos = new Map<string, GhRepo>();
  readonly users = new Map<string, GhUser>();
  readonly tokens = new Map<string, GhUser>();
  private nextId = 1000;

  constructor(readonly clock: () => Date = () => new Date()) {}

  now(): string {
    return ghTime(this.clock());
  }

  newId(): number {
    return ++this.nextId;
  }

  user(login: string, type: GhUser['type'] = login.endsWith('[bot]') ? 'Bot' : 'User'): GhUser {
    let u = this.users.get(login);
    if (!u) this.users.set(login, (u = { login, id: this.newId(), type }));
    return u;
  }

  /** Makes `token` authenticate as `login` (Authorization: token X or Bearer X). */
  addToken(token: string, login: string, id?: number): GhUser {
    const u = this.user(login);
    if (id !== undefined) u.id = id;
    this.tokens.set(token, u);
    return u;
  }

  addRepo({ owner, name, private: priv = true, tokenAccess = 'write' }: NewRepo): GhRepo {
    this.user(owner, 'Organization');
    const repo: GhRepo = {
      id: this.newId(),
      owner,
      name,
      private: priv,
      issues: new Map(),
      permissions: new Map(),
      tokenAccess,
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repo);
    return repo;
  }

  repo(owner: string, name: string): GhRepo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  private mustRepo(owner: string, name: string): GhRepo {
    const r = this.repo(owner, name);
    if (!r) throw new Error(`no repository ${owner}/${name}: addRepo first`);
    return r;
  }

  setPermission(owner: string, repo: string, username: string, permission: Permission): void {
    this.user(username);
    this.mustRepo(owner, repo).permissions.set(username, permission);
  }

  permission(repo: GhRepo, login: string): Permission {
    const explicit = repo.permissions.get(login);
    if (explicit) return explicit;
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'admin';
    if ([...this.tokens.values()].some((u) => u.login === login)) return repo.tokenAccess;
    return repo.private ? 'none' : 'read';
  }

  canSee(repo: GhRepo, login: string): boolean {
    return !repo.private || this.permission(repo, login) !== 'none';
  }

  association(repo: GhRepo, login: string): AuthorAssociation {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
    return ['admin', 'maintain', 'write', 'triage'].includes(this.permission(repo, login)) ? 'COLLABORATOR' : 'NONE';
  }

  addIssue(i: NewIssue): GhIssue {
    const repo = this.mustRepo(i.owner, i.repo);
    const number = i.number ?? Math.max(0, ...repo.issues.keys()) + 1;
    const created = i.created_at ?? this.now();
    const user = this.user(i.user ?? 'octocat');
    const issue: GhIssue = {
      id: this.newId(),
      number,
      title: i.title,
      body: i.body ?? null,
      labels: i.labels ?? [],
      user,
      author_association: i.author_association ?? this.association(repo, user.login),
      state: i.state ?? 'open',
      created_at: created,
      updated_at: i.updated_at ?? created,
      closed_at: i.state === 'closed' ? (i.updated_at ?? created) : null,
      comments: [],
    };
    repo.issues.set(number, issue);
    return issue;
  }

  issue(owner: string, repo: string, number: number): GhIssue | undefined {
    return this.repo(owner, repo)?.issues.get(number);
  }

  addComment(c: NewComment): GhComment {
    const issue = this.issue(c.owner, c.repo, c.issue_number);
    if (!issue) throw new Error(`no issue ${c.owner}/${c.repo}#${c.issue_number}: addIssue first`);
    const at = c.created_at ?? this.now();
    const comment: GhComment = {
      id: this.newId(),
      owner: c.owner,
      repo: c.repo,
      issueNumber: c.issue_number,
      body: c.body,
      user: this.user(c.user ?? 'octocat'),
      created_at: at,
      updated_at: at,
    };
    issue.comments.push(comment);
    if (at > issue.updated_at) issue.updated_at = at;
    return comment;
  }

  /** The comments on one issue, oldest first. */
  comments(owner: string, repo: string, issueNumber: number): GhComment[] {
    return this.issue(owner, repo, issueNumber)?.comments ?? [];
  }

  findComment(owner: string, repo: string, id: number): GhComment | undefined {
    for (const issue of this.repo(owner, repo)?.issues.values() ?? []) {
      const c = issue.comments.find((x) => x.id === id);
      if (c) return c;
    }
    return undefined;
  }
}
