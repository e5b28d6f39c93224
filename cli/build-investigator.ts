import type { Config } from '../src/config/schema.js';
import { ContextBudget } from '../src/context/context-budget.js';
import { modelProfile } from '../src/context/model-family.js';
import { TokenCounter } from '../src/context/token-counter.js';
import { Investigator } from '../src/investigation/investigator.js';
import { createLlmClient } from '../src/llm/create-client.js';
import { PromptRenderer } from '../src/prompts/prompt-renderer.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { createLogger, type Logger } from '../src/log.js';
import type { Metrics } from '../src/observability/metrics.js';
import type { LlmRateLimiter } from '../src/llm/rate-limiter.js';
import { resolveToolsets, type ResolvedToolsets } from '../src/tools/toolset-registry.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { redactionRules } from '../src/config/redaction-schema.js';
import { toolsetsForPrompt } from '../src/tools/toolsets-for-prompt.js';
import { builtinToolsets, runbooksConfig, yamlToolsets } from '../toolsets/index.js';

type Env = Record<string, string | undefined>;

/**
 * Every toolset Lestrade knows of (built-in, MCP servers, shipped YAML, the user's YAML), each checked.
 * The caller closes the result (MCP connections and stdio servers live until then).
 */
export async function buildToolsets(
  config: Config,
  env: Env,
  runbooks = RunbookCatalog.load(runbooksConfig(config).dirs),
  log: Logger = createLogger('silent'),
): Promise<ResolvedToolsets> {
  const yaml = yamlToolsets(config, env);
  const builtin = builtinToolsets(config, runbooks, log);
  return resolveToolsets([...builtin, ...yaml.toolsets], config.toolsets.settings, env, yaml.failures, log);
}

export async function buildInvestigator(
  config: Config,
  env: Env,
  metrics?: Metrics,
  limits: { limiter?: LlmRateLimiter; log?: Logger } = {},
): Promise<{ investigator: Investigator; toolsets: ResolvedToolsets; runbooks: RunbookCatalog }> {
  const runbooks = RunbookCatalog.load(runbooksConfig(config).dirs);
  const toolsets = await buildToolsets(config, env, runbooks, limits.log);
  // Reasons quote URLs and command output: the prompt gets them as `lestrade toolsets list` prints them.
  const redact = redactorFromConfig(config);
  const investigator = new Investigator({
    client: createLlmClient(config.llm, { limiterHandles429: Boolean(limits.limiter) }),
    llm: config.llm,
    executor: new ToolExecutor({
      tools: toolsets.currentTools,
      maxOutputChars: config.tools.maxOutputChars,
      timeoutMs: config.tools.timeoutMs,
      approvalRequired: toolsets.approvalRequired,
      metrics,
      toolsetOf: toolsets.toolsetOf,
    }),
    prompts: new PromptRenderer(config.templatesDir),
    toolsets: () => toolsetsForPrompt(toolsets.enabled, toolsets.statusesNow(), config.toolsets.settings, redact),
    budget: await contextBudget(config),
    metrics,
    runbooks,
    redaction: redactionRules(config.redaction),
    ...limits,
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
