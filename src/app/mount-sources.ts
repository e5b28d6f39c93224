import type { Config } from '../config/schema.js';
import type { MountedWebhook } from '../http/webhook-route.js';
import type { AnySource, Poller, SourceContext, WebhookHandler } from '../registration/source.js';
import type { RcaWriter } from '../registration/rca-writer.js';

/** A registered source with its config applied: on (with what it offers) or off (with why). */
export interface MountedSource {
  name: string;
  offReason: string | null;
  warnings: string[];
  /** Warnings about the source's webhook: said only where webhooks are served. */
  webhookWarnings: string[];
  webhook: WebhookHandler | null;
  writer: RcaWriter | null;
  pollers: Poller[];
}

/** Builds every registered source from its validated config slice. */
export function mountSources(registrations: readonly AnySource[], config: Config, ctx: SourceContext): MountedSource[] {
  return registrations.map((r) => {
    const slice = config.sources[r.name];
    const offReason = r.disabledReason(slice);
    if (offReason)
      return { name: r.name, offReason, warnings: [], webhookWarnings: [], webhook: null, writer: null, pollers: [] };
    return {
      name: r.name,
      offReason: null,
      warnings: r.warnings?.(slice) ?? [],
      webhookWarnings: r.webhook ? (r.webhookWarnings?.(slice) ?? []) : [],
      webhook: r.webhook?.(slice, ctx) ?? null,
      writer: r.writer?.(slice, ctx) ?? null,
      pollers: r.pollers?.(slice, ctx) ?? [],
    };
  });
}

/** What the HTTP side mounts under /webhooks/<name>: every source with a webhook, or the reason it is off. */
export function webhookMounts(
  mounted: readonly MountedSource[],
  registrations: readonly AnySource[],
): MountedWebhook[] {
  return mounted.flatMap((m): MountedWebhook[] => {
    if (m.webhook) return [{ name: m.name, handler: m.webhook }];
    const hasWebhook = registrations.some((r) => r.name === m.name && r.webhook !== undefined);
    return hasWebhook && m.offReason ? [{ name: m.name, offReason: m.offReason }] : [];
  });
}
