import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config/schema.js';
import { toolsetConfig } from '../src/config/toolset-config.js';
import type { Toolset, ToolsetStatus } from '../src/tools/types.js';
import { loadYamlToolsets } from '../src/tools/toolset-registry.js';
import { createLogger, type Logger } from '../src/log.js';
import type { ToolsetRegistration } from '../src/registration/toolset.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';
import { alertmanagerToolset } from './alertmanager/registration.js';
import { bashToolset } from './bash/registration.js';
import { githubChangesToolset } from './github-changes/registration.js';
import { kubernetesChangesToolset } from './kubernetes-changes/registration.js';
import { kubernetesOverInstances } from './kubernetes/index.js';
import { kubernetesToolset } from './kubernetes/registration.js';
import { kubernetesRemediationToolset } from './kubernetes-remediation/registration.js';
import { lokiToolset } from './loki/registration.js';
import { mcpToolsets } from './mcp/registration.js';
import { prometheusToolset } from './prometheus/registration.js';
import { runbooksToolset } from './runbooks/registration.js';
import type { RunbooksSettings } from './runbooks/config.js';

/** The folder of YAML toolsets shipped with Lestrade (kubernetes, ...). */
export const BUILTIN_YAML_DIR = fileURLToPath(new URL('.', import.meta.url));

/** What a built-in toolset is handed besides its settings. */
export interface BuiltinToolsetDeps {
  runbooks: RunbookCatalog;
  log: Logger;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds toolsets of every settings type
export type AnyToolset = ToolsetRegistration<any, Toolset, BuiltinToolsetDeps>;

/** Every toolset written in TypeScript, in the order they are offered. A new one is its folder and one line here. */
export const toolsets: readonly AnyToolset[] = [
  prometheusToolset,
  alertmanagerToolset,
  lokiToolset,
  kubernetesToolset,
  kubernetesChangesToolset,
  kubernetesRemediationToolset,
  githubChangesToolset,
  bashToolset,
  runbooksToolset,
  mcpToolsets,
];

/** The runbooks' settings (`runbooks`): the folders the catalog is loaded from, and what fetch_runbook reads. */
export function runbooksConfig(config: Config): RunbooksSettings {
  return toolsetConfig(config, runbooksToolset);
}

/** Toolsets written in TypeScript, built from configuration, and one per MCP server (`mcp.servers`). */
export function builtinToolsets(
  config: Config,
  runbooks: RunbookCatalog = RunbookCatalog.load(runbooksConfig(config).dirs),
  log: Logger = createLogger('silent'),
): Toolset[] {
  return toolsets.flatMap((t) => t.create(toolsetConfig(config, t), { runbooks, log }));
}

/**
 * The YAML toolsets: the shipped ones (kubernetes, over its configured instances: `toolsets.kubernetes`) and those in
 * `toolsets.dirs`; a file that fails to load is reported in `failures`.
 */
export function yamlToolsets(
  config: Config,
  env: Record<string, string | undefined>,
): { toolsets: Toolset[]; failures: ToolsetStatus[] } {
  const loaded = loadYamlToolsets([BUILTIN_YAML_DIR, ...config.toolsets.dirs], env);
  const kubernetes = toolsetConfig(config, kubernetesToolset);
  const shipped = (ts: Toolset) => ts.name === 'kubernetes' && ts.origin.startsWith(BUILTIN_YAML_DIR);
  return {
    ...loaded,
    toolsets: loaded.toolsets.map((ts) => (shipped(ts) ? kubernetesOverInstances(ts, kubernetes, env) : ts)),
  };
}
