/** In-memory Jira: projects, issues, their comments and the comments' properties. */

export type Deployment = 'cloud' | 'datacenter';

/** An ADF document (Cloud v3 bodies and descriptions). */
export interface AdfDoc {
  type: 'doc';
  version: 1;
  content: unknown[];
}

export interface JiraUser {
  accountId: string;
  /** Data Center's username and user key (Cloud has neither). */
  name: string;
  key: string;
  displayName: string;
  emailAddress: string;
}

export interface JiraComment {
  id: string;
  issueKey: string;
  /** ADF on Cloud, a wiki-markup string on Data Center. */
  body: unknown;
  author: JiraUser;
  updateAuthor: JiraUser;
  created: number;
  updated: number;
  properties: Record<string, unknown>;
  /** Jira's comment `visibility`: `{type: 'role' | 'group', value}` restricts who sees the comment. */
  visibility?: unknown;
}

export interface JiraIssue {
  id: string;
  key: string;
  project: string;
  /** The project's `projectTypeKey`: `software`, `service_desk` (Jira Service Management) or `business`. */
  projectType: string;
  summary: string;
  /** ADF on Cloud, a string on Data Center, or null. */
  description: unknown;
  labels: string[];
  priority: string | null;
  components: string[];
  status: string;
  issuetype: string;
  created: number;
  updated: number;
  reporter: JiraUser | null;
  comments: JiraComment[];
}

export interface NewJiraIssue {
  key: string;
  summary: string;
  /** A string becomes a one-paragraph ADF document on Cloud. */
  description?: string | AdfDoc | null;
  labels?: string[];
  priority?: string | null;
  components?: string[];
  status?: string;
  issuetype?: string;
  created?: Date | string;
  updated?: Date | string;
  reporter?: JiraUser | null;
}

export interface NewJiraComment {
  issueKey: string;
  /** A string becomes a one-paragraph ADF document on Cloud. */
  body: string | AdfDoc;
  author?: JiraUser;
  created?: Date | string;
  properties?: Record<string, unknown>;
  visibility?: { type: 'role' | 'group'; value: string };
}

export const adfParagraph = (text: string): AdfDoc => ({
  type: 'doc',
  version: 1,
  content: [{ type: 'paragraph', content: text ? [{ type: 'text', text }] : [] }],
});

/** The text of an ADF document (for Data Center seeding and renderedBody). */
export function adfText(node: unknown): string {
  if (!node || typeof node !== 'object') return typeof node === 'string' ? node : '';
  const n = node as { text?: unknown; content?: unknown[] };
  return (typeof n.text === 'string' ? n.text : '') + (n.content ?? []).map(adfText).join('');
}

const ms = (d: Date | string | undefined, fallback: number): number => {
  if (d === undefined) return fallback;
  return typeof d === 'string' ? Date.parse(d) : d.getTime();
};

export function makeUser(displayName: string, emailAddress: string, accountId: string): JiraUser {
  const name = emailAddress.split('@')[0] ?? displayName;
  return {
    accountId,
    name,
    key: `JIRAUSER${accountId.replace(/\D/g, '').slice(-5) || '10000'}`,
    displayName,
    emailAddress,
  };
}

/** A project role: its id, and the users (accountId on Cloud, name on Data Center) and groups in it. */
export interface JiraRole {
  id: number;
  name: string;
  users: string[];
  groups: string[];
}

/** The comment property Jira Service Management reads: `{internal: true}` keeps a comment off the portal. */
export const SD_PUBLIC_COMMENT = 'sd.public.comment';

/** Internal to a service desk: the comment carries `sd.public.comment = {internal: true}`. */
export function isInternal(c: Pick<JiraComment, 'properties'>): boolean {
  const p = c.properties[SD_PUBLIC_COMMENT] as { internal?: unknown } | undefined;
  return p?.internal === true;
}

export class JiraState {
  readonly projects = new Set<string>();
  /** projectTypeKey by project key (default `software`). */
  readonly projectTypes = new Map<string, string>();
  /** Group names by user (accountId on Cloud, name on Data Center). */
  readonly groups = new Map<string, string[]>();
  /** Project roles by project key. */
  readonly roles = new Map<string, JiraRole[]>();
  readonly issues = new Map<string, JiraIssue>();
  private nextIssueId = 10000;
  private nextCommentId = 10000;

  constructor(
    readonly deployment: Deployment,
    readonly me: JiraUser,
    readonly clock: () => Date = () => new Date(),
  ) {}

  now(): number {
    return this.clock().getTime();
  }

  private body(b: string | AdfDoc | null | undefined): unknown {
    if (b === null || b === undefined) return null;
    if (this.deployment === 'cloud') return typeof b === 'string' ? adfParagraph(b) : b;
    return typeof b === 'string' ? b : adfText(b);
  }

