import { z } from 'zod';

/** One route of `destinations.routes`: which issues (source, Alertmanager matchers) go where. */
export const RouteSchema = z.strictObject({
  /** The source(s) this route takes; unset, only issues without a ticket of their own (e.g. Alertmanager's). */
  source: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** Alertmanager matchers on the labels, all of which must match: `severity=~"critical|warning"`. */
  matchers: z.array(z.string().min(1)).default([]),
  /** Destinations, each `name` or `name:target` (e.g. `slack:#prod-alerts`, `slack:C0123456`). */
  destinations: z.array(z.string().min(1)).min(1),
  /** Like Alertmanager's: after a match, go on trying the routes below. */
  continue: z.boolean().default(false),
});
export type RouteConfig = z.infer<typeof RouteSchema>;

export const RoutingConfigSchema = z.strictObject({
  routes: z.array(RouteSchema).default([]),
  /**
   * The default route: where issues without a ticket of their own go when no route matched.
   * Unset, every destination that is on (e.g. SLACK_BOT_TOKEN + SLACK_CHANNEL set).
   */
  default: z.array(z.string().min(1)).optional(),
});
export type RoutingConfig = z.infer<typeof RoutingConfigSchema>;
