import type { Config } from '../src/config/schema.js';
import { ContextBudget } from '../src/context/context-budget.js';
import { modelProfile } from '../src/context/model-family.js';
import { TokenCounter } from '../src/context/token-counter.js';
import { Investigator } from '../src/investigation/investigator.js';
import { createLlmClient } from '../src/llm/create-client.js';
import { PromptRenderer } from '../src/prompts/prompt-renderer.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import type { Metrics } from '../src/observability/metrics.js';
import { loadYamlToolsets, resolveToolsets, type ResolvedToolsets } from '../src/tools/toolset-registry.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';
import { BUILTIN_YAML_DIR, builtinToolsets } from '../toolsets/index.js';

type Env = Record<string, string | undefined>;

/** Every toolset Lestrade knows of (built-in, shipped YAML, the user's YAML), each checked. */
export async function buildToolsets(
  config: Config,
  env: Env,
  runbooks = RunbookCatalog.load(config.runbooks.dirs),
): Promise<ResolvedToolsets> {
  const yaml = loadYamlToolsets([BUILTIN_YAML_DIR, ...config.toolsets.dirs], env);
  const builtin = builtinToolsets(config, runbooks);
  return resolveToolsets([...builtin, ...yaml.toolsets], config.toolsets.settings, env, yaml.failures);
}

export async function buildInvestigator(
  config: Config,
  env: Env,
  metrics?: Metrics,
): Promise<{ investigator: Investigator; toolsets: ResolvedToolsets; runbooks: RunbookCatalog }> {
  const runbooks = RunbookCatalog.load(config.runbooks.dirs);
  const toolsets = await buildToolsets(config, env, runbooks);
  const toolsetOf = new Map(toolsets.enabled.flatMap((ts) => ts.tools.map((t) => [t.name, ts.name] as const)));
  const investigator = new Investigator({
    client: createLlmClient(config.llm),
    llm: config.llm,
    executor: new ToolExecutor({
      tools: toolsets.tools,
      maxOutputChars: config.tools.maxOutputChars,
      timeoutMs: config.tools.timeoutMs,
      approvalRequired: toolsets.approvalRequired,
      metrics,
      toolsetOf,
    }),
    prompts: new PromptRenderer(config.templatesDir),
    toolsets: toolsets.enabled.map((t) => ({ name: t.name, description: t.description })),
    budget: await contextBudget(config),
    metrics,
    runbooks,
  });
  return { investigator, toolsets, runbooks };
}

/** The model's window (configured, else its family's) counted with its family's tiktoken encoding. */
export async function contextBudget(config: Config): Promise<ContextBudget> {
  const profile = modelProfile(config.llm.model);
  return new ContextBudget(await TokenCounter.load(profile.encoding), {
    windowTokens: config.llm.contextWindow ?? profile.windowTokens,
    compactAt: config.llm.compactAt,
    maxResultTokens: config.tools.maxResultTokens,
  });
}