  setGroups(user: string, groups: string[]): void {
    this.groups.set(user, groups);
  }

  setRole(project: string, name: string, actors: { users?: string[]; groups?: string[] }): void {
    const roles = this.roles.get(project) ?? [];
    const id = roles.find((r) => r.name === name)?.id ?? 10000 + roles.length + 2;
    const role = { id, name, users: actors.users ?? [], groups: actors.groups ?? [] };
    this.roles.set(project, [...roles.filter((r) => r.name !== name), role]);
  }

  /** A project, and its type when given (`service_desk` for Jira Service Management); its issues follow it. */
  addProject(key: string, type?: string): void {
    const k = key.toUpperCase();
    this.projects.add(k);
    if (type === undefined) return;
    this.projectTypes.set(k, type);
    for (const i of this.issues.values()) if (i.project === k) i.projectType = type;
  }

  /** Lestrade's account as roles and the user API name it: accountId on Cloud, username on Data Center. */
  meId(): string {
    return this.deployment === 'cloud' ? this.me.accountId : this.me.name;
  }

  /**
   * Why our account may not restrict a comment of `project` to `visibility` (Jira's own words), or
   * null when it may: the role must exist in the project with us among its actors (directly or
   * through a group), the group must be one of ours.
   */
  visibilityRefusal(project: string, visibility: { type?: unknown; value?: unknown }): string | null {
    const value = typeof visibility.value === 'string' ? visibility.value : '';
    if (!value) return 'A visibility restriction needs the name of a group or role.';
    const mine = this.groups.get(this.meId()) ?? [];
    if (visibility.type === 'group')
      return mine.includes(value) ? null : `You are currently not a member of the group: ${value}.`;
    const role = (this.roles.get(project) ?? []).find((r) => r.name === value);
    if (!role) return `Role with id: ${value} does not exist.`;
    const member = role.users.includes(this.meId()) || role.groups.some((g) => mine.includes(g));
    return member ? null : `You are currently not a member of the project role: ${value}.`;
  }

  /** Whether our account sees the comment: one restricted to a role or group we are not in is hidden. */
  canSee(c: JiraComment): boolean {
    const issue = this.issue(c.issueKey);
    return !c.visibility || !issue || this.visibilityRefusal(issue.project, c.visibility) === null;
  }

  addIssue(i: NewJiraIssue): JiraIssue {
    const project = i.key.split('-')[0]?.toUpperCase() ?? '';
    this.addProject(project);
    const created = ms(i.created, this.now());
    const issue: JiraIssue = {
      id: String(++this.nextIssueId),
      key: i.key.toUpperCase(),
      project,
      projectType: this.projectTypes.get(project) ?? 'software',
      summary: i.summary,
      description: this.body(i.description),
      labels: i.labels ?? [],
      priority: i.priority === undefined ? 'Medium' : i.priority,
      components: i.components ?? [],
      status: i.status ?? 'Open',
      issuetype: i.issuetype ?? 'Task',
      created,
      updated: ms(i.updated, created),
      reporter: i.reporter === undefined ? this.me : i.reporter,
      comments: [],
    };
    this.issues.set(issue.key, issue);
    return issue;
  }

  /** By key (case-insensitive) or numeric id, as the REST API accepts either. */
  issue(idOrKey: string): JiraIssue | undefined {
    const byKey = this.issues.get(idOrKey.toUpperCase());
    if (byKey) return byKey;
    for (const i of this.issues.values()) if (i.id === idOrKey) return i;
    return undefined;
  }

  addComment(c: NewJiraComment): JiraComment {
    const issue = this.issue(c.issueKey);
    if (!issue) throw new Error(`no issue ${c.issueKey}: addIssue first`);
    const at = ms(c.created, this.now());
    const author = c.author ?? this.me;
    const comment: JiraComment = {
      id: String(++this.nextCommentId),
      issueKey: issue.key,
      body: this.body(c.body),
      author,
      updateAuthor: author,
      created: at,
      updated: at,
      properties: { ...c.properties },
      ...(c.visibility ? { visibility: c.visibility } : {}),
    };
    issue.comments.push(comment);
    issue.updated = Math.max(issue.updated, at);
    return comment;
  }

  /** The comments on one issue, oldest first, each with its properties. */
  comments(issueKey: string): JiraComment[] {
    return this.issue(issueKey)?.comments ?? [];
  }

  comment(id: string): JiraComment | undefined {
    for (const i of this.issues.values()) {
      const c = i.comments.find((x) => x.id === id);
      if (c) return c;
    }
    return undefined;
  }
}
