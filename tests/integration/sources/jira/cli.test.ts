import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../../../sources/jira/text-of.js';
import { startJiraDouble, type JiraDouble } from '../../../helpers/doubles/jira-double.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { runCli } from '../../../helpers/run-cli.js';

const run = runCli;

let jira: JiraDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;

beforeAll(async () => {
  jira = await startJiraDouble({ deployment: 'cloud' });
  jira.addIssue({ key: 'OPS-7', summary: 'Checkout API returns 502', priority: 'Highest' });
  jira.addIssue({ key: 'OPS-8', summary: 'Disk full on db-2', priority: 'Low' });
  jira.addIssue({ key: 'SEC-1', summary: 'not asked for' });
  llm = await startScriptedLlm((req) => ({
    content: `## Root cause\nRun ${llm.requests.length} looked at ${/OPS-\d+/.exec(req.messages[1]!.content!)?.[0]}.`,
  }));
  env = {
    OPENAI_API_KEY: 'sk-cli',
    OPENAI_BASE_URL: llm.baseUrl,
    JIRA_URL: jira.url,
    JIRA_DEPLOYMENT: 'cloud',
    JIRA_EMAIL: 'lestrade@example.com',
    JIRA_API_TOKEN: 'test-api-token',
    // --update writes only to issues of configured projects (cli-trust.test.ts).
    LESTRADE_CONFIG: configFile('sources: { jira: { triggers: { projects: [OPS] } } }\n'),
  };
}, 60_000);

function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lestrade-jira-cli-')), 'lestrade.yaml');
  writeFileSync(path, yaml);
  return path;
}
afterAll(async () => {
  await llm?.close();
  await jira?.close();
});

describe('lestrade investigate jira', () => {
  it('--update writes one comment per issue; a second run edits it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-jira-cli-')), 'rca.json');
    const first = await run(
      [
        'investigate',
        'jira',
        '--jql',
        'project = OPS ORDER BY key ASC',
        '-n',
        '1',
        '--update',
        '--json-output-file',
        out,
      ],
      env,
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Found 1 issue to investigate.');
    expect(first.stdout).toContain('# Checkout API returns 502');
    expect(first.stdout).toMatch(
      new RegExp(`Posted comment on OPS-7: ${jira.url}/browse/OPS-7\\?focusedCommentId=\\d+`),
    );
    expect(jira.state.comments('OPS-7')).toHaveLength(1);
    expect(jira.state.comments('OPS-8')).toHaveLength(0);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json).toEqual([
      expect.objectContaining({
        issue: expect.objectContaining({ identity: 'OPS-7', severity: 'critical' }),
        writeBack: { action: 'created', commentId: jira.state.comments('OPS-7')[0]!.id, url: expect.any(String) },
      }),
    ]);

    const second = await run(['investigate', 'jira', '--jql', 'project = OPS ORDER BY key ASC', '--update'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Found 2 issues to investigate.');
    expect(second.stdout).toContain('Updated comment on OPS-7');
    expect(second.stdout).toContain('Posted comment on OPS-8');
    const comments = jira.state.comments('OPS-7');
    expect(comments).toHaveLength(1);
    expect(textOf(comments[0]!.body)).toMatch(/Run 2 looked at OPS-7/);
    expect(jira.state.comments('OPS-8')).toHaveLength(1);
    expect(jira.violations).toEqual([]);
  }, 60_000);

  it('without --jql, or without credentials, says what is missing (exit 2)', async () => {
    const noJql = await run(['investigate', 'jira'], env);
    expect(noJql.code).toBe(2);
    expect(noJql.stderr).toMatch(/--jql is required/);
    const off = await run(['investigate', 'jira', '--jql', 'project = OPS'], { ...env, JIRA_API_TOKEN: '' });
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/source jira is off: no JIRA_EMAIL \+ JIRA_API_TOKEN for Jira Cloud/);
  }, 30_000);
});
