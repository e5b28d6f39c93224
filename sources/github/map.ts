import { normaliseSeverity, type Issue, type IssueLocator, type Severity } from '../../src/issue.js';
import { hostsIn } from '../../src/render/sanitize-markdown.js';
import { hasAnyMarker } from './marker.js';

export const SOURCE = 'github';

/** The fields of a GitHub issue we use; webhook payloads and REST answers (issue, search item) both have them. */
export interface GhIssue {
  number: number;
  title: string;
  body?: string | null;
  /** Absent in some deliveries (issues.pinned): open. */
  state?: string;
  html_url: string;
  user: { login: string } | null;
  labels: ReadonlyArray<string | { name?: string | null }>;
  created_at: string;
  updated_at: string;
  author_association?: string;
  pull_request?: unknown;
  repository_url: string;
  /** How many comments the issue has. */
  comments?: number;
}

export interface GhComment {
  id: number;
  body?: string | null;
  user: { login: string } | null;
  created_at: string;
  html_url: string;
  author_association?: string;
}

/** What started this investigation: the trigger label (or a poll/pull), or a command comment. */
export type Trigger = { kind: 'label' } | { kind: 'comment'; comment: GhComment };

export interface MapContext {
  /** "owner/name" as GitHub spells it. */
  repo: string;
  /** The API host, e.g. api.github.com. */
  instance: string;
  trigger: Trigger;
  /** Recent comments on the issue, oldest first. */
  comments: readonly GhComment[];
  /** Our own login, so our comments are left out; null when unknown. */
  botLogin: string | null;
  /**
   * sources.github.trustedAssociations: when the issue's author has one of them, the hosts its
   * title and body name may stay live links in our comment. Absent: none do.
   */
  trustedAssociations?: readonly string[];
}

export const MAX_UNTRUSTED_COMMENTS = 10;
export const MAX_COMMENT_CHARS = 4_000;
const SEVERITY_ORDER: Severity[] = ['critical', 'high', 'warning', 'info'];

/** GitHub's pull requests are issues too; Lestrade leaves them alone. */
export function isPullRequest(issue: Pick<GhIssue, 'pull_request'>): boolean {
  return issue.pull_request !== undefined && issue.pull_request !== null;
}

/** "owner/name" from an issue's repository_url (https://api.github.com/repos/owner/name, or GHES's /api/v3/repos/…). */
export function repoFromUrl(repositoryUrl: string): string | null {
  const m = /\/repos\/([^/]+)\/([^/]+?)\/?$/.exec(repositoryUrl);
  return m ? `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}` : null;
}

export function issueKey(repo: string, number: number): string {
  return `${repo}#${number}`;
}

export function locatorFor(repo: string, number: number): IssueLocator {
  const [owner = '', name = ''] = repo.split('/');
  return { key: issueKey(repo, number), ref: { owner, repo: name, number } };
}

export function labelNames(issue: Pick<GhIssue, 'labels'>): string[] {
  return issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean);
}

/** The most severe of `severity:critical`, `sev1`, `priority/P2`, `P1`, `critical`…; unknown when none says. */
export function severityFromLabels(names: readonly string[]): Severity {
  const found = names.map((name) => {
    const m = /^(?:severity|sev|priority|prio)\s*[:/=_-]?\s*(.+)$/i.exec(name.trim());
    const word = m ? m[1]! : name;
    return normaliseSeverity(/^\d$/.test(word.trim()) ? `p${word.trim()}` : word);
  });
  return SEVERITY_ORDER.find((s) => found.includes(s)) ?? 'unknown';
}

/** Comments as untrusted context: not ours, the most recent few, each cut to size. */
export function untrustedComments(comments: readonly GhComment[], botLogin: string | null): Issue['untrusted'] {
  return comments
    .filter((c) => !hasAnyMarker(c.body) && !(botLogin && c.user?.login === botLogin) && c.body)
    .slice(-MAX_UNTRUSTED_COMMENTS)
    .map((c) => ({
      label: `comment by @${c.user?.login ?? 'ghost'} at ${c.created_at}`,
      text: cut(c.body ?? '', MAX_COMMENT_CHARS),
    }));
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} characters cut]`;
}

/** One GitHub issue as the common Issue. A command comment gets an identity of its own: it asks for a new investigation. */
export function toIssue(issue: GhIssue, ctx: MapContext): Issue {
  const key = issueKey(ctx.repo, issue.number);
  const labels = labelNames(issue);
  const comment = ctx.trigger.kind === 'comment' ? ctx.trigger.comment : null;
  const untrusted = untrustedComments(withTrigger(ctx.comments, comment), ctx.botLogin);
  return {
    identity: comment ? `${key}/comment/${comment.id}` : key,
    fingerprint: key,
    source: SOURCE,
    sourceInstance: ctx.instance,
    title: issue.title,
    description: issue.body ?? '',
    url: issue.html_url,
    severity: severityFromLabels(labels),
    status: issue.state === 'closed' ? 'resolved' : 'open',
    labels: { ...Object.fromEntries(labels.map((l) => [l, 'true'])), repository: ctx.repo },
    annotations: {
      author: issue.user?.login ?? 'ghost',
      author_association: issue.author_association ?? 'NONE',
      created_at: issue.created_at,
      labels: labels.join(', '),
      ...(comment ? { requested_by: comment.user?.login ?? 'ghost', request_url: comment.html_url } : {}),
    },
    startedAt: issue.created_at,
    locator: locatorFor(ctx.repo, issue.number),
    ...(untrusted?.length ? { untrusted } : {}),
    ...trustedHostsOf(issue, ctx),
    raw: trimmed(issue, ctx.repo, comment),
  };
}

/** The hosts an issue's title and body name, when a trusted author wrote them. */
function trustedHostsOf(issue: GhIssue, ctx: MapContext): Pick<Issue, 'trustedHosts'> {
  const trusted = ctx.trustedAssociations?.includes(issue.author_association ?? 'NONE') === true;
  const hosts = trusted ? [...hostsIn(`${issue.title}\n${issue.body ?? ''}`)] : [];
  return hosts.length ? { trustedHosts: hosts } : {};
}

/** The command comment is context too, even when the listed comments predate it. */
function withTrigger(comments: readonly GhComment[], comment: GhComment | null): GhComment[] {
  return comment && !comments.some((c) => c.id === comment.id) ? [...comments, comment] : [...comments];
}

function trimmed(issue: GhIssue, repo: string, comment: GhComment | null) {
  return {
    repository: repo,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    html_url: issue.html_url,
    user: issue.user?.login ?? null,
    labels: labelNames(issue),
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    ...(comment
      ? {
          comment: {
            id: comment.id,
            user: comment.user?.login ?? null,
            created_at: comment.created_at,
            html_url: comment.html_url,
          },
        }
      : {}),
  };
}
