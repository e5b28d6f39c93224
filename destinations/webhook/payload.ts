import type { AnswerView, DestinationView } from '../../src/delivery/destination.js';
import { toMarkdown } from '../../src/render/compose-comment.js';

/** The body of a webhook delivery, version 1 (schemas/webhook-v1.schema.json). */
export interface WebhookPayloadV1 {
  version: '1';
  event: 'investigation.completed' | 'investigation.resolved' | 'investigation.answered';
  /** Stable across retries of this delivery: also the Idempotency-Key header. */
  deliveryId: string;
  investigation: DestinationView['investigation'];
  issue: DestinationView['issue'];
  group: DestinationView['thread'];
  rca: { headline: string; markdown: string; sections: string[] };
  /** investigation.answered only: the follow-up question and the model's answer (sanitised Markdown, untrusted). */
  answer?: { entry: number; question: string; markdown: string; answeredAt: string | null };
  /** A health check's run (docs/checks.md): its verdict, the status notified before, summary and evidence. */
  check?: DestinationView['checkView'];
}

export function webhookPayload(view: DestinationView, deliveryId: string, answer?: AnswerView): WebhookPayloadV1 {
  return {
    version: '1',
    event: eventOf(view, answer),
    deliveryId,
    investigation: view.investigation,
    issue: view.issue,
    group: view.thread,
    rca: { headline: view.headline, markdown: toMarkdown(view.doc), sections: view.doc.sections },
    ...(view.checkView ? { check: view.checkView } : {}),
    ...(answer
      ? {
          answer: {
            entry: answer.entry,
            question: answer.question,
            markdown: answer.answer,
            answeredAt: answer.answeredAt,
          },
        }
      : {}),
  };
}

function eventOf(view: DestinationView, answer: AnswerView | undefined): WebhookPayloadV1['event'] {
  if (answer) return 'investigation.answered';
  return view.event === 'completed' ? 'investigation.completed' : 'investigation.resolved';
}
