import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type HandlerResult, type OpenApiDouble } from './openapi-double.js';
import { loadSpec } from './specs.js';

/** PagerDuty's Events API v2, POST /enqueue only (see tests/fixtures/specs/README.md). */
export const PAGERDUTY_EVENTS_SPEC = 'pagerduty/pagerduty-events-v2-subset.json';

/** One alert the double holds, by dedup_key: what PagerDuty would show as one incident. */
export interface PdEventsAlert {
  dedupKey: string;
  status: 'triggered' | 'resolved';
  /** Every trigger for the key while it was open (a repeated trigger adds to the one alert). */
  triggers: Array<Record<string, unknown>>;
  /** How many incidents the key opened over time (a trigger after a resolve opens a new one). */
  incidents: number;
}

export interface PagerDutyEventsDouble extends OpenApiDouble {
  /** The URL clients post to: <base>/v2/enqueue, as https://events.pagerduty.com/v2/enqueue. */
  enqueueUrl: string;
  alerts: Map<string, PdEventsAlert>;
  /** The routing keys the double takes (an Events API v2 integration's key: 32 characters). */
  routingKeys: Set<string>;
}

/** The spec's server URL is https://events.pagerduty.com/v2: its paths are served under /v2, as PagerDuty does. */
function underV2(spec: Document): Document {
  const out = structuredClone(spec);
  out.paths = Object.fromEntries(Object.entries(spec.paths ?? {}).map(([p, v]) => [`/v2${p}`, v]));
  return out;
}

const invalid = (errors: string[]): HandlerResult => ({
  status: 400,
  body: { status: 'invalid event', message: 'Event object is invalid', errors },
});

/**
 * Rules PagerDuty states in prose (its spec's descriptions and the Events API v2 overview), not in the schema:
 * the routing key is 32 characters, a trigger needs a payload, acknowledge and resolve need a dedup_key, a
 * summary is at most 1024 characters and a dedup_key at most 255.
 */
function proseErrors(body: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const key = body.routing_key;
  if (typeof key === 'string' && key.length !== 32)
    errors.push("Length of 'routing_key' is incorrect (should be 32 characters)");
  if (body.event_action === 'trigger' && body.payload === undefined) errors.push("'payload' is missing or blank");
  if (body.event_action !== 'trigger' && typeof body.dedup_key !== 'string') errors.push("'dedup_key' is missing");
  const summary = (body.payload as { summary?: unknown } | undefined)?.summary;
  if (typeof summary === 'string' && summary.length > 1024) errors.push("'summary' is longer than 1024 characters");
  if (typeof body.dedup_key === 'string' && body.dedup_key.length > 255)
    errors.push("'dedup_key' is longer than 255 characters");
  return errors;
}

/** A double of https://events.pagerduty.com/v2/enqueue: validates each event against the spec, keeps alerts by dedup_key. */
export async function startPagerDutyEventsDouble(routingKeys: string[]): Promise<PagerDutyEventsDouble> {
  const alerts = new Map<string, PdEventsAlert>();
  const keys = new Set(routingKeys);
  const enqueue = (body: Record<string, unknown>): HandlerResult => {
    const errors = proseErrors(body);
    if (errors.length) return { ...invalid(errors), violation: errors.join('; ') };
    // An unknown (well-formed) key: PagerDuty drops the event; the double refuses it so a test sees it.
    if (!keys.has(body.routing_key as string)) return invalid(['unknown routing_key']);
    const dedupKey = (body.dedup_key as string | undefined) ?? `generated-${alerts.size + 1}`;
    const alert = alerts.get(dedupKey);
    if (body.event_action === 'trigger') {
      if (!alert) alerts.set(dedupKey, { dedupKey, status: 'triggered', triggers: [body], incidents: 1 });
      else if (alert.status === 'resolved')
        Object.assign(alert, { status: 'triggered', triggers: [body], incidents: alert.incidents + 1 });
      else alert.triggers.push(body);
    } else if (body.event_action === 'resolve' && alert) {
      alert.status = 'resolved';
    }
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedupKey } };
  };
  const double = await startOpenApiDouble({
    spec: underV2(loadSpec(PAGERDUTY_EVENTS_SPEC)),
    handlers: { createV2Event: ({ body }) => enqueue(body as Record<string, unknown>) },
    // The Events API takes no credentials in headers: the routing key in the body says where the event goes.
    authenticate: () => 'events',
    unauthorized: () => invalid(['unauthorized']),
    refuse: (kind, errors) =>
      kind === 'not-found'
        ? { status: 404, body: { status: 'Not Found', message: errors.join('; ') } }
        : invalid(errors),
  });
  return { ...double, enqueueUrl: `${double.url}/v2/enqueue`, alerts, routingKeys: keys };
}
