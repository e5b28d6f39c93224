import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../../../helpers/doubles/jira-state.js';
import { startJiraDouble, type JiraDouble } from '../../../helpers/doubles/jira-double.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { runCli } from '../../../helpers/run-cli.js';

/** `lestrade investigate jira --update` writes only where the webhooks would have acted. */
let jira: JiraDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;

const alice = makeUser('Alice', 'alice@example.com', 'acc-alice');
const eve = makeUser('Eve', 'eve@example.com', 'acc-eve');

beforeAll(async () => {
  jira = await startJiraDouble({ deployment: 'cloud' });
  jira.state.setGroups(alice.accountId, ['sre']);
  jira.addIssue({ key: 'OPS-1', summary: 'labelled by a trusted reporter', labels: ['lestrade'], reporter: alice });
  jira.addIssue({ key: 'OPS-2', summary: 'labelled by a stranger', labels: ['lestrade'], reporter: eve });
  jira.addIssue({ key: 'OPS-3', summary: 'asked by a trusted account', reporter: eve });
  jira.addComment({ issueKey: 'OPS-3', body: '/lestrade investigate', author: alice });
  jira.addIssue({ key: 'OPS-4', summary: 'asked by a stranger', reporter: eve });
  jira.addComment({ issueKey: 'OPS-4', body: '/lestrade investigate', author: eve });
  jira.addIssue({ key: 'SEC-1', summary: 'another project', labels: ['lestrade'], reporter: alice });
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nthe disk' }));
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-jira-trust-'));
  const config = join(dir, 'lestrade.yaml');
  writeFileSync(
    config,
    'sources: { jira: { triggers: { projects: [OPS], onCreate: false }, trusted: { groups: [sre] } } }\n',
  );
  env = {
    OPENAI_API_KEY: 'sk-cli',
    OPENAI_BASE_URL: llm.baseUrl,
    JIRA_URL: jira.url,
    JIRA_DEPLOYMENT: 'cloud',
    JIRA_EMAIL: 'lestrade@example.com',
    JIRA_API_TOKEN: 'test-api-token',
    LESTRADE_CONFIG: config,
  };
}, 60_000);
afterAll(async () => {
  await llm?.close();
  await jira?.close();
});

/** Lestrade's comments: by neither Alice nor Eve. */
const ourComments = (key: string) =>
  jira.state.comments(key).filter((c) => ![alice.accountId, eve.accountId].includes(c.author.accountId));

describe('lestrade investigate jira --update', () => {
  it('writes to configured projects only, where a trusted account labelled or asked', async () => {
    const jql = ['--jql', 'project in (OPS, SEC) ORDER BY key ASC'];
    const dry = await runCli(['investigate', 'jira', ...jql, '--update', '--dry-run'], env);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Would write the RCA to 2 issues: OPS-1, OPS-3$/m);
    expect(dry.stdout).toMatch(/^ {2}SEC-1: SEC-1: project SEC is not in sources\.jira\.triggers\.projects$/m);
    expect(dry.stdout).toMatch(/^ {2}OPS-2: .*no account of sources\.jira\.trusted wrote \/lestrade investigate/m);
    expect(dry.stdout).toMatch(/^ {2}OPS-4: /m);
    expect(['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4', 'SEC-1'].flatMap(ourComments)).toEqual([]);

    const run = await runCli(['investigate', 'jira', ...jql, '--update'], env);
    expect(run.code).toBe(0);
    expect(['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4', 'SEC-1'].map((k) => ourComments(k).length)).toEqual([1, 0, 1, 0, 0]);
  }, 120_000);
});
