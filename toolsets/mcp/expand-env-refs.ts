import { ConfigError } from '../../src/errors.js';

type Env = Record<string, string | undefined>;

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Fills `${VAR}` in the values of `mcp.servers[].headers` and `.env` from the environment, before
 * validation, so the redactor built from the config knows the real values. A variable that is not
 * set is an error naming it and the key; `$${VAR}` would be a literal nowhere else, so no escape.
 */
export function expandMcpEnvRefs(mcp: unknown, env: Env, configPath?: string): void {
  const servers = (mcp as { servers?: unknown } | undefined)?.servers;
  if (!Array.isArray(servers)) return;
  servers.forEach((server: unknown, i) => {
    if (!server || typeof server !== 'object') return;
    for (const field of ['headers', 'env'] as const) {
      const map = (server as Record<string, unknown>)[field];
      if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
      for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
        if (typeof value !== 'string') continue;
        (map as Record<string, unknown>)[key] = value.replace(REF, (_all, name: string) => {
          const v = env[name];
          if (v === undefined || v === '')
            throw new ConfigError(
              `invalid configuration${configPath ? ` (${configPath})` : ''}: mcp.servers.${i}.${field}.${key}: ` +
                `environment variable ${name} is not set`,
            );
          return v;
        });
      }
    }
  });
}
