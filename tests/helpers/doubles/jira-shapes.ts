/** Jira's JSON for the double's state, shaped per the v3 spec's response schemas. */
import { adfText, isInternal, type Deployment, type JiraComment, type JiraIssue, type JiraUser } from './jira-state.js';

type Json = Record<string, unknown>;

export interface Site {
  base: string;
  deployment: Deployment;
}

export const apiVersion = (s: Site): '2' | '3' => (s.deployment === 'cloud' ? '3' : '2');
const rest = (s: Site): string => `${s.base}/rest/api/${apiVersion(s)}`;

/** Jira's timestamp format: 2024-01-01T10:00:00.000+0000. */
export const jiraTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000');

export function jiraError(
  status: number,
  messages: string[],
  errors: Record<string, string> = {},
): { status: number; body: Json } {
  return { status, body: { errorMessages: messages, errors } };
}

const avatars = (id: string): Json =>
  Object.fromEntries(['48x48', '24x24', '16x16', '32x32'].map((s) => [s, `https://avatar.example/${id}?s=${s}`]));

export function userJson(u: JiraUser, s: Site): Json {
  return s.deployment === 'cloud'
    ? {
        self: `${rest(s)}/user?accountId=${u.accountId}`,
        accountId: u.accountId,
        accountType: 'atlassian',
        emailAddress: u.emailAddress,
        avatarUrls: avatars(u.accountId),
        displayName: u.displayName,
        active: true,
        timeZone: 'UTC',
      }
    : {
        self: `${rest(s)}/user?username=${u.name}`,
        name: u.name,
        key: u.key,
        emailAddress: u.emailAddress,
        avatarUrls: avatars(u.key),
        displayName: u.displayName,
        active: true,
        timeZone: 'UTC',
      };
}

/** Small stable ids for names that have no state of their own (statuses, priorities, ...). */
const nameId = (name: string): string =>
  String([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 9000, 7) + 1000);

function categoryOf(status: string): [number, string, string, string] {
  if (/^(done|closed|resolved)$/i.test(status)) return [3, 'done', 'green', 'Done'];
  return /progress/i.test(status) ? [4, 'indeterminate', 'yellow', 'In Progress'] : [2, 'new', 'blue-gray', 'To Do'];
}

function statusCategory(status: string, s: Site): Json {
  const [id, key, colorName, name] = categoryOf(status);
  return { self: `${rest(s)}/statuscategory/${id}`, id, key, colorName, name };
}

export function commentJson(c: JiraComment, issue: JiraIssue, s: Site, expand = ''): Json {
  const out: Json = {
    self: `${rest(s)}/issue/${issue.id}/comment/${c.id}`,
    id: c.id,
    author: userJson(c.author, s),
    body: c.body,
    updateAuthor: userJson(c.updateAuthor, s),
    created: jiraTime(c.created),
    updated: jiraTime(c.updated),
  };
  // Cloud: false for a comment JSM keeps internal (the sd.public.comment property), else true.
  if (s.deployment === 'cloud') out.jsdPublic = !isInternal(c);
  if (c.visibility) out.visibility = c.visibility;
  if (expand.includes('renderedBody')) out.renderedBody = `<p>${adfText(c.body)}</p>`;
  if (expand.includes('properties'))
    out.properties = Object.entries(c.properties).map(([key, value]) => ({ key, value }));
  return out;
}

const FIELDS = [
  'summary',
  'description',
  'labels',
  'priority',
  'components',
  'status',
  'issuetype',
  'project',
  'created',
  'updated',
  'reporter',
  'comment',
] as const;
/** Every field but comment is navigable (what *navigable, the Data Center search default, returns). */
const NAVIGABLE = FIELDS.filter((f) => f !== 'comment');

function fieldsFor(fallback: 'all' | 'navigable' | 'none'): string[] {
  if (fallback === 'all') return [...FIELDS];
  return fallback === 'navigable' ? NAVIGABLE : [];
}

/** The fields to return for a `fields` parameter (repeated and/or comma-separated), or `fallback` when it names none. */
export function selectFields(
  requested: string | string[] | undefined,
  fallback: 'all' | 'navigable' | 'none',
): string[] {
  const asked = [requested ?? []]
    .flat()
    .flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter(Boolean);
  const include = asked.filter((f) => !f.startsWith('-'));
  const exclude = new Set(asked.filter((f) => f.startsWith('-')).map((f) => f.slice(1)));
  const base: string[] = include.length === 0 ? fieldsFor(fallback) : [];
  for (const f of include) {
    if (f === '*all') base.push(...FIELDS);
    else if (f === '*navigable') base.push(...NAVIGABLE);
    else if ((FIELDS as readonly string[]).includes(f)) base.push(f);
  }
  return [...new Set(base)].filter((f) => !exclude.has(f));
}

function fieldValue(f: string, i: JiraIssue, s: Site): unknown {
  switch (f) {
    case 'summary':
      return i.summary;
    case 'description':
      return i.description;
    case 'labels':
      return i.labels;
    case 'priority':
      return (
        i.priority && {
          self: `${rest(s)}/priority/${nameId(i.priority)}`,
          iconUrl: `${s.base}/images/icons/priorities/${i.priority.toLowerCase()}.svg`,
          name: i.priority,
          id: nameId(i.priority),
        }
      );
    case 'components':
      return i.components.map((name) => ({ self: `${rest(s)}/component/${nameId(name)}`, id: nameId(name), name }));
    case 'status':
      return {
        self: `${rest(s)}/status/${nameId(i.status)}`,
        description: '',
        iconUrl: `${s.base}/images/icons/status.gif`,
        name: i.status,
        id: nameId(i.status),
        statusCategory: statusCategory(i.status, s),
      };
    case 'issuetype':
      return {
        self: `${rest(s)}/issuetype/${nameId(i.issuetype)}`,
        id: nameId(i.issuetype),
        description: '',
        iconUrl: `${s.base}/images/icons/issuetypes/task.svg`,
        name: i.issuetype,
        subtask: false,
      };
    case 'project':
      return {
        self: `${rest(s)}/project/${nameId(i.project)}`,
        id: nameId(i.project),
        key: i.project,
        name: i.project,
        projectTypeKey: i.projectType,
        avatarUrls: avatars(i.project),
      };
    case 'created':
      return jiraTime(i.created);
    case 'updated':
      return jiraTime(i.updated);
    case 'reporter':
      return i.reporter && userJson(i.reporter, s);
    case 'comment':
      return {
        comments: i.comments.map((c) => commentJson(c, i, s)),
        self: `${rest(s)}/issue/${i.id}/comment`,
        maxResults: i.comments.length,
        total: i.comments.length,
        startAt: 0,
      };
    default:
      return undefined;
  }
}

/** An issue with the given fields; with none, only id and key (what /search/jql answers when no fields are asked for). */
export function issueJson(i: JiraIssue, fields: string[], s: Site): Json {
  if (fields.length === 0) return { id: i.id, key: i.key };
  return {
    expand: 'renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations',
    id: i.id,
    self: `${rest(s)}/issue/${i.id}`,
    key: i.key,
    fields: Object.fromEntries(fields.map((f) => [f, fieldValue(f, i, s)])),
  };
}
