import type { CheckConfig } from '../config/checks-schema.js';

/**
 * What is wrong with the checks' `toolsets` against the toolsets this process has (their names and states): a name
 * no toolset has, or a toolset not enabled. Such a check's runs are offered none of that toolset's tools.
 */
export function checkToolsetWarnings(
  checks: readonly CheckConfig[],
  toolsets: ReadonlyArray<{ name: string; state: string; reason?: string }>,
): string[] {
  const known = toolsets.map((t) => t.name);
  return checks.flatMap((check) =>
    (check.toolsets ?? []).flatMap((name) => {
      const status = toolsets.find((t) => t.name === name);
      const where = `check ${check.name}: toolsets names ${name}`;
      if (!status)
        return [`${where}, which is no toolset (known: ${known.join(', ') || 'none'}); fix the check's toolsets`];
      if (status.state === 'enabled') return [];
      const why = status.reason ? ` (${status.reason})` : '';
      return [`${where}, which is ${status.state}${why}; its runs are offered none of its tools`];
    }),
  );
}
