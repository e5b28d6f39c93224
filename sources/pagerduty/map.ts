import type { Issue, IssueLocator } from '../../src/issue.js';
import { amAlertText, type AmAlert } from './am-alert.js';
import { alertmanagerDetails, detailsOf, type AmDetails } from './alert-details.js';
import { relatedOf } from './related.js';
import type { PdAlert, PdIncident } from './schema.js';
import { severityOf } from './severity.js';

export const SOURCE = 'pagerduty';

/** PagerDuty alerts shown to the model, and how much of each. */
export const MAX_ALERTS_SHOWN = 10;
export const MAX_ALERT_TEXT = 4_000;

export interface MapContext {
  /** The API host (the source instance). */
  instance: string;
  /** Default: resolved when the incident is, else open. */
  status?: Issue['status'];
}

export function locatorOf(incident: Pick<PdIncident, 'id' | 'html_url'>): IssueLocator {
  return {
    key: incident.id,
    ref: { incidentId: incident.id, ...(incident.html_url ? { url: incident.html_url } : {}) },
  };
}

/** The label (or annotation) pairs every alert shares, as Alertmanager's commonLabels. */
function common(records: ReadonlyArray<Record<string, string>>): Array<[string, string]> {
  const [first, ...rest] = records;
  if (!first) return [];
  return Object.entries(first).filter(([k, v]) => rest.every((r) => Object.hasOwn(r, k) && r[k] === v));
}

function firstOf(alerts: readonly AmAlert[], key: string): string | undefined {
  return alerts.map((a) => (Object.hasOwn(a.annotations, key) ? a.annotations[key] : undefined)).find(Boolean);
}

/** What the model sees of each PagerDuty alert: its summary, and Alertmanager's alerts or the raw details. */
function untrustedOf(
  alerts: readonly PdAlert[],
  details: ReadonlyArray<AmDetails | null>,
): NonNullable<Issue['untrusted']> {
  return alerts.slice(0, MAX_ALERTS_SHOWN).map((a, i) => {
    const am = details[i];
    const body = am ? am.firing.map(amAlertText) : [JSON.stringify(detailsOf(a) ?? null, null, 1)];
    const text = [a.summary ?? '', ...body].filter(Boolean).join('\n\n');
    return {
      label: `PagerDuty alert ${a.id} (${a.status ?? 'unknown'}, severity ${a.severity ?? 'unknown'})`,
      text:
        text.length > MAX_ALERT_TEXT
          ? `${text.slice(0, MAX_ALERT_TEXT)}\n[… ${text.length - MAX_ALERT_TEXT} characters cut]`
          : text,
    };
  });
}

/**
 * An incident and its alerts as the common Issue. One investigation per incident (identity = id);
 * labels and annotations come from the Alertmanager alerts in its details (those all of them
 * share, plus the first runbook_url), then the incident's service, urgency and priority. Pure.
 */
export function toIssue(incident: PdIncident, alerts: readonly PdAlert[], ctx: MapContext): Issue {
  const details = alerts.map((a) => alertmanagerDetails(detailsOf(a)));
  const am = details.filter((d): d is AmDetails => d !== null);
  const firing = am.flatMap((d) => d.firing);
  const annotations = Object.fromEntries(common(firing.map((a) => a.annotations)));
  const runbook = firstOf(firing, 'runbook_url');
  const priority = incident.priority?.summary ?? undefined;
  const related = relatedOf(am);
  const untrusted = untrustedOf(alerts, details);
  const summary = alerts[0]?.summary ?? '';
  return {
    identity: incident.id,
    fingerprint: incident.id,
    source: SOURCE,
    sourceInstance: ctx.instance,
    title: incident.title,
    description:
      annotations.description ?? firstOf(firing, 'description') ?? (summary !== incident.title ? summary : ''),
    url: incident.html_url ?? null,
    severity: severityOf(priority, incident.urgency),
    status: ctx.status ?? (incident.status === 'resolved' ? 'resolved' : 'open'),
    labels: Object.fromEntries([
      ...common(firing.map((a) => a.labels)),
      ...defined({ service: incident.service?.summary, urgency: incident.urgency, priority }),
    ]),
    annotations: Object.fromEntries([
      ...Object.entries(annotations),
      ...defined({
        runbook_url: annotations.runbook_url ?? runbook,
        service_id: incident.service?.id,
        incident_number: numberOf(incident),
      }),
    ]),
    startedAt: incident.created_at,
    locator: locatorOf(incident),
    ...(related.length ? { related } : {}),
    ...(untrusted.length ? { untrusted } : {}),
    raw: trimmed(incident, alerts),
  };
}

function numberOf(incident: PdIncident): string | undefined {
  const n = incident.incident_number ?? incident.number;
  return n === undefined ? undefined : String(n);
}

function defined(record: Record<string, string | null | undefined>): Array<[string, string]> {
  return Object.entries(record).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
}

/** What debugging needs of the payload, without the alert bodies (they are in `untrusted`). */
function trimmed(incident: PdIncident, alerts: readonly PdAlert[]) {
  return {
    id: incident.id,
    number: numberOf(incident) ?? null,
    title: incident.title,
    status: incident.status,
    urgency: incident.urgency ?? null,
    priority: incident.priority?.summary ?? null,
    service: incident.service ? { id: incident.service.id, summary: incident.service.summary ?? null } : null,
    created_at: incident.created_at,
    html_url: incident.html_url ?? null,
    incident_key: incident.incident_key ?? null,
    alerts: alerts.slice(0, MAX_ALERTS_SHOWN).map((a) => ({
      id: a.id,
      summary: a.summary ?? null,
      status: a.status ?? null,
      severity: a.severity ?? null,
      alert_key: a.alert_key ?? null,
    })),
  };
}
