import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config/schema.js';
import type { Toolset } from '../src/tools/types.js';
import { createLogger, type Logger } from '../src/log.js';
import { createAlertmanagerToolset } from './alertmanager/index.js';
import { createBashToolset } from './bash/index.js';
import { createMcpToolsets } from './mcp/index.js';
import { createGithubChangesToolset } from './github-changes/index.js';
import { createKubernetesChangesToolset } from './kubernetes-changes/index.js';
import { createLokiToolset } from './loki/index.js';
import { createPrometheusToolset } from './prometheus/index.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';
import { createRunbookToolset } from './runbooks/index.js';

/** The folder of YAML toolsets shipped with Lestrade (kubernetes, ...). */
export const BUILTIN_YAML_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Toolsets written in TypeScript, built from configuration, and one per MCP server (`mcp.servers`). */
export function builtinToolsets(
  config: Config,
  runbooks: RunbookCatalog = RunbookCatalog.load(config.runbooks.dirs),
  log: Logger = createLogger('silent'),
): Toolset[] {
  const { allowedHosts, maxBytes, timeoutSeconds, cacheSeconds } = config.runbooks;
  return [
    createPrometheusToolset(config.toolsets.prometheus),
    createAlertmanagerToolset(config.toolsets.alertmanager),
    createLokiToolset(config.toolsets.loki),
    createKubernetesChangesToolset(),
    createGithubChangesToolset(config.toolsets.github_changes),
    createBashToolset(config.toolsets.bash),
    createRunbookToolset(runbooks, { allowedHosts, maxBytes, timeoutMs: timeoutSeconds * 1000, cacheSeconds }),
    ...createMcpToolsets(config.mcp.servers, { log }),
  ];
}
