import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPrerequisites } from '../../../../src/tools/check-prerequisites.js';
import { runCommand } from '../../../../src/tools/run-command.js';

describe('runCommand', () => {
  it('runs argv without a shell and returns exit code, stdout and stderr', async () => {
    expect(await runCommand(['sh', '-c', 'echo out; echo err >&2; exit 3'])).toEqual({
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
    });
    expect(await runCommand(['echo', '$(id)', '&&', 'x'])).toMatchObject({ exitCode: 0, stdout: '$(id) && x\n' });
  });

  it('refuses an empty command, and names one that does not exist', async () => {
    await expect(runCommand([])).rejects.toThrow('empty command');
    await expect(runCommand(['lestrade-no-such-command-x'])).rejects.toThrow(
      'command not found: lestrade-no-such-command-x',
    );
    // Other failures to start come through as they are.
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-cmd-'));
    writeFileSync(join(dir, 'not-executable'), 'echo hi\n', { mode: 0o644 });
    await expect(runCommand([join(dir, 'not-executable')])).rejects.toMatchObject({ code: 'EACCES' });
  });

  it('keeps at most maxBytes of each stream, saying it cut', async () => {
    const r = await runCommand(
      ['sh', '-c', 'head -c 5000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2'],
      { maxBytes: 1000 },
    );
    expect(r.stdout).toBe('a'.repeat(1000));
    expect(r.stderr).toBe('b'.repeat(10));
    expect(r.truncated).toBe(true);
    const exact = await runCommand(['printf', '%s', 'x'.repeat(1000)], { maxBytes: 1000 });
    expect(exact).toMatchObject({ stdout: 'x'.repeat(1000), truncated: false });
    const errOnly = await runCommand(['sh', '-c', 'printf %s "$(head -c 50 /dev/zero | tr "\\0" e)" >&2'], {
      maxBytes: 20,
    });
    expect(errOnly).toMatchObject({ stderr: 'e'.repeat(20), truncated: true });
  });

  it('keeps 256 KiB by default', async () => {
    const r = await runCommand(['sh', '-c', 'head -c 300000 /dev/zero | tr "\\0" z']);
    expect(r.stdout.length).toBe(256 * 1024);
    expect(r.truncated).toBe(true);
  });

  it('kills a command on timeout or abort', async () => {
    const started = Date.now();
    expect((await runCommand(['sleep', '5'], { timeoutMs: 100 })).exitCode).toBeNull();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(runCommand(['sleep', '5'], { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives the command no input: one that reads stdin ends at once', async () => {
    const started = Date.now();
    expect(await runCommand(['cat'], { timeoutMs: 3_000 })).toMatchObject({ exitCode: 0, stdout: '' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("runs with the environment it is given, else the process's", async () => {
    expect(
      (await runCommand(['sh', '-c', 'echo "$LESTRADE_X"'], { env: { LESTRADE_X: 'given', PATH: process.env.PATH } }))
        .stdout,
    ).toBe('given\n');
    expect((await runCommand(['sh', '-c', 'echo "${HOME:+home}"'])).stdout).toBe(process.env.HOME ? 'home\n' : '\n');
  });
});

describe('checkPrerequisites', () => {
  it('passes with none, and stops at the first that fails', async () => {
    expect(await checkPrerequisites([], {})).toBeNull();
    const order: string[] = [];
    const check = (name: string, reason: string | null) => ({
      kind: 'check' as const,
      run: async () => {
        order.push(name);
        return reason;
      },
    });
    expect(await checkPrerequisites([check('a', null), check('b', 'b is down'), check('c', 'c is down')], {})).toBe(
      'b is down',
    );
    expect(order).toEqual(['a', 'b']);
  });

  it('env: names the variables that are unset or empty, in the singular or the plural', async () => {
    expect(await checkPrerequisites([{ kind: 'env', vars: ['A', 'B', 'C'] }], { A: 'x', B: '' })).toBe(
      'environment variables not set: B, C',
    );
    expect(await checkPrerequisites([{ kind: 'env', vars: ['A', 'B'] }], { A: 'x' })).toBe(
      'environment variable not set: B',
    );
    expect(await checkPrerequisites([{ kind: 'env', vars: ['A'] }], { A: 'x' })).toBeNull();
  });

  it('command: passes on exit 0, else says how it exited with the last line it printed', async () => {
    expect(await checkPrerequisites([{ kind: 'command', argv: ['true'] }], {})).toBeNull();
    expect(
      await checkPrerequisites(
        [{ kind: 'command', argv: ['sh', '-c', 'echo first >&2; echo "  last line  " >&2; exit 4'] }],
        {},
      ),
    ).toBe('`sh -c echo first >&2; echo "  last line  " >&2; exit 4` exited 4:   last line');
    expect(await checkPrerequisites([{ kind: 'command', argv: ['sh', '-c', 'echo only stdout; exit 1'] }], {})).toBe(
      '`sh -c echo only stdout; exit 1` exited 1: only stdout',
    );
    expect(await checkPrerequisites([{ kind: 'command', argv: ['false'] }], {})).toBe('`false` exited 1');
    const long = await checkPrerequisites(
      [{ kind: 'command', argv: ['sh', '-c', `printf '%s' "${'y'.repeat(400)}" >&2; exit 2`] }],
      {},
    );
    expect(long).toBe(`\`sh -c printf '%s' "${'y'.repeat(400)}" >&2; exit 2\` exited 2: ${'y'.repeat(300)}`);
  });

  it("command: a known failure is said in the explanation's words, anything else as the command printed it", async () => {
    const explain = [
      { match: 'server localhost:8080 was refused', say: 'no kubeconfig or in-cluster credentials found' },
      { match: 'Unauthorized', say: 'the credentials were refused' },
    ];
    const failing = (text: string) => ({
      kind: 'command' as const,
      argv: ['sh', '-c', `echo "${text}" >&2; echo "Client Version: v1" >&2; exit 1`],
      explain,
    });
    // The match may be on any line of the output, not only the last one shown otherwise.
    expect(await checkPrerequisites([failing('The connection to the server localhost:8080 was refused')], {})).toMatch(
      /exited 1: no kubeconfig or in-cluster credentials found$/,
    );
    expect(await checkPrerequisites([failing('error: You must be logged in (Unauthorized)')], {})).toMatch(
      /exited 1: the credentials were refused$/,
    );
    expect(await checkPrerequisites([failing('dial tcp 10.0.0.1:443: i/o timeout')], {})).toMatch(
      /exited 1: Client Version: v1$/,
    );
  });

  it('command: renders its arguments with the environment, and reports a timeout or a missing command', async () => {
    expect(
      await checkPrerequisites([{ kind: 'command', argv: ['test', '{{ env.WANT }}', '=', 'yes'] }], { WANT: 'yes' }),
    ).toBeNull();
    expect(await checkPrerequisites([{ kind: 'command', argv: ['sleep', '5'], timeoutMs: 100 }], {})).toBe(
      '`sleep 5` exited on timeout',
    );
    expect(await checkPrerequisites([{ kind: 'command', argv: ['lestrade-nope', '--version'] }], {})).toBe(
      '`lestrade-nope --version` could not run: command not found: lestrade-nope',
    );
  });

  it("check: a built-in check's reason, or its failure", async () => {
    expect(await checkPrerequisites([{ kind: 'check', run: async () => 'Prometheus at x did not answer' }], {})).toBe(
      'Prometheus at x did not answer',
    );
    expect(
      await checkPrerequisites(
        [
          {
            kind: 'check',
            run: async () => {
              throw new Error('boom');
            },
          },
        ],
        {},
      ),
    ).toBe('check failed: boom');
  });
});
