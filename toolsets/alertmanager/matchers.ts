import { z } from 'zod';
import { matches, parseMatcher, type LabelMatcher } from '../../src/intake-policy/label-matcher.js';

/** The matchers parameter every Alertmanager tool takes, in Alertmanager's own syntax. */
export const matchersParam = z
  .array(z.string().min(1).max(500))
  .max(20)
  .describe('Alertmanager matchers, e.g. ["alertname=\\"KubePodCrashLooping\\"", "namespace=~\\"prod|shop\\""]');

/** Parses each matcher, or says which one is wrong and how one looks. */
export function parseMatchers(texts: readonly string[]): { matchers: LabelMatcher[] } | { error: string } {
  try {
    return { matchers: texts.map((t, i) => parseMatcher(t, `matchers[${i}]`)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Alertmanager's own rule for a silence: at least one matcher that does not match the empty string. */
export function silencesSomething(matchers: readonly LabelMatcher[]): boolean {
  return matchers.some((m) => !matches(m, {}));
}

/** A matcher as Alertmanager's API v2 takes it in a silence. */
export function apiMatcher(m: LabelMatcher): { name: string; value: string; isRegex: boolean; isEqual: boolean } {
  return { name: m.name, value: m.value, isRegex: m.op.endsWith('~'), isEqual: m.op.startsWith('=') };
}
