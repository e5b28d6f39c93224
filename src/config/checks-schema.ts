import { z } from 'zod';
import { SeveritySchema } from '../issue.js';

/** What a check's name may be: it names its scheduler, its Redis keys, its metrics' label and its API path. */
export const CHECK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The fewest seconds between two runs of one check (a run is an investigation: model calls, tools). */
export const MIN_EVERY_SECONDS = 60;

/**
 * One health check (docs/checks.md): a question asked on a schedule (`everySeconds` or a cron `schedule`)
 * and/or after every deploy (`afterDeploy`), answered by an investigation whose verdict is pass, warn or fail.
 */
export const CheckSchema = z
  .strictObject({
    name: z.string().regex(CHECK_NAME_PATTERN, 'lower-case letters, digits, - and _, at most 63, e.g. checkout'),
    /** What a person would ask ("Are all pods of the checkout namespace ready?"). */
    question: z.string().trim().min(10).max(4000),
    /** A cron pattern (5 or 6 fields, BullMQ's cron-parser), in `timezone` (UTC unless given). */
    schedule: z.string().trim().min(9).optional(),
    timezone: z.string().min(1).optional(),
    /** Or: every this many seconds. */
    everySeconds: z
      .int()
      .min(MIN_EVERY_SECONDS)
      .max(7 * 86_400)
      .optional(),
    /** Run after every deploy seen (docs/checks.md#after-a-deploy), optionally only those matching. */
    afterDeploy: z.boolean().default(false),
    namespaces: z.array(z.string().min(1)).optional(),
    services: z.array(z.string().min(1)).optional(),
    /** How long after a deploy the check runs (the rollout settles first). */
    delaySeconds: z.int().min(0).max(86_400).default(120),
    /** The only toolsets the run is offered and may call (unset: every enabled one); told to the model too. */
    toolsets: z.array(z.string().min(1)).optional(),
    /** The instance every toolset of several queries (a cluster, a Prometheus), whatever its label; told to the model. */
    instance: z.string().min(1).optional(),
    /** Destinations (`name` or `name:target`) instead of destinations.routes. */
    destinations: z.array(z.string().min(1)).min(1).optional(),
    /** The investigation's severity, hence its queue priority (skip rules apply as to any issue). */
    severity: SeveritySchema.default('warning'),
    /** When destinations hear: on_change (a transition), on_failure (every failing run), always (every run). */
    notify: z.enum(['on_change', 'on_failure', 'always']).default('on_change'),
    /** Runs in a row with the same fail (or error) status before it counts (flapping damped); pass and warn count at once. */
    minConsecutive: z.int().min(1).max(100).default(2),
    /** A run still unfinished after this long no longer holds the next tick back. */
    timeoutSeconds: z.int().min(30).max(86_400).default(900),
    enabled: z.boolean().default(true),
  })
  .superRefine((c, ctx) => {
    if (c.schedule !== undefined && c.everySeconds !== undefined)
      ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'give schedule or everySeconds, not both' });
    if (c.schedule === undefined && c.everySeconds === undefined && !c.afterDeploy)
      ctx.addIssue({
        code: 'custom',
        path: ['everySeconds'],
        message: 'a check needs schedule, everySeconds or afterDeploy: true (e.g. everySeconds: 900)',
      });
  });
export type CheckConfig = z.infer<typeof CheckSchema>;

/** `checks`: the checks themselves (`list`), folders of one YAML file per check, and the daily cap. */
const ChecksObjectSchema = z.strictObject({
  list: z.array(CheckSchema).default([]),
  /** Folders of `*.yaml` / `*.yml` files, each one check (the keys of a `list` entry). */
  dirs: z.array(z.string().min(1)).default([]),
  /** Check runs started per UTC day, every check together; ticks past it are skipped (and logged). */
  maxRunsPerDay: z.int().min(1).max(100_000).default(500),
});

/** `checks: [ ... ]` is short for `checks: { list: [ ... ] }`; names are unique. */
export const ChecksConfigSchema = z
  .preprocess((v) => (Array.isArray(v) ? { list: v } : v), ChecksObjectSchema)
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.list.forEach((check, i) => {
      if (seen.has(check.name))
        ctx.addIssue({ code: 'custom', path: ['list', i, 'name'], message: `check "${check.name}" is defined twice` });
      seen.add(check.name);
    });
  });
export type ChecksConfig = z.infer<typeof ChecksConfigSchema>;
