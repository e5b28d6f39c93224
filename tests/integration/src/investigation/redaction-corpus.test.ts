import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RedactionConfigSchema, redactionRules } from '../../../../src/config/redaction-schema.js';
import { Investigator } from '../../../../src/investigation/investigator.js';
import type { Issue } from '../../../../src/issue.js';
import { PromptRenderer } from '../../../../src/prompts/prompt-renderer.js';
import type { SimilarPast } from '../../../../src/records/past-incident.js';
import type { Runbook } from '../../../../src/runbooks/runbook.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import { anAlert, anIssue } from '../../../helpers/issue.js';
import { startScriptedLlm, type ChatRequest, type Script, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

/**
 * The redaction corpus (tests/fixtures/redaction/corpus.json): private values planted in alerts, tickets, tool
 * outputs, runbooks, past incidents and a follow-up question. Each case runs through the Investigator (the real
 * prompts, loop and executor) against the scripted model, which relies on placeholders as a model would: it calls
 * the tool with the host's placeholder. Every request body the model server received is searched for every
 * planted value: none may be there, and the tool must still have been called with the real host.
 */
interface CorpusCase {
  name: string;
  issue: Partial<Issue> & { source: string };
  host: string;
  toolOutput: string;
  planted: string[];
  similar?: Array<{ title: string; rootCause: string }>;
  runbook?: { title: string; description: string };
  question?: string;
  patterns?: Array<{ name: string; regex: string }>;
}

const corpus = JSON.parse(
  readFileSync(new URL('../../../fixtures/redaction/corpus.json', import.meta.url), 'utf8'),
) as { cases: CorpusCase[] };

/** The stand-in model: calls inspect_host with the first IP placeholder of the prompt, then answers with placeholders. */
const standIn: Script = (req: ChatRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === 'tool') {
    const call = req.messages.at(-2)?.tool_calls?.[0]?.function.arguments ?? '{}';
    const seen = (JSON.parse(call) as { host?: string }).host ?? '<none>';
    return { content: `## Root cause\nThe host ${seen} is out of resources.\n\n## Evidence\ninspect_host ${seen}.` };
  }
  if (last.role === 'user' && last.content?.startsWith('Follow-up')) return { content: 'Yes: see above.' };
  const prompt = req.messages.map((m) => m.content ?? '').join('\n');
  const host = /<ip-\d+>/.exec(prompt)?.[0] ?? 'no-placeholder-found';
  return { toolCalls: [{ name: 'inspect_host', arguments: { host } }] };
};

function issueOf(c: CorpusCase): Issue {
  const { source, ...over } = c.issue;
  return source === 'alertmanager' ? anAlert(c.name, { ...over }) : anIssue(c.name, { source, ...over });
}

function similarOf(c: CorpusCase): SimilarPast[] {
  return (c.similar ?? []).map((s, i) => ({
    id: `past-${i}`,
    at: '2026-11-01T00:00:00.000Z',
    score: 0.9,
    verdict: 'correct',
    rootCauseBy: 'rca',
    sameFingerprint: false,
    ...s,
  }));
}

function runbooksOf(c: CorpusCase): { matching(): Runbook[] } {
  const runbooks = c.runbook ? [{ id: 'db/disk', file: 'db/disk.md', matchers: [], body: '', ...c.runbook }] : [];
  return { matching: () => runbooks };
}

/** Where a planted value is found in the requests: as written, or JSON-escaped. */
function found(requests: ChatRequest[], value: string): boolean {
  const sent = JSON.stringify(requests);
  return sent.includes(value) || sent.includes(JSON.stringify(value).slice(1, -1));
}

let llm: ScriptedLlm;
beforeAll(async () => {
  llm = await startScriptedLlm(standIn);
});
afterAll(async () => {
  await llm?.close();
});

describe('the redaction corpus', () => {
  const tally = { planted: 0, found: 0, requests: 0 };

  it.each(corpus.cases)('$name: no planted value reaches the model, and the case completes', async (c) => {
    const { hosts, requests, first, result } = await runCase(c, true);
    const leaked = c.planted.filter((v) => found(requests, v));
    tally.planted += c.planted.length;
    tally.found += leaked.length;
    tally.requests += requests.length;
    expect(leaked).toEqual([]);
    // The stand-in model relied on a placeholder, and the tool got the real value.
    expect(hosts).toEqual([c.host]);
    expect(first.finishReason).toBe('answer');
    const placeholder = /^## Root cause\nThe host (<ip-\d+>) is out of resources/.exec(first.answer)?.[1];
    expect(result.state.redaction!.placeholders[placeholder!]).toBe(c.host);
    // Each planted value has its placeholder (none was let through some other way).
    const values = new Set(Object.values(result.state.redaction!.placeholders));
    expect(c.planted.filter((v) => !values.has(v))).toEqual([]);
  });

  it('finds every planted value in the requests when redaction is off (the count can fail)', async () => {
    const c = corpus.cases[0]!;
    const { requests } = await runCase({ ...c, host: 'no-placeholder-found' }, false);
    expect(c.planted.filter((v) => !found(requests, v))).toEqual([]);
  });

  it('reaches the model 0 times over the whole corpus', () => {
    // The figure docs/security.md quotes.
    console.log(`redaction corpus: ${tally.planted} planted values, ${tally.requests} requests, ${tally.found} found`);
    expect(tally.planted).toBeGreaterThan(25);
    expect(tally.found).toBe(0);
  });
});

/** One case through the Investigator (and its follow-up question), with redaction on or off. */
async function runCase(c: CorpusCase, redact: boolean) {
  const hosts: string[] = [];
  const tool: Tool = {
    name: 'inspect_host',
    description: 'what a host is doing',
    params: z.strictObject({ host: z.string() }),
    run: async (p) => {
      hosts.push(p.host as string);
      return p.host === c.host
        ? { status: 'success', data: c.toolOutput }
        : { status: 'error', error: `unknown host ${p.host as string}` };
    },
  };
  const investigator = new Investigator({
    client: new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 }),
    llm: { model: 'scripted', maxSteps: 6, maxParallelTools: 2, toolCallFormat: 'auto' } as never,
    executor: new ToolExecutor({ tools: [tool] }),
    prompts: new PromptRenderer(),
    toolsets: () => ({ toolsets: [{ name: 'hosts', description: 'host tools' }], unavailable: [] }),
    runbooks: runbooksOf(c),
    redaction: redact ? redactionRules(RedactionConfigSchema.parse({ patterns: c.patterns ?? [] })) : null,
  });
  const before = llm.requests.length;
  const first = await investigator.investigate(issueOf(c), { similar: similarOf(c) });
  const result = c.question ? await investigator.followUp(first.state, c.question, 0) : first;
  const requests = llm.requests.slice(before);

  return { hosts, requests, first, result };
}
