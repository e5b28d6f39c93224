import { splitUrlCredentials, withUrlAuthorization } from '../outbound-http/url-credentials.js';
import { runCommand } from './run-command.js';
import { withoutUrlQueries } from './url-without-query.js';
import type { Prerequisite } from './types.js';
import { renderValue } from './yaml-toolset.js';

/** Checks prerequisites in order; returns the first failure's reason, or null when all pass. */
export async function checkPrerequisites(
  prereqs: Prerequisite[],
  env: Record<string, string | undefined>,
): Promise<string | null> {
  return (await firstFailure(prereqs, env))?.reason ?? null;
}

/** The first failing prerequisite's reason, and whether it marks the toolset failed rather than disabled. */
export async function firstFailure(
  prereqs: Prerequisite[],
  env: Record<string, string | undefined>,
): Promise<{ reason: string; failed: boolean } | null> {
  for (const p of prereqs) {
    const reason = await checkOne(p, env);
    if (reason) return { reason, failed: p.kind === 'check' && p.failed === true };
  }
  return null;
}

async function checkOne(p: Prerequisite, env: Record<string, string | undefined>): Promise<string | null> {
  switch (p.kind) {
    case 'env': {
      const missing = p.vars.filter((v) => !env[v]);
      return missing.length
        ? `environment variable${missing.length > 1 ? 's' : ''} not set: ${missing.join(', ')}`
        : null;
    }
    case 'command': {
      try {
        const out = await runCommand(
          p.argv.map((a) => renderValue(a, {}, env)),
          { timeoutMs: p.timeoutMs ?? 10_000, maxBytes: 8192, env: p.env ? { ...process.env, ...p.env } : undefined },
        );
        if (out.exitCode === 0) return null;
        const output = (out.stderr || out.stdout).trim();
        const detail = p.explain?.find((e) => output.includes(e.match))?.say ?? output.split('\n').at(-1) ?? '';
        return `\`${p.argv.join(' ')}\` exited ${out.exitCode ?? 'on timeout'}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
      } catch (err) {
        return `\`${p.argv.join(' ')}\` could not run: ${(err as Error).message}`;
      }
    }
    case 'check':
      return p.run().catch((err: Error) => `check failed: ${err.message}`);
    case 'http': {
      let url = '(url)';
      try {
        // Credentials in the URL go as basic auth; messages show it with the password blanked, and
        // without its query or fragment (a token rendered from the environment may ride there).
        const target = splitUrlCredentials(renderValue(p.url, {}, env));
        url = withoutUrlQueries(target.display);
        const headers = withUrlAuthorization(
          Object.fromEntries(Object.entries(p.headers ?? {}).map(([k, v]) => [k, renderValue(v, {}, env)])),
          target.authorization,
        );
        const res = await fetch(target.url, { headers, signal: AbortSignal.timeout(p.timeoutMs ?? 5_000) });
        await res.body?.cancel();
        return res.ok ? null : `${url} answered HTTP ${res.status}`;
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        return `${url} did not answer: ${cause ?? (err as Error).message}`;
      }
    }
  }
}
