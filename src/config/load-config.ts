import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { describeConfigIssues, envOrigins } from './config-issues.js';
import type { EnvBinding } from '../registration/source.js';
import { toolsetConfigPath, type ToolsetRegistration } from '../registration/toolset.js';
import { buildConfigSchema, type Config } from './schema.js';

type Env = Record<string, string | undefined>;

/** What loadConfig needs of each source (and destination): its slice's schema and environment variables. */
export interface SourceConfigSpec {
  name: string;
  configSchema: z.ZodType;
  env: EnvBinding[];
}

/** What loadConfig needs of each toolset: where its settings sit, their schema, variables and `prepare`. */
export type ToolsetConfigSpec = Pick<
  ToolsetRegistration,
  'name' | 'configKey' | 'configSchema' | 'env' | 'settingsEnv' | 'prepare'
>;

/** Environment variables and where they land in the config tree; env wins over the file. */
const ENV_MAP: EnvBinding[] = [
  ['PORT', ['server', 'port'], 'int'],
  ['HOST', ['server', 'host'], 'string'],
  ['LESTRADE_WORKER_PORT', ['server', 'workerPort'], 'int'],
  ['LESTRADE_API_TOKEN', ['server', 'apiToken'], 'string'],
  ['LESTRADE_API_TOKENS', ['server', 'apiTokens'], 'list'],
  ['LESTRADE_ALLOW_UNAUTHENTICATED', ['server', 'allowUnauthenticated'], 'boolean'],
  ['LESTRADE_METRICS_TOKEN', ['server', 'metricsToken'], 'string'],
  ['REDIS_URL', ['redis', 'url'], 'string'],
  ['LESTRADE_REDIS_PREFIX', ['redis', 'prefix'], 'string'],
  ['LESTRADE_REDIS_DATA_DIR', ['redis', 'dataDir'], 'string'],
  ['LESTRADE_REDIS_TLS_CA_FILE', ['redis', 'tls', 'caFile'], 'string'],
  ['LESTRADE_LOCAL_REDIS_PORT', ['redis', 'localPort'], 'int'],
  ['OPENAI_API_KEY', ['llm', 'apiKey'], 'string'],
  ['OPENAI_BASE_URL', ['llm', 'baseUrl'], 'string'],
  ['LESTRADE_MODEL', ['llm', 'model'], 'string'],
  ['LESTRADE_TOOL_CALL_FORMAT', ['llm', 'toolCallFormat'], 'string'],
  ['LESTRADE_MAX_STEPS', ['llm', 'maxSteps'], 'int'],
  ['LESTRADE_LLM_MAX_RETRIES', ['llm', 'maxRetries'], 'int'],
  ['LESTRADE_CONTEXT_WINDOW', ['llm', 'contextWindow'], 'int'],
  ['LESTRADE_COMPACT_AT', ['llm', 'compactAt'], 'number'],
  ['LESTRADE_LLM_RPM', ['llm', 'rateLimit', 'requestsPerMinute'], 'int'],
  ['LESTRADE_LLM_TPM', ['llm', 'rateLimit', 'tokensPerMinute'], 'int'],
  ['LESTRADE_MAX_RESULT_TOKENS', ['tools', 'maxResultTokens'], 'int'],
  ['LESTRADE_CONCURRENCY', ['queue', 'concurrency'], 'int'],
  ['LESTRADE_SHUTDOWN_TIMEOUT_SECONDS', ['queue', 'shutdownTimeoutSeconds'], 'int'],
  ['LESTRADE_APPROVAL_TIMEOUT_SECONDS', ['approvals', 'timeoutSeconds'], 'int'],
  ['LESTRADE_MAX_INVESTIGATIONS_PER_HOUR', ['budgets', 'investigationsPerHour'], 'int'],
  ['LESTRADE_MAX_TOKENS_PER_DAY', ['budgets', 'tokensPerDay'], 'int'],
  ['LESTRADE_SKIP_RESOLVED_WHILE_QUEUED', ['intake', 'skipResolvedWhileQueued'], 'boolean'],
  ['LESTRADE_PUBLIC_URL', ['server', 'publicUrl'], 'string'],
  ['LESTRADE_TEMPLATES_DIR', ['templatesDir'], 'string'],
  ['LOG_LEVEL', ['log', 'level'], 'string'],
  ['LESTRADE_LOG_FORMAT', ['log', 'format'], 'string'],
];

/**
 * The one place configuration is read and validated. Takes `env` as a parameter
 * (tests pass their own) and an optional YAML file; errors name the key and the reason.
 */
export function loadConfig(
  env: Env,
  configPath = env.LESTRADE_CONFIG,
  sources: readonly SourceConfigSpec[] = [],
  destinations: readonly SourceConfigSpec[] = [],
  toolsets: readonly ToolsetConfigSpec[] = [],
): Config {
  const tree = configPath ? readYamlFile(configPath) : {};
  const bindings = [
    ...ENV_MAP,
    ...sources.flatMap((s) => s.env.map(([v, path, t]): EnvBinding => [v, ['sources', s.name, ...path], t])),
    ...destinations.flatMap((d) => d.env.map(([v, path, t]): EnvBinding => [v, ['destinations', d.name, ...path], t])),
    ...toolsets.flatMap(toolsetBindings),
  ];
  for (const [name, path, type] of bindings) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(tree, path, coerce(name, value, type));
  }
  for (const t of toolsets) t.prepare?.(getPath(tree, toolsetConfigPath(t)), env, configPath);
  const parsed = buildConfigSchema(sources, destinations, toolsets).safeParse(tree);
  if (!parsed.success) {
    // Each issue names the variable that set the value, else the file and key (env wins over the file).
    const issues = describeConfigIssues(parsed.error.issues, envOrigins(bindings, env), configPath);
    throw new ConfigError(`invalid configuration: ${issues}`);
  }
  return parsed.data as Config;
}

/** A toolset's variables, at their place in the tree: its settings, and its switches in `toolsets.settings.<name>`. */
function toolsetBindings(t: ToolsetConfigSpec): EnvBinding[] {
  const at = toolsetConfigPath(t);
  return [
    ...(t.env ?? []).map(([v, path, type]): EnvBinding => [v, [...at, ...path], type]),
    ...(t.settingsEnv ?? []).map(([v, path, type]): EnvBinding => [v, ['toolsets', 'settings', t.name, ...path], type]),
  ];
}

function readYamlFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError(`config file ${path}: (root): expected a mapping`);
  return doc as Record<string, unknown>;
}

function coerce(name: string, value: string, type: EnvBinding[2]): unknown {
  if (type === 'string') return value;
  if (type === 'list')
    return value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  if (type === 'boolean') {
    if (/^(true|1|yes|on)$/i.test(value)) return true;
    if (/^(false|0|no|off)$/i.test(value)) return false;
    throw new ConfigError(`invalid configuration (environment): ${name}: expected true or false, got "${value}"`);
  }
  const n = Number(value);
  if (!Number.isFinite(n) || (type === 'int' && !Number.isInteger(n))) {
    throw new ConfigError(
      `invalid configuration (environment): ${name}: expected ${type === 'int' ? 'an integer' : 'a number'}, got "${value}"`,
    );
  }
  return n;
}

function setPath(tree: Record<string, unknown>, path: string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
}

function getPath(tree: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = tree;
  for (const key of path) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}
