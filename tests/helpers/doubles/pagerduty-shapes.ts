import type { HandlerResult } from './openapi-double.js';
import type { PdAlert, PdIncident, PdNote, PdUser } from './pagerduty-state.js';

/** Where the double's web app would be (html_url) and its API (self). */
export interface Site {
  web: string;
  api: string;
}

/** PagerDuty's error body: `{error: {message, code, errors}}`. */
export function pdError(status: number, message: string, errors?: string[], code?: number): HandlerResult {
  return {
    status,
    body: { error: { message, ...(code === undefined ? {} : { code }), ...(errors ? { errors } : {}) } },
  };
}

const ref = (type: string, id: string, summary: string, self: string, html: string | null) => ({
  id,
  type,
  summary,
  self,
  html_url: html,
});

export function userRef(u: PdUser, site: Site) {
  return ref('user_reference', u.id, u.name, `${site.api}/users/${u.id}`, `${site.web}/users/${u.id}`);
}

/** An incident as GET /incidents answers it (nullable fields the spec does not allow null are left out). */
export function incidentJson(i: PdIncident, site: Site) {
  const resolved = i.status === 'resolved';
  return {
    id: i.id,
    type: 'incident',
    summary: `[#${i.number}] ${i.title}`,
    self: `${site.api}/incidents/${i.id}`,
    html_url: `${site.web}/incidents/${i.id}`,
    incident_number: i.number,
    title: i.title,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    status: i.status,
    ...(i.incidentKey ? { incident_key: i.incidentKey } : {}),
    service: ref(
      'service_reference',
      i.service.id,
      i.service.name,
      `${site.api}/services/${i.service.id}`,
      `${site.web}/service-directory/${i.service.id}`,
    ),
    assignments: [],
    assigned_via: 'escalation_policy',
    last_status_change_at: i.updatedAt,
    ...(resolved ? { resolved_at: i.updatedAt } : {}),
    alert_counts: {
      all: i.alerts.length,
      triggered: i.alerts.filter((a) => a.status === 'triggered').length,
      resolved: i.alerts.filter((a) => a.status === 'resolved').length,
    },
    is_mergeable: true,
    incident_type: { name: 'incident_default' },
    escalation_policy: ref(
      'escalation_policy_reference',
      'PT20YPA',
      'Default',
      `${site.api}/escalation_policies/PT20YPA`,
      `${site.web}/escalation_policies/PT20YPA`,
    ),
    teams: [],
    pending_actions: [],
    acknowledgements: [],
    ...(i.priority
      ? {
          priority: {
            id: `PRI${i.priority.replace(/\W/g, '')}`,
            type: 'priority_reference',
            summary: i.priority,
            self: `${site.api}/priorities/PRI${i.priority.replace(/\W/g, '')}`,
          },
        }
      : {}),
    incidents_responders: [],
    responder_requests: [],
    urgency: i.urgency,
  };
}

/** An alert as GET /incidents/{id}/alerts answers it; Events API v2 alerts carry the details twice. */
export function alertJson(a: PdAlert, i: PdIncident, site: Site) {
  return {
    id: a.id,
    type: 'alert',
    summary: a.summary,
    self: `${site.api}/incidents/${i.id}/alerts/${a.id}`,
    html_url: `${site.web}/alerts/${a.id}`,
    created_at: a.createdAt,
    status: a.status,
    alert_key: a.alertKey,
    service: ref(
      'service_reference',
      i.service.id,
      i.service.name,
      `${site.api}/services/${i.service.id}`,
      `${site.web}/service-directory/${i.service.id}`,
    ),
    body: {
      type: 'alert_body',
      contexts: [],
      details: a.details,
      cef_details: {
        client: 'Alertmanager',
        dedup_key: a.alertKey,
        description: a.summary,
        details: a.details,
        message: a.summary,
        severity: a.severity,
        summary: a.summary,
        version: '1.0',
      },
    },
    incident: { id: i.id, type: 'incident_reference' },
    suppressed: false,
    severity: a.severity,
  };
}

export function noteJson(n: PdNote, site: Site) {
  return {
    id: n.id,
    user: userRef(n.user, site),
    channel: { summary: 'The PagerDuty website or APIs' },
    content: n.content,
    created_at: n.createdAt,
    updated_at: n.createdAt,
  };
}
