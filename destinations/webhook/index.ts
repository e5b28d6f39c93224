import { z } from 'zod';
import type {
  Delivered,
  DeliveryContext,
  Destination,
  DestinationRegistration,
  DestinationView,
} from '../../src/delivery/destination.js';
import { splitTokens } from '../../src/check-credentials.js';
import { postOnce } from '../http-post.js';
import { webhookPayload, type WebhookPayloadV1 } from './payload.js';
import { signatureHeader } from './sign.js';

export const WebhookConfigSchema = z.strictObject({
  url: z.url().optional(),
  /** HMAC secrets; comma-separate several while rotating (every one signs, receivers accept any). */
  secret: z.string().min(1).optional(),
  timeoutMs: z.int().positive().default(15_000),
});
export type WebhookConfig = z.infer<typeof WebhookConfigSchema>;

/**
 * A generic signed webhook: a versioned JSON POST per investigation event, signed over
 * `timestamp.body`, with an Idempotency-Key stable across retries (receivers dedupe on it).
 */
class WebhookDestination implements Destination {
  readonly name = 'webhook';
  private readonly secrets: string[];
  constructor(
    private readonly config: WebhookConfig & { url: string },
    private readonly now: () => number = Date.now,
  ) {
    this.secrets = splitTokens(config.secret ?? '');
  }

  describe(): string {
    return 'webhook';
  }

  async deliver(view: DestinationView, _target: string | null, ctx: DeliveryContext): Promise<Delivered | null> {
    const { id, run } = view.investigation;
    if (view.event === 'answered') return this.answers(view, ctx);
    // Pauses and human decisions are not events of version 1.
    if (view.event !== 'completed' && view.event !== 'resolved') return null;
    // A re-run's RCA is one more delivery (run 1 keeps the key it always had).
    const key =
      view.event === 'completed' && run > 1 ? `lestrade-${id}-completed-run-${run}` : `lestrade-${id}-${view.event}`;
    return this.send(key, webhookPayload(view, key), ctx);
  }

  /** One `investigation.answered` per answered follow-up, each once (its own Idempotency-Key). */
  private async answers(view: DestinationView, ctx: DeliveryContext): Promise<Delivered | null> {
    let last: Delivered | null = null;
    for (const a of view.answers) {
      const key = `lestrade-${view.investigation.id}-answer-${a.entry}`;
      last = await this.send(key, webhookPayload(view, key, a), ctx);
    }
    return last;
  }

  private send(key: string, payload: WebhookPayloadV1, ctx: DeliveryContext): Promise<Delivered> {
    const body = JSON.stringify(payload);
    return postOnce(
      key,
      {
        vendor: 'webhook',
        url: this.config.url,
        body,
        timeoutMs: this.config.timeoutMs,
        setting: 'LESTRADE_WEBHOOK_URL (destinations.webhook.url)',
        headers: {
          'idempotency-key': key,
          'x-lestrade-signature': signatureHeader(body, this.secrets, this.now() / 1000),
        },
      },
      ctx,
    );
  }
}

export const webhook: DestinationRegistration<WebhookConfig> = {
  name: 'webhook',
  configSchema: WebhookConfigSchema,
  env: [
    ['LESTRADE_WEBHOOK_URL', ['url'], 'string'],
    ['LESTRADE_WEBHOOK_SECRET', ['secret'], 'string'],
  ],
  disabledReason: (c) => {
    if (!c.url) return 'no URL (LESTRADE_WEBHOOK_URL or destinations.webhook.url)';
    return c.secret
      ? null
      : 'no signing secret (LESTRADE_WEBHOOK_SECRET or destinations.webhook.secret): deliveries would be unsigned';
  },
  create: (c) => new WebhookDestination(c as WebhookConfig & { url: string }),
};
