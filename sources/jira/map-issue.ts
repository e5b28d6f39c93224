import type { Issue, IssueLocator, Severity } from '../../src/issue.js';
import { jiraTimeToIso } from './jira-time.js';
import { isOwnComment, type SelfIdentity } from './own-comments.js';
import type { IssueBean, JiraComment } from './schema.js';
import { textOf } from './text-of.js';

export const SOURCE = 'jira';

const MAX_UNTRUSTED_COMMENTS = 5;
const MAX_COMMENT_CHARS = 2_000;

/** Jira's default priority names (Cloud, and Data Center's older scheme), lower-cased. */
const SEVERITY_BY_PRIORITY: ReadonlyMap<string, Severity> = new Map([
  ['highest', 'critical'],
  ['high', 'high'],
  ['medium', 'warning'],
  ['low', 'info'],
  ['lowest', 'info'],
  ['blocker', 'critical'],
  ['critical', 'critical'],
  ['major', 'high'],
  ['minor', 'warning'],
  ['trivial', 'info'],
]);

export function severityOf(priorityName: string | null | undefined): Severity {
  return (priorityName && SEVERITY_BY_PRIORITY.get(priorityName.trim().toLowerCase())) || 'unknown';
}

export interface MapContext {
  /** The site's base URL without a trailing slash. */
  site: string;
  /** Lestrade's own account, to keep its comments out of what the model reads. */
  self?: SelfIdentity | null;
  now?: () => Date;
}

export interface MapOptions {
  /** Default: the issue key. A command comment's re-investigation is `<KEY>/comment/<id>`. */
  identity?: string;
  status?: Issue['status'];
}

/**
 * Where the RCA goes: the issue, and its project with the project's type when the payload names
 * them, so the writer knows a service desk (internal comments) without asking Jira again.
 */
export function locatorOf(bean: Pick<IssueBean, 'id' | 'key'> & { fields?: IssueBean['fields'] }): IssueLocator {
  const project = bean.fields?.project;
  return {
    key: bean.key,
    ref: {
      issueKey: bean.key,
      id: bean.id,
      ...(project?.key ? { project: project.key } : {}),
      ...(project?.projectTypeKey ? { projectType: project.projectTypeKey } : {}),
    },
  };
}

export function commandIdentity(key: string, commentId: string): string {
  return `${key}/comment/${commentId}`;
}

/** A Jira issue (API or webhook) as the common Issue. Pure. */
export function issueFromBean(bean: IssueBean, ctx: MapContext, opts: MapOptions = {}): Issue {
  const f = bean.fields;
  const startedAt = jiraTimeToIso(f.created) ?? (ctx.now?.() ?? new Date()).toISOString();
  const untrusted = recentComments(f.comment?.comments ?? [], ctx.self ?? null);
  return {
    identity: opts.identity ?? bean.key,
    fingerprint: bean.key,
    source: SOURCE,
    sourceInstance: new URL(ctx.site).host,
    title: f.summary ?? '',
    description: textOf(f.description),
    url: `${ctx.site}/browse/${bean.key}`,
    severity: severityOf(f.priority?.name),
    status: opts.status ?? 'open',
    labels: labelsOf(bean),
    annotations: definedOnly({
      components: (f.components ?? []).map((c) => c.name).join(', ') || undefined,
      reporter: f.reporter?.displayName ?? f.reporter?.name,
      created: jiraTimeToIso(f.created) ?? undefined,
    }),
    startedAt,
    locator: locatorOf(bean),
    ...(untrusted.length ? { untrusted } : {}),
    raw: trimmed(bean),
  };
}

/** Each label as `label: 'true'`, then the fixed keys, which win over a label of the same name. */
function labelsOf(bean: IssueBean): Record<string, string> {
  const f = bean.fields;
  return {
    ...Object.fromEntries((f.labels ?? []).map((l) => [l, 'true'])),
    ...definedOnly({
      project: f.project?.key,
      issuetype: f.issuetype?.name,
      status: f.status?.name,
      priority: f.priority?.name,
    }),
  };
}

function recentComments(comments: JiraComment[], self: SelfIdentity | null): NonNullable<Issue['untrusted']> {
  return comments
    .map((c) => ({ c, text: textOf(c.body) }))
    .filter(({ c, text }) => text.trim() !== '' && !isOwnComment(c.author, text, self))
    .slice(-MAX_UNTRUSTED_COMMENTS)
    .map(({ c, text }) => ({
      label: `comment by ${c.author?.displayName ?? c.author?.name ?? 'unknown'} at ${jiraTimeToIso(c.created) ?? c.created ?? 'unknown time'}`,
      text: text.length > MAX_COMMENT_CHARS ? `${text.slice(0, MAX_COMMENT_CHARS)}…` : text,
    }));
}

/** What the prompt and debugging need of the payload, without bodies and comments. */
function trimmed(bean: IssueBean) {
  const f = bean.fields;
  return {
    id: bean.id,
    key: bean.key,
    fields: {
      summary: f.summary,
      labels: f.labels,
      priority: f.priority?.name,
      status: f.status?.name,
      issuetype: f.issuetype?.name,
      project: f.project?.key,
      resolution: f.resolution?.name ?? null,
      created: f.created,
      updated: f.updated,
    },
  };
}

function definedOnly(record: Record<string, string | undefined | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Resolved now: a resolution is set, or the status is in the Done category. */
export function isResolved(bean: IssueBean): boolean {
  return Boolean(bean.fields.resolution) || bean.fields.status?.statusCategory?.key === 'done';
}
