import type { Issue, IssueLocator, Severity } from '../../src/issue.js';
import { detailsOf, type WebhookAlert } from './webhook-payload.js';

/**
 * One alert as OpsGenie and JSM Operations both describe it, whether it came from a webhook or
 * from either REST API: the source-specific readers fill this, issueFromAlert maps it.
 */
export interface AlertFields {
  id: string;
  tinyId?: string;
  alias?: string;
  message: string;
  description: string;
  /** OpsGenie `details`, JSM `extraProperties`. */
  details: Record<string, string>;
  tags: string[];
  priority?: string;
  status?: string;
  entity?: string;
  alertSource?: string;
  /** ISO 8601. */
  createdAt: string;
  /** As the vendor sent it (webhooks: epoch nanoseconds as an exact decimal string). */
  updatedAt?: string;
}

export interface AlertContext {
  /** The source's name: "opsgenie" or "jsm-ops". */
  source: string;
  sourceInstance: string;
  url: string | null;
  status: Issue['status'];
  /** Kept as the Issue's raw, with the fields above. */
  extraRaw?: Record<string, unknown>;
}

/** P1..P5, OpsGenie's and JSM's only priorities. A Map, so a vendor's word never reaches a prototype. */
const SEVERITY_BY_PRIORITY: ReadonlyMap<string, Severity> = new Map([
  ['P1', 'critical'],
  ['P2', 'high'],
  ['P3', 'warning'],
  ['P4', 'info'],
  ['P5', 'info'],
]);

export function severityOfPriority(priority: string | undefined): Severity {
  return (priority && SEVERITY_BY_PRIORITY.get(priority.trim().toUpperCase())) || 'unknown';
}

const MAX_UNTRUSTED_CHARS = 4_000;

/**
 * key and ref: the alert id (every API call takes it; tinyIds are reused, so write-backs are
 * locked, remembered and superseded by the id). label: the short number people use (tinyId).
 */
export function locatorOf(a: Pick<AlertFields, 'id' | 'tinyId'>): IssueLocator {
  return { key: a.id, ...(a.tinyId ? { label: `#${a.tinyId}` } : {}), ref: { alertId: a.id } };
}

/** One alert as the common Issue. Pure. */
export function issueFromAlert(a: AlertFields, ctx: AlertContext): Issue {
  return {
    identity: a.id,
    // OpsGenie de-duplicates on alias: the same alias is the same problem, across alert ids.
    fingerprint: a.alias || a.id,
    source: ctx.source,
    sourceInstance: ctx.sourceInstance,
    title: a.message || `alert ${a.tinyId ?? a.id}`,
    description: a.description,
    url: ctx.url,
    severity: severityOfPriority(a.priority),
    status: ctx.status,
    labels: labelsOf(a),
    annotations: a.details,
    startedAt: a.createdAt,
    locator: locatorOf(a),
    untrusted: untrustedOf(a),
    raw: {
      id: a.id,
      tinyId: a.tinyId ?? null,
      alias: a.alias ?? null,
      priority: a.priority ?? null,
      status: a.status ?? null,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt ?? null,
      ...ctx.extraRaw,
    },
  };
}

/** Each tag as `tag: "true"`, then the fixed keys, which win over a tag of the same name. */
function labelsOf(a: AlertFields): Record<string, string> {
  const fixed: Array<[string, string | undefined]> = [
    ['priority', a.priority],
    ['entity', a.entity],
    ['alert_source', a.alertSource],
  ];
  return Object.fromEntries([
    ...a.tags.map((t): [string, string] => [t, 'true']),
    ...fixed.filter((e): e is [string, string] => Boolean(e[1])),
  ]);
}

/**
 * Everything in an alert is written by whoever raised it (a monitoring tool, a person, an
 * attacker who can reach that tool): the message, description and details are listed as
 * untrusted text, each cut to size, so the prompt fences them as data.
 */
function untrustedOf(a: AlertFields): NonNullable<Issue['untrusted']> {
  const details = Object.entries(a.details)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return [
    { label: 'alert message', text: a.message },
    { label: 'alert description', text: a.description },
    { label: 'alert details', text: details },
  ]
    .filter((u) => u.text.trim() !== '')
    .map((u) => ({ ...u, text: cut(u.text) }));
}

function cut(text: string): string {
  return text.length <= MAX_UNTRUSTED_CHARS
    ? text
    : `${text.slice(0, MAX_UNTRUSTED_CHARS)}\n[… ${text.length - MAX_UNTRUSTED_CHARS} characters cut]`;
}

type Maybe = string | null | undefined;

/** The fields both REST APIs name alike (OpsGenie's BaseAlert/Alert, JSM's AlertResponse). */
export interface RestAlert {
  id: string;
  tinyId?: Maybe;
  alias?: Maybe;
  message?: Maybe;
  description?: Maybe;
  status?: Maybe;
  priority?: Maybe;
  entity?: Maybe;
  source?: Maybe;
  createdAt?: Maybe;
  updatedAt?: Maybe;
  tags?: string[] | null;
}

/** What a webhook alert and a REST alert name alike, and read alike. */
type SharedAlert = Omit<RestAlert, 'id' | 'status' | 'createdAt'>;

function sharedFields(a: SharedAlert, details: unknown): Omit<AlertFields, 'id' | 'status' | 'createdAt'> {
  return {
    tinyId: a.tinyId ?? undefined,
    alias: a.alias ?? undefined,
    message: a.message ?? '',
    description: a.description ?? '',
    details: detailsOf(details),
    tags: a.tags ?? [],
    priority: a.priority ?? undefined,
    entity: a.entity ?? undefined,
    alertSource: a.source ?? undefined,
    updatedAt: a.updatedAt ?? undefined,
  };
}

/** An OpsGenie-style webhook alert's fields (the payload format both vendors send). */
export function fieldsFromWebhook(a: WebhookAlert, now: () => Date = () => new Date()): AlertFields {
  return {
    id: a.alertId,
    ...sharedFields(a, a.details),
    createdAt: isoFromEpochMs(a.createdAt) ?? now().toISOString(),
  };
}

/** An alert from either REST API; `details` is OpsGenie's `details` or JSM's `extraProperties`, as parsed. */
export function fieldsFromRest(a: RestAlert, details: unknown, now: () => Date = () => new Date()): AlertFields {
  const created =
    a.createdAt && !Number.isNaN(Date.parse(a.createdAt)) ? new Date(a.createdAt).toISOString() : now().toISOString();
  return { id: a.id, ...sharedFields(a, details), status: a.status ?? undefined, createdAt: created };
}

export function isoFromEpochMs(ms: number | null | undefined): string | undefined {
  if (ms === null || ms === undefined) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
