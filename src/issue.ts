import { z } from 'zod';

/**
 * The one shape every source maps into. Sources build it with pure functions;
 * the engine never looks past it into a vendor payload (except to keep `raw`).
 */
export const SeveritySchema = z.enum(['critical', 'high', 'warning', 'info', 'unknown']);
export type Severity = z.infer<typeof SeveritySchema>;

/**
 * Where an issue lives in its source, for writing back: `key` is stable and unique, human-readable
 * where the source allows ("octo/app#12", "OPS-7"; an alert's id where short numbers are reused); `ref` holds the source's own coordinates (repo and number, issue key,
 * incident id), which each source parses with its own schema.
 */
export const IssueLocatorSchema = z.object({
  key: z.string().min(1),
  /** How people name the issue, where that is not unique over time (an OpsGenie tinyId, "#42"): shown, never keyed on. */
  label: z.string().min(1).optional(),
  ref: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type IssueLocator = z.infer<typeof IssueLocatorSchema>;

export const IssueSchema = z.object({
  /** Stable identity within the source instance; repeats of the same problem share it. Used for dedup. */
  identity: z.string().min(1),
  /**
   * What stays the same across firings of the same problem (Alertmanager's fingerprint, a
   * ticket's key). A resolution that does not match an identity is matched on this.
   */
  fingerprint: z.string().min(1),
  /** Source kind, e.g. "alertmanager". */
  source: z.string().min(1),
  /** Which configured instance of the source (e.g. an Alertmanager's external URL). */
  sourceInstance: z.string(),
  title: z.string(),
  description: z.string(),
  url: z.string().nullable(),
  severity: SeveritySchema,
  status: z.enum(['open', 'resolved']),
  labels: z.record(z.string(), z.string()),
  /** Free-form key/value metadata: Alertmanager annotations, ticket fields. */
  annotations: z.record(z.string(), z.string()),
  startedAt: z.string(),
  /**
   * The alerts this issue is made of, as another source knows them (a PagerDuty incident made
   * by Alertmanager's integration: alertmanager + fingerprint@startsAt). When every one of them
   * is already investigated, intake links this issue to those investigations instead of running
   * the LLM again; its write-back then carries their RCA.
   */
  related: z.array(z.object({ source: z.string().min(1), identity: z.string().min(1) })).optional(),
  /** Where to write the RCA back; absent for sources with nowhere to write (Alertmanager). */
  locator: IssueLocatorSchema.optional(),
  /**
   * Text written by third parties (ticket bodies, comments). The prompt fences it as untrusted
   * data; it never becomes instructions.
   */
  untrusted: z.array(z.object({ label: z.string(), text: z.string() })).optional(),
  /**
   * Hosts named by text the source knows trusted people wrote (an Alertmanager rule's
   * annotations, a GitHub issue opened by a trusted author). Links to them stay live in the
   * write-back; no host of third-party text (`untrusted`, an alert's body) is ever listed here.
   */
  trustedHosts: z.array(z.string()).optional(),
  /** The vendor payload this Issue was made from, kept for the prompt and for debugging. */
  raw: z.unknown(),
  /**
   * Set by a source that investigates this issue together with others of the same group (an
   * Alertmanager group, `investigateBy: group`): issues of one key, open while the group's
   * investigation is still queued, join it. `title` names the group's investigation; a follow-up
   * (an issue arriving once it has started) waits until the group has been quiet for quietSeconds.
   */
  group: z
    .object({
      key: z.string().min(1),
      title: z.string(),
      quietSeconds: z.number().min(0),
      maxWaitSeconds: z.number().min(0),
    })
    .optional(),
  /** On a group's investigation: every issue of the group, each with only what differs from the shared labels and annotations above. */
  alerts: z
    .array(
      z.object({
        identity: z.string(),
        fingerprint: z.string(),
        title: z.string(),
        status: z.enum(['open', 'resolved']),
        severity: SeveritySchema,
        startedAt: z.string(),
        url: z.string().nullable(),
        labels: z.record(z.string(), z.string()),
        annotations: z.record(z.string(), z.string()),
      }),
    )
    .optional(),
});
export type Issue = z.infer<typeof IssueSchema>;

/** A Map, not an object literal: a vendor's word must never reach Object.prototype ("constructor", "__proto__"). */
const SEVERITY_WORDS = new Map<string, Severity>(
  Object.entries({
    critical: 'critical',
    page: 'critical',
    p1: 'critical',
    fatal: 'critical',
    emergency: 'critical',
    high: 'high',
    error: 'high',
    major: 'high',
    p2: 'high',
    warning: 'warning',
    warn: 'warning',
    medium: 'warning',
    p3: 'warning',
    info: 'info',
    low: 'info',
    none: 'info',
    p4: 'info',
    p5: 'info',
  } satisfies Record<string, Severity>),
);

/** Maps a vendor's severity word onto ours; unknown words stay "unknown" rather than guessed. */
export function normaliseSeverity(word: string | undefined): Severity {
  if (!word) return 'unknown';
  return SEVERITY_WORDS.get(word.trim().toLowerCase()) ?? 'unknown';
}
