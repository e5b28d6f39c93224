import { z } from 'zod';
import type {
  Delivered,
  DeliveryContext,
  Destination,
  DestinationRegistration,
  DestinationView,
} from '../../src/delivery/destination.js';
import { postOnce } from '../http-post.js';
import { enqueueEvent, plan } from './event.js';

export const EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

export const PagerDutyEventsConfigSchema = z.strictObject({
  /** An Events API v2 integration's key (a service's "Integration Key"): a secret. */
  routingKey: z.string().min(1).optional(),
  /** The enqueue endpoint; EU accounts: https://events.eu.pagerduty.com/v2/enqueue. */
  url: z.url().default(EVENTS_URL),
  /** Also page for ordinary investigations routed here (trigger on the RCA, resolve with the issue); checks always. */
  investigations: z.boolean().default(false),
  timeoutMs: z.int().positive().default(15_000),
});
export type PagerDutyEventsConfig = z.infer<typeof PagerDutyEventsConfigSchema>;

/**
 * PagerDuty through the Events API v2: a failing health check triggers an incident deduplicated by the
 * check's name, and its passing again resolves it (docs/destinations/pagerduty-events.md). PagerDuty
 * dedupes on dedup_key, so an event sent twice (a dropped answer, a redelivered job) is still one incident.
 */
class PagerDutyEventsDestination implements Destination {
  readonly name = 'pagerduty_events';
  constructor(
    private readonly config: PagerDutyEventsConfig & { routingKey: string },
    private readonly now: () => Date = () => new Date(),
  ) {}

  describe(): string {
    return 'pagerduty_events';
  }

  async deliver(view: DestinationView, _target: string | null, ctx: DeliveryContext): Promise<Delivered | null> {
    const planned = plan(view, this.config.investigations);
    if (!planned) return null;
    const { id, run } = view.investigation;
    const key = `pagerduty-events:${id}:${planned.action}${run > 1 && planned.action === 'trigger' ? `:run-${run}` : ''}`;
    const sent = await postOnce(
      key,
      {
        vendor: 'PagerDuty Events API',
        url: this.config.url,
        body: JSON.stringify(enqueueEvent(view, planned, this.config.routingKey, this.now())),
        headers: {},
        timeoutMs: this.config.timeoutMs,
        setting: 'PAGERDUTY_ROUTING_KEY (destinations.pagerduty_events.routingKey) and PAGERDUTY_EVENTS_URL',
      },
      ctx,
    );
    // What the write-back records: the incident's dedup key, which PagerDuty shows on the alert.
    return { ...sent, id: `${planned.action}:${planned.dedupKey}` };
  }
}

export const pagerdutyEvents: DestinationRegistration<PagerDutyEventsConfig> = {
  name: 'pagerduty_events',
  configSchema: PagerDutyEventsConfigSchema,
  env: [
    ['PAGERDUTY_ROUTING_KEY', ['routingKey'], 'string'],
    ['PAGERDUTY_EVENTS_URL', ['url'], 'string'],
  ],
  disabledReason: (c) =>
    c.routingKey ? null : 'no routing key (PAGERDUTY_ROUTING_KEY or destinations.pagerduty_events.routingKey)',
  create: (c) => new PagerDutyEventsDestination(c as PagerDutyEventsConfig & { routingKey: string }),
};
