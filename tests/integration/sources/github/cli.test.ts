import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADING } from '../../../../src/render/compose-comment.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { BOT, seededDouble } from '../../../fixtures/github/double-setup.js';
import { runCli } from '../../../helpers/run-cli.js';

const run = runCli;

let gh: GithubDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;

beforeAll(async () => {
  gh = await seededDouble();
  gh.addRepo({ owner: 'o', name: 'r', private: true });
  gh.addIssue({ owner: 'o', repo: 'r', number: 7, title: 'Checkout latency', labels: ['lestrade', 'P1'] });
  gh.addIssue({ owner: 'o', repo: 'r', number: 8, title: 'Old one', state: 'closed' });
  llm = await startScriptedLlm((_req, call) => ({ content: `## Root cause\nRun ${call + 1}: the cache is cold.` }));
  env = { OPENAI_API_KEY: 'sk-cli', OPENAI_BASE_URL: llm.baseUrl, GITHUB_TOKEN: gh.token, GITHUB_API_URL: gh.url };
});
afterAll(async () => {
  expect(gh.violations).toEqual([]);
  await gh.close();
  await llm.close();
});

describe('lestrade investigate github', () => {
  it('--update posts one comment per issue, and a second run edits it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-gh-cli-')), 'rca.json');
    const first = await run(['investigate', 'github', '--repo', 'o/r', '--update', '--json-output-file', out], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Found 1 issue to investigate.');
    expect(first.stdout).toContain('# Checkout latency\n\n## Root cause\nRun 1: the cache is cold.');
    expect(first.stdout).toMatch(/Posted comment on o\/r#7: https:\/\/github\.com\/o\/r\/issues\/7#issuecomment-\d+/);
    const comments = () => gh.state.comments('o', 'r', 7);
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.user.login).toBe(BOT);
    expect(comments()[0]!.body).toContain(COMMENT_HEADING);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json).toEqual([
      expect.objectContaining({
        issue: expect.objectContaining({ identity: 'o/r#7', severity: 'critical' }),
        writeBack: { action: 'created', commentId: String(comments()[0]!.id), url: expect.any(String) },
      }),
    ]);

    const second = await run(
      ['investigate', 'github', '--repo', 'o/r', '--query', 'is:open label:lestrade', '--update'],
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Updated comment on o\/r#7/);
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.body).toContain('Run 2: the cache is cold.');
    expect(gh.requests.filter((r) => r.path === '/search/issues').map((r) => r.query.q)).toEqual([
      'repo:o/r is:issue is:open',
      'repo:o/r is:issue is:open label:lestrade',
    ]);
  }, 60_000);

  it('says what is missing: --repo, or credentials', async () => {
    const noRepo = await run(['investigate', 'github'], env);
    expect(noRepo.code).toBe(2);
    expect(noRepo.stderr).toMatch(/--repo OWNER\/NAME is required/);
    const noToken = await run(['investigate', 'github', '--repo', 'o/r'], {
      OPENAI_API_KEY: 'sk-cli',
      OPENAI_BASE_URL: llm.baseUrl,
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/source github is off: no GITHUB_TOKEN or GitHub App credentials/);
  }, 60_000);
});
