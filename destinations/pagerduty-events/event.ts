import { createHash } from 'node:crypto';
import type { DestinationView } from '../../src/delivery/destination.js';
import type { CheckOutcome, CheckStatus } from '../../src/records/check-result.js';

/** PagerDuty's Events API v2 severities (its spec's Payload.severity). */
export type EventSeverity = 'critical' | 'error' | 'warning' | 'info';

/** One POST /v2/enqueue body (the spec's createV2Event request), as Lestrade sends it. */
export interface EnqueueEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  client?: string;
  client_url?: string;
  payload?: {
    summary: string;
    severity: EventSeverity;
    source: string;
    timestamp: string;
    component?: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  links?: Array<{ href: string; text: string }>;
}

/** What to send for a view: an action and its dedup key, or null when this event opens or closes nothing. */
export interface Planned {
  action: 'trigger' | 'resolve';
  dedupKey: string;
}

// PagerDuty's documented limits: a summary of at most 1024 characters, a dedup_key of at most 255.
const SUMMARY_CHARS = 1024;
const DEDUP_CHARS = 255;
const EVIDENCE_ITEMS = 20;
const EVIDENCE_CHARS = 1000;
const OPEN: ReadonlySet<CheckStatus | undefined> = new Set(['fail', 'error']);

/** A check's incident: one per check name, so every failing run of it adds to the one incident. */
export function checkDedupKey(name: string): string {
  return boundedKey(`lestrade-check:${name}`);
}

/** An ordinary investigation's incident: one per issue (its source and identity), as long as it stays open. */
export function issueDedupKey(view: DestinationView): string {
  return boundedKey(`lestrade-issue:${view.investigation.source}:${view.issue.identity}`);
}

/**
 * A check: fail or error triggers; pass after fail or error resolves; warn, and pass after pass, send nothing
 * (the incident of a check that went from fail to warn stays open until it passes). An ordinary investigation
 * (only with `investigations: true`): its RCA triggers, its issue's resolve resolves.
 */
export function plan(view: DestinationView, investigations: boolean): Planned | null {
  const check = view.check;
  if (check) {
    if (view.event !== 'completed') return null;
    if (OPEN.has(check.status)) return { action: 'trigger', dedupKey: checkDedupKey(check.name) };
    if (check.status === 'pass' && OPEN.has(check.previous))
      return { action: 'resolve', dedupKey: checkDedupKey(check.name) };
    return null;
  }
  if (!investigations) return null;
  if (view.event === 'completed') return { action: 'trigger', dedupKey: issueDedupKey(view) };
  if (view.event === 'resolved' && view.issue.status === 'resolved')
    return { action: 'resolve', dedupKey: issueDedupKey(view) };
  return null;
}

/** The enqueue body for a planned action: a resolve carries only its key; a trigger says what and why. */
export function enqueueEvent(view: DestinationView, planned: Planned, routingKey: string, now: Date): EnqueueEvent {
  const base = { routing_key: routingKey, event_action: planned.action, dedup_key: planned.dedupKey };
  if (planned.action === 'resolve') return base;
  const url = view.investigation.url;
  return {
    ...base,
    client: 'Lestrade',
    ...(url ? { client_url: url, links: [{ href: url, text: 'Open in Lestrade' }] } : {}),
    payload: view.check ? checkPayload(view, view.check, now) : issuePayload(view, now),
  };
}

function checkPayload(view: DestinationView, check: CheckOutcome, now: Date): NonNullable<EnqueueEvent['payload']> {
  const deploy = check.deploy;
  const subject = deploy?.version ? `${check.name} ${deploy.version}` : check.name;
  return {
    summary: clip(`${plain(subject)}: ${check.status} — ${plain(check.summary)}`, SUMMARY_CHARS),
    severity: check.status === 'error' ? 'error' : severityOf(view.issue.severity),
    source: plain(deploy?.service ?? view.issue.labels['service'] ?? view.issue.labels['namespace'] ?? 'lestrade'),
    timestamp: now.toISOString(),
    component: plain(check.name),
    class: 'health-check',
    custom_details: {
      check: plain(check.name),
      status: check.status,
      ...(check.previous ? { previous: check.previous } : {}),
      summary: plain(check.summary),
      evidence: check.evidence.slice(0, EVIDENCE_ITEMS).map((e) => clip(plain(e), EVIDENCE_CHARS)),
      ...(deploy ? { deploy: deployDetails(deploy) } : {}),
      investigation: view.investigation.id,
    },
  };
}

function issuePayload(view: DestinationView, now: Date): NonNullable<EnqueueEvent['payload']> {
  const headline = view.headline ? ` — ${plain(view.headline)}` : '';
  return {
    summary: clip(`${plain(view.investigation.title)}${headline}`, SUMMARY_CHARS),
    severity: severityOf(view.issue.severity),
    source: plain(view.issue.labels['service'] ?? view.issue.labels['namespace'] ?? view.investigation.source),
    timestamp: now.toISOString(),
    class: 'investigation',
    custom_details: {
      investigation: view.investigation.id,
      source: view.investigation.source,
      issue: plain(view.issue.identity),
      labels: Object.fromEntries(Object.entries(view.issue.labels).map(([k, v]) => [plain(k), plain(v)])),
      headline: plain(view.headline),
    },
  };
}

function deployDetails(deploy: NonNullable<CheckOutcome['deploy']>): Record<string, string> {
  const { id, service, namespace, version, url, environment, source } = deploy;
  const fields = { id, service, namespace, version, url, environment, source };
  return Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (typeof v === 'string' ? [[k, plain(v)]] : [])));
}

/** Lestrade's severities on PagerDuty's scale. */
export function severityOf(severity: DestinationView['issue']['severity']): EventSeverity {
  if (severity === 'critical') return 'critical';
  if (severity === 'high') return 'error';
  if (severity === 'info') return 'info';
  return 'warning';
}

/** PagerDuty shows these as plain text: control characters out, whitespace runs as one space. */
function plain(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A key within PagerDuty's 255 characters: a longer one keeps its start and ends in a digest of the whole. */
function boundedKey(key: string): string {
  if (key.length <= DEDUP_CHARS) return key;
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 32);
  return `${key.slice(0, DEDUP_CHARS - 33)}:${digest}`;
}
