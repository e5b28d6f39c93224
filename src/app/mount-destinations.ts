import type { Config } from '../config/schema.js';
import type { AnyDestination, Destination } from '../delivery/destination.js';
import type { CheckConfig } from '../config/checks-schema.js';
import { CHECK_SOURCE } from '../investigation/investigator.js';
import { compileRouter, type FirstRoute, type Router } from '../delivery/routing.js';
import type { HumanActions } from '../actions/human-actions.js';
import type { MountedWebhook } from '../http/webhook-route.js';
import type { Logger } from '../log.js';
import type { SourceContext } from '../registration/source.js';

/** The destinations that are on, the router over them, and each one's state for /readyz. */
export interface MountedDestinations {
  destinations: Map<string, Destination>;
  router: Router;
  /** By name: "ok", "off: <why>", "checking", or what the credential check said (e.g. Slack's invalid_auth and the fix). */
  status: Map<string, string>;
  /** Checks every destination's credentials (Slack: auth.test); reports, never throws. */
  check(): Promise<void>;
}

/** Builds every registered destination from its config slice and compiles the routes (ConfigError when bad). */
export function mountDestinations(
  registrations: readonly AnyDestination[],
  config: Config,
  ctx: SourceContext,
  first: readonly FirstRoute[] = [],
): MountedDestinations {
  const destinations = new Map<string, Destination>();
  const status = new Map<string, string>();
  for (const r of registrations) {
    const slice = config.destinations[r.name];
    const off = r.disabledReason(slice);
    status.set(r.name, off ? `off: ${off}` : 'checking');
    if (!off) destinations.set(r.name, r.create(slice, ctx));
  }
  const router = compileRouter(
    config.destinations,
    registrations.map((r) => {
      const targetError = r.targetError?.bind(r);
      return { name: r.name, on: destinations.has(r.name), ...(targetError ? { targetError } : {}) };
    }),
    first,
  );
  return { destinations, router, status, check: () => checkAll(destinations, status, ctx.log) };
}

async function checkAll(
  destinations: ReadonlyMap<string, Destination>,
  status: Map<string, string>,
  log: Logger,
): Promise<void> {
  await Promise.all(
    [...destinations].map(async ([name, d]) => {
      const problem = d.check
        ? await d.check().catch((err: unknown) => (err instanceof Error ? err.message : String(err)))
        : null;
      status.set(name, problem ?? 'ok');
      if (problem)
        log.error(
          { destination: name, problem },
          'destination credentials refused: its deliveries will fail until fixed',
        );
      else log.info({ destination: name }, 'destination on');
    }),
  );
}

/**
 * What destinations take back (Slack's interactivity) as webhook mounts, at /webhooks/<name>/<path>: through the
 * same route, checks and metrics as a source's. Off (404 naming why) when the destination or its webhooks are off.
 */
export function destinationWebhooks(
  registrations: readonly AnyDestination[],
  config: Config,
  routed: Pick<MountedDestinations, 'destinations' | 'status'>,
  actions: HumanActions,
  ctx: SourceContext,
): MountedWebhook[] {
  return registrations.flatMap((r): MountedWebhook[] => {
    if (!r.webhooks) return [];
    const slice = config.destinations[r.name];
    const destination = routed.destinations.get(r.name);
    const off = destination ? (r.webhooksOffReason?.(slice) ?? null) : (routed.status.get(r.name) ?? 'off');
    if (off || !destination)
      return (r.webhookPaths ?? []).map((p) => ({ name: `${r.name}/${p}`, offReason: off ?? 'off' }));
    return r
      .webhooks(slice, destination, actions, ctx)
      .map((w) => ({ name: `${r.name}/${w.path}`, handler: w.handler }));
  });
}

/** A check's own `destinations` (docs/checks.md), tried before destinations.routes for its runs. */
export function checkRoutes(checks: readonly CheckConfig[]): FirstRoute[] {
  return checks.flatMap((c) =>
    c.destinations
      ? [
          {
            where: `check ${c.name}`,
            source: CHECK_SOURCE,
            matchers: [`check="${c.name}"`],
            destinations: c.destinations,
          },
        ]
      : [],
  );
}
