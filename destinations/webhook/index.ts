import { z } from 'zod';
import type {
  Delivered,
  DeliveryContext,
  Destination,
  DestinationRegistration,
  DestinationView,
} from '../../src/destinations/destination.js';
import { splitTokens } from '../../src/check-credentials.js';
import { postOnce } from '../http-post.js';
import { webhookPayload } from './payload.js';
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
    const key = `lestrade-${view.investigation.id}-${view.event}`;
    const body = JSON.stringify(webhookPayload(view, key));
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
