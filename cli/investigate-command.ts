import { writeFileSync } from 'node:fs';
import type { Config } from '../src/config/schema.js';
import { ConfigError } from '../src/errors.js';
import type { Issue } from '../src/issue.js';
import { isLlmConfigured } from '../src/llm/create-client.js';
import { toToolCallRecord } from '../src/store/investigation.js';
import { AlertmanagerSource } from '../sources/alertmanager/alertmanager-source.js';
import { buildInvestigator } from './build-investigator.js';

export interface InvestigateAlertmanagerOptions {
  alertmanagerUrl: string;
  label: string[];
  alertname?: string;
  limit?: number;
  jsonOutputFile?: string;
}

/** `lestrade investigate alertmanager`: fetch active alerts, investigate each, print the RCAs. */
export async function investigateAlertmanager(config: Config, env: Record<string, string | undefined>, opts: InvestigateAlertmanagerOptions, out: (s: string) => void): Promise<void> {
  if (!isLlmConfigured(config.llm)) throw new ConfigError('no LLM configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)');
  const labels = Object.fromEntries(opts.label.map(parseLabel));
  const titlePattern = opts.alertname ? new RegExp(opts.alertname) : undefined;
  const source = new AlertmanagerSource(opts.alertmanagerUrl);
  const issues = await source.fetchIssues({ labels, titlePattern, limit: opts.limit });
  out(`Found ${issues.length} active alert${issues.length === 1 ? '' : 's'} to investigate.\n`);
  const { investigator } = await buildInvestigator(config, env);
  const results: unknown[] = [];
  for (const issue of issues) {
    const result = await investigator.investigate(issue);
    out(`\n# ${issue.title}\n\n${result.answer}\n`);
    results.push(report(issue, result.answer, result.state));
  }
  if (opts.jsonOutputFile) writeFileSync(opts.jsonOutputFile, `${JSON.stringify(results, null, 2)}\n`);
}

function report(issue: Issue, rca: string, state: { toolCalls: Parameters<typeof toToolCallRecord>[0][]; usage: unknown }) {
  const { raw: _raw, ...rest } = issue;
  return { issue: rest, rca, toolCalls: state.toolCalls.map(toToolCallRecord), usage: state.usage };
}

function parseLabel(pair: string): [string, string] {
  const i = pair.indexOf('=');
  if (i <= 0) throw new ConfigError(`--label ${pair}: expected key=value`);
  return [pair.slice(0, i), pair.slice(i + 1)];
}
