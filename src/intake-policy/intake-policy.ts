import type { Issue, Severity } from '../issue.js';
import { matches, parseMatcher, type LabelMatcher } from './label-matcher.js';

/** What not to investigate: every matcher must match; `sources` limits the rule to those sources. */
export interface SkipRuleConfig {
  name: string;
  matchers: string[];
  sources?: string[];
}

export interface IntakePolicyConfig {
  /** BullMQ priority per severity: lower runs first (1 is the highest). */
  priorities: Record<Severity, number>;
  /** Per source, overrides of some severities' priorities. */
  prioritiesBySource: Record<string, Partial<Record<Severity, number>>>;
  skip: SkipRuleConfig[];
  /** An issue that resolves before its investigation starts is not investigated. */
  skipResolvedWhileQueued: boolean;
}

export const DEFAULT_SKIP_RULES: SkipRuleConfig[] = [
  { name: 'severity-info', matchers: ['severity="info"'] },
  { name: 'heartbeat', matchers: ['alertname=~"Watchdog|InfoInhibitor"'] },
];

export const DEFAULT_PRIORITIES: Record<Severity, number> = { critical: 1, high: 2, warning: 3, unknown: 4, info: 5 };

interface CompiledRule {
  name: string;
  matchers: LabelMatcher[];
  sources: Set<string> | null;
}

/** Decides, per issue, whether to skip it (and by which rule) and at which priority its job runs. */
export class IntakePolicy {
  private readonly rules: CompiledRule[];

  constructor(private readonly config: IntakePolicyConfig) {
    this.rules = config.skip.map((r, i) => ({
      name: r.name,
      matchers: r.matchers.map((m, j) => parseMatcher(m, `intake.skip.${i}.matchers.${j}`)),
      sources: r.sources ? new Set(r.sources) : null,
    }));
  }

  /** The name of the first rule that matches the issue's labels, or null. */
  skipRule(issue: Pick<Issue, 'source' | 'labels'>): string | null {
    for (const r of this.rules) {
      if (r.sources && !r.sources.has(issue.source)) continue;
      if (r.matchers.length > 0 && r.matchers.every((m) => matches(m, issue.labels))) return r.name;
    }
    return null;
  }

  priority(issue: Pick<Issue, 'source' | 'severity'>): number {
    const own = Object.hasOwn(this.config.prioritiesBySource, issue.source)
      ? this.config.prioritiesBySource[issue.source]
      : undefined;
    return own?.[issue.severity] ?? this.config.priorities[issue.severity];
  }

  get skipResolvedWhileQueued(): boolean {
    return this.config.skipResolvedWhileQueued;
  }
}

/** Alerts and tickets arrive with no policy in unit set-ups: nothing skipped, default priorities. */
export const PERMISSIVE_POLICY = new IntakePolicy({
  priorities: DEFAULT_PRIORITIES,
  prioritiesBySource: {},
  skip: [],
  skipResolvedWhileQueued: false,
});
