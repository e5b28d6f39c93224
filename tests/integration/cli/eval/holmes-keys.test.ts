/**
 * HolmesGPT's case keys and files change what the model is offered and asked, as in HolmesGPT (issue 36):
 * toolsets.yaml (their names mapped to ours; off means off), include_files and runbooks attached, mocked_date as
 * now, a question asked as a question, issue_data.json and resource_instructions.json in the prompt, and a
 * folder that needs a live cluster skipped with that reason.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCases, NEEDS_CLUSTER } from '../../../../cli/eval/eval-case.js';
import { evalCommand } from '../../../../cli/eval/eval-command.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { destinations } from '../../../../destinations/index.js';
import { sources } from '../../../../sources/index.js';
import { startScriptedLlm, type ChatRequest, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const FIXTURES = new URL('../../../fixtures/eval-cases', import.meta.url).pathname;
let llm: ScriptedLlm | undefined;

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

/** Runs one case folder with a model that answers at once; returns the first request it got, and the output. */
async function firstRequest(folder: string): Promise<{ req: ChatRequest; out: string }> {
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nbad-config' }));
  const config = loadConfig(
    { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'test', LESTRADE_MODEL: 'scripted' },
    undefined,
    sources,
    destinations,
  );
  let out = '';
  await evalCommand([folder], { judge: 'contains' }, config, { out: (s) => (out += s), env: {} });
  return { req: llm.requests[0]!, out };
}

/** Whether the investigate case passes with a model answering this, and why not. */
async function passed(answer: string): Promise<[boolean, string[]]> {
  await llm?.close();
  llm = await startScriptedLlm(() => ({ content: answer }));
  const config = loadConfig(
    { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'test', LESTRADE_MODEL: 'scripted' },
    undefined,
    sources,
    destinations,
  );
  const json = join(mkdtempSync(join(tmpdir(), 'lestrade-sections-')), 'r.json');
  await evalCommand([join(FIXTURES, 'holmes-investigate')], { judge: 'contains', json }, config, {
    out: () => undefined,
    env: {},
  });
  const [r] = (JSON.parse(readFileSync(json, 'utf8')) as { results: CaseResult[] }).results;
  return [r!.passed, r!.reasons];
}

const offered = (req: ChatRequest) => (req.tools ?? []).map((t) => t.function.name);

describe('a HolmesGPT case folder', () => {
  it('offers what toolsets.yaml leaves on: their kubernetes/logs off takes our kubectl_logs away', async () => {
    const { req } = await firstRequest(join(FIXTURES, 'holmes-keys'));
    expect(offered(req)).toContain('kubectl_describe');
    expect(offered(req)).not.toContain('kubectl_logs');
    // A recorded tool of a toolset the case switched off is not offered either; prometheus/metrics is ours.
    expect(offered(req)).not.toContain('kubectl_lineage_children');
    expect(offered(req).some((n) => n.startsWith('prometheus_'))).toBe(false);
  });

  it('asks the question as a question, at the mocked date, with the attached file, runbook and earlier conversation', async () => {
    const { req } = await firstRequest(join(FIXTURES, 'holmes-keys'));
    const [system, user] = [String(req.messages[0]!.content), String(req.messages[1]!.content)];
    expect(system).toContain('The time now is 2025-06-23T11:34:00Z.');
    expect(user.startsWith("Answer the on-call engineer's question below")).toBe(true);
    expect(user).not.toContain('Investigate this question issue');
    expect(user).toContain('Question:\nWhy does the checkout pod keep restarting?');
    expect(user).toContain('Attached file notes.md:\nThe checkout team changed its config map on Friday.');
    expect(user).toContain(
      'Earlier in this conversation (conversation_history):\nuser: Is the checkout deployment healthy?\n\nassistant: It has restarted 5 times in the last hour.',
    );
    expect(user).not.toContain("HolmesGPT's own system prompt");
    expect(user).toContain(
      'Runbook checkout_runbook.md (Checkout restarts: what to check when checkout restarts):\nCheck the config map checkout-config first.',
    );
  });

  it("puts issue_data.json and resource_instructions.json in an investigation's prompt, as HolmesGPT words them", async () => {
    const { req } = await firstRequest(join(FIXTURES, 'holmes-investigate'));
    const user = String(req.messages[1]!.content);
    expect(user.startsWith('Investigate this prometheus issue')).toBe(true);
    expect(user).toContain(
      'Context from the issue (issue_data.json):\n{"id": "issue-1", "finding": "the container exited with 137"}',
    );
    expect(user).toContain(
      'Instructions to check for this resource:\n* Check the memory limit of the pod\n* fetch information from this URL: https://runbooks.example.com/oom',
    );
  });

  it("asks for the request's own sections and scores expected_sections as HolmesGPT's runner asserts them", async () => {
    const { req } = await firstRequest(join(FIXTURES, 'holmes-investigate'));
    const user = String(req.messages[1]!.content);
    expect(user).toContain(
      '## Alert Explanation\n1-2 sentences explaining the alert\n## Related logs\nthe most relevant log lines',
    );
    expect(user).not.toContain('## Key findings');
    const [c] = findCases([join(FIXTURES, 'holmes-investigate')]);
    expect(c!.expectedSections).toEqual({ 'Related logs': ['exit code 137'], 'Next Steps': false });
    expect(await passed('## Alert Explanation\nOOMKilled\n## Related logs\n```\nexit code 137\n```')).toEqual([
      true,
      [],
    ]);
    expect(await passed('## Alert Explanation\nOOMKilled, exit code 137')).toEqual([
      false,
      ['missing section: Related logs'],
    ]);
    expect(await passed('OOMKilled\n## Related logs\nnothing')).toEqual([
      false,
      ['missing in section Related logs: exit code 137'],
    ]);
  });

  it('skips a folder whose before_test sets up a live cluster and which records no output, never scoring it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-live-'));
    writeFileSync(
      join(dir, 'test_case.yaml'),
      "user_prompt: 'How many pods?'\nexpected_output: ['3']\nbefore_test: kubectl apply -f ./manifest.yaml\n",
    );
    expect(findCases([dir])[0]!.skip).toBe(NEEDS_CLUSTER);
    llm = await startScriptedLlm(() => ({ content: 'x' }));
    const config = loadConfig(
      { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'test', LESTRADE_MODEL: 'scripted' },
      undefined,
      sources,
      destinations,
    );
    let out = '';
    const code = await evalCommand([dir], { judge: 'contains', minPass: 100 }, config, {
      out: (s) => (out += s),
      env: {},
    });
    expect(out).toContain(`skipped ${dir.split('/').at(-1)}: ${NEEDS_CLUSTER}`);
    expect(llm.requests).toHaveLength(0);
    expect(code).toBe(0);
  });
});
