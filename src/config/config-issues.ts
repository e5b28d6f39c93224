import { redactUrlsIn } from '../redact.js';
import type { EnvBinding } from '../registration/source.js';

export interface ConfigIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/** An environment variable that set a value, and the config path it set. */
export interface EnvOrigin {
  name: string;
  value: string;
  path: readonly string[];
}

/** Names that hold credentials: their values are never quoted in an error. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PRIVATE/i;
const MAX_ISSUES = 5;

/**
 * One line per configuration problem, naming where the value came from: the environment variable
 * (with its value, unless it is a credential) when one set it, else the config file and key.
 */
export function describeConfigIssues(
  issues: readonly ConfigIssue[],
  origins: readonly EnvOrigin[],
  file?: string,
): string {
  return issues
    .slice(0, MAX_ISSUES)
    .map((issue) => describeIssue(issue, origins, file))
    .join('; ');
}

function describeIssue(issue: ConfigIssue, origins: readonly EnvOrigin[], file?: string): string {
  const path = issue.path.map(String);
  const key = path.length ? path.join('.') : '(root)';
  const origin = origins.find((o) => startsWith(path, o.path));
  if (origin) return `${envShown(origin)} sets ${key}: ${issue.message}`;
  if (file) return `${file}: ${key}: ${issue.message}`;
  return `${key}: ${issue.message}`;
}

function envShown(origin: EnvOrigin): string {
  if (SECRET_NAME.test(origin.name)) return origin.name;
  return `${origin.name}=${redactUrlsIn(origin.value)}`;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

/** The bindings whose variables are set in env, as origins. */
export function envOrigins(bindings: readonly EnvBinding[], env: Record<string, string | undefined>): EnvOrigin[] {
  return bindings.flatMap(([name, path]) => {
    const value = env[name];
    return value === undefined || value === '' ? [] : [{ name, value, path }];
  });
}
