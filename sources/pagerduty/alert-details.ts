import type { AmAlert } from './am-alert.js';
import { parseJsonAlerts } from './am-json-alerts.js';
import { parseTextBlocks } from './am-text-blocks.js';
import type { PdAlert } from './schema.js';

/** What Alertmanager's PagerDuty integration put in one PagerDuty alert's details. */
export interface AmDetails {
  /** `text`: ≤ 0.29 (Labels:/Annotations: blocks); `json`: ≥ 0.30 (arrays of alerts). */
  format: 'text' | 'json';
  firing: AmAlert[];
  resolved: AmAlert[];
}

/**
 * The custom details of a PagerDuty alert: `body.details`, else `body.cef_details.details`
 * (PD-CEF events carry them there too). A string holding a JSON object is read as that object.
 */
export function detailsOf(alert: Pick<PdAlert, 'body'>): unknown {
  const body = alert.body;
  const cef = body?.cef_details as { details?: unknown } | null | undefined;
  const details = body?.details ?? cef?.details;
  if (typeof details !== 'string' || !details.trimStart().startsWith('{')) return details;
  try {
    return JSON.parse(details) as unknown;
  } catch {
    return details;
  }
}

/**
 * Alertmanager's details (`{firing, resolved, num_firing, num_resolved}`) in either format, or
 * null when these details are someone else's. Pure.
 */
export function alertmanagerDetails(details: unknown): AmDetails | null {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return null;
  const d = details as Record<string, unknown>;
  if (!Object.hasOwn(d, 'firing') || !(Object.hasOwn(d, 'num_firing') || Object.hasOwn(d, 'resolved'))) return null;
  const { firing, resolved } = d;
  if (Array.isArray(firing) || Array.isArray(resolved)) {
    return {
      format: 'json',
      firing: Array.isArray(firing) ? parseJsonAlerts(firing) : [],
      resolved: Array.isArray(resolved) ? parseJsonAlerts(resolved) : [],
    };
  }
  if (typeof firing === 'string' || typeof resolved === 'string') {
    return {
      format: 'text',
      firing: typeof firing === 'string' ? parseTextBlocks(firing) : [],
      resolved: typeof resolved === 'string' ? parseTextBlocks(resolved) : [],
    };
  }
  return null;
}
