import type { DestinationView } from '../../src/destinations/destination.js';
import { toMarkdown } from '../../src/render/compose-comment.js';

/** The body of a webhook delivery, version 1 (schemas/webhook-v1.schema.json). */
export interface WebhookPayloadV1 {
  version: '1';
  event: 'investigation.completed' | 'investigation.resolved';
  /** Stable across retries of this delivery: also the Idempotency-Key header. */
  deliveryId: string;
  investigation: DestinationView['investigation'];
  issue: DestinationView['issue'];
  group: DestinationView['thread'];
  rca: { headline: string; markdown: string; sections: string[] };
}

export function webhookPayload(view: DestinationView, deliveryId: string): WebhookPayloadV1 {
  return {
    version: '1',
    event: view.event === 'completed' ? 'investigation.completed' : 'investigation.resolved',
    deliveryId,
    investigation: view.investigation,
    issue: view.issue,
    group: view.thread,
    rca: { headline: view.headline, markdown: toMarkdown(view.doc), sections: view.doc.sections },
  };
}
