import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { seededDouble } from '../../../fixtures/github/double-setup.js';
import { BASE_ENV, runCli, type CliRun } from '../../../helpers/run-cli.js';
import { requireBinary } from '../../../helpers/require-binary.js';

/** `lestrade investigate github --update`: the webhooks' trust rules, --all, --dry-run, the confirmation. */
let gh: GithubDouble;
let llm: ScriptedLlm;
let env: Record<string, string>;
const BIN = new URL('../../../../bin/lestrade.js', import.meta.url).pathname;

const commented = (n: number) => gh.state.comments('o', 't', n).filter((c) => c.user.login === 'lestrade-user');
const written = () => [1, 2, 3, 4, 5, 6, 7].filter((n) => commented(n).length > 0);

/** The CLI on a terminal (util-linux `script` gives it a pseudo-terminal), typing `input`. */
function runOnTerminal(args: string[], input: string): Promise<CliRun> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...BASE_ENV, ...env } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // Answer once the question is on the screen (readline may follow it with cursor escapes).
      if (stdout.includes('[y/N] ') && child.stdin.writable) child.stdin.end(input);
    });
    setTimeout(() => child.kill(), 200_000).unref();
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
  });
}

beforeAll(async () => {
  requireBinary('script');
  gh = await seededDouble();
  gh.addRepo({ owner: 'o', name: 't', private: true });
  const at = (d: number) => `2026-11-0${d}T10:00:00Z`;
  gh.addIssue({
    owner: 'o',
    repo: 't',
    number: 1,
    title: 'Labelled',
    labels: ['lestrade'],
    user: 'eve',
    created_at: at(1),
  });
  gh.addIssue({ owner: 'o', repo: 't', number: 2, title: 'By a stranger', user: 'eve', created_at: at(2) });
  gh.addIssue({ owner: 'o', repo: 't', number: 3, title: 'Asked by the owner', user: 'eve', created_at: at(3) });
  gh.addComment({ owner: 'o', repo: 't', issue_number: 3, body: '/lestrade investigate please', user: 'o' });
  gh.addIssue({ owner: 'o', repo: 't', number: 4, title: 'Asked by a stranger', user: 'eve', created_at: at(4) });
  gh.addComment({ owner: 'o', repo: 't', issue_number: 4, body: '/lestrade investigate', user: 'mallory' });
  gh.addIssue({ owner: 'o', repo: 't', number: 5, title: 'By the owner', user: 'o', created_at: at(5) });
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nthe cache' }));
  env = { OPENAI_API_KEY: 'sk-cli', OPENAI_BASE_URL: llm.baseUrl, GITHUB_TOKEN: gh.token, GITHUB_API_URL: gh.url };
});
afterAll(async () => {
  expect(gh.violations).toEqual([]);
  await gh.close();
  await llm.close();
});

const pull = (...more: string[]) => ['investigate', 'github', '--repo', 'o/t', ...more];

describe('lestrade investigate github --update', () => {
  it("--dry-run says where it would write under the webhooks' trust rules, and writes nothing", async () => {
    const dry = await runCli(pull('--update', '--dry-run'), env);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Would write the RCA to 3 issues: o\/t#5, o\/t#3, o\/t#1$/m);
    expect(dry.stdout).toContain("Not writing to 2 (the webhooks' trust rules; --all writes to them too):");
    expect(dry.stdout).toMatch(
      /^ {2}o\/t#4: no label lestrade, opened by @eve \(NONE, not in sources\.github\.trustedAssociations\) and no \/lestrade investigate comment by a trusted account$/m,
    );
    expect(dry.stdout).toMatch(/^ {2}o\/t#2: no label lestrade/m);
    expect(dry.stdout).toContain('--dry-run: nothing will be written.');
    expect(dry.stdout).toContain('(--dry-run: would write this RCA to o/t#3)');
    expect(written()).toEqual([]);
  }, 60_000);

  it('writes only where a webhook would have acted: the label, a trusted author, a trusted command', async () => {
    const run = await runCli(pull('--update'), env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Will write the RCA to 3 issues: o\/t#5, o\/t#3, o\/t#1$/m);
    expect(written()).toEqual([1, 3, 5]);
    // Every issue is still investigated and printed.
    expect(run.stdout.match(/^# /gm)).toHaveLength(5);
  }, 60_000);

  it('past 5 issues wants --yes when stdin is not a terminal, and then --all writes to every one', async () => {
    gh.addIssue({ owner: 'o', repo: 't', number: 6, title: 'Sixth', labels: ['lestrade'], user: 'eve' });
    const before = llm.requests.length;
    const refused = await runCli(pull('--update', '--all'), env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/^Will write the RCA to 6 issues: .* \(--all: trust rules not applied\)$/m);
    expect(refused.stderr).toBe(
      'lestrade: --update would write to 6 issues (more than 5) and stdin is not a terminal to ask: pass --yes to write to all 6, --dry-run to see what would be written, or narrow the query (-n)\n',
    );
    expect(llm.requests.length).toBe(before); // nothing investigated
    expect(written()).toEqual([1, 3, 5]);
    const yes = await runCli(pull('--update', '--all', '--yes'), env);
    expect(yes.code).toBe(0);
    expect(written()).toEqual([1, 2, 3, 4, 5, 6]);
  }, 90_000);

  // Runs after the test above (issue 6 and the comments it wrote).
  it('on a tty, asks before writing to more than 5 and writes nothing unless told yes', async () => {
    gh.addIssue({ owner: 'o', repo: 't', number: 7, title: 'Seventh', labels: ['lestrade'], user: 'eve' });
    const before = written();
    const no = await runOnTerminal(pull('--update', '--all'), 'n\n');
    expect(no.stdout).toContain('Write the RCA to these 7 issues? [y/N]');
    expect(no.stdout).toContain('not confirmed: nothing investigated or written');
    expect(no.code).toBe(2);
    expect(written()).toEqual(before);
    const yes = await runOnTerminal(pull('--update', '--all'), 'y\n');
    expect(yes.code).toBe(0);
    expect(written()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  }, 240_000);
});
