import { z } from 'zod';
import { builtInDetectors, DETECTOR_NAMES, type Detector, type DetectorName } from '../redaction/detectors.js';
import { RESTORE_PLACES, type RedactionRules } from '../redaction/redaction.js';

/** An operator's pattern: its name is the placeholder's kind (`<customer_id-1>`), its regex what it replaces. */
const PatternSchema = z
  .strictObject({
    name: z
      .string()
      .regex(
        /^[a-z][a-z0-9_]{0,30}$/,
        'must be lower case letters, digits and underscores, starting with a letter (it names the placeholder)',
      ),
    regex: z.string().min(1),
    /** RegExp flags besides "g" (which is always set): i, m, s, u. */
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'may hold only i, m, s and u')
      .default(''),
  })
  .superRefine((p, ctx) => {
    let re: RegExp;
    try {
      re = new RegExp(p.regex, p.flags);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: ['regex'],
        message: `is not a valid regular expression: ${(err as Error).message}`,
      });
      return;
    }
    if (re.test(''))
      ctx.addIssue({ code: 'custom', path: ['regex'], message: 'matches the empty string: it would match everywhere' });
  });

/**
 * What never reaches the model (docs/security.md#what-the-model-never-sees): private values in everything sent to
 * the LLM are replaced by placeholders, mapped back only where `restoreIn` says.
 */
export const RedactionConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Built-in detectors, each on unless set to false. */
  detectors: z
    .strictObject(
      Object.fromEntries(DETECTOR_NAMES.map((n) => [n, z.boolean().default(true)])) as Record<
        DetectorName,
        z.ZodDefault<z.ZodBoolean>
      >,
    )
    .prefault({}),
  /** The operators' own patterns, run before the built-in detectors. */
  patterns: z.array(PatternSchema).default([]),
  /** Where placeholders are mapped back to the values: dashboard, api, cli, destinations, tickets. */
  restoreIn: z.array(z.enum(RESTORE_PLACES)).default(['dashboard']),
});

export type RedactionConfig = z.infer<typeof RedactionConfigSchema>;

/** The rules the loop applies, or null when redaction is off. */
export function redactionRules(config: RedactionConfig): RedactionRules | null {
  if (!config.enabled) return null;
  const own: Detector[] = config.patterns.map((p) => ({
    name: p.name,
    kind: p.name,
    patterns: [new RegExp(p.regex, `g${p.flags}`)],
  }));
  return {
    detectors: [...own, ...builtInDetectors((n) => config.detectors[n])],
    restoreIn: new Set(config.restoreIn),
  };
}
