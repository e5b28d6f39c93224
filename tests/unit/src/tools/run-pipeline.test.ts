import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../../../src/tools/run-pipeline.js';

const opts = { timeoutMs: 5_000, maxBytes: 10_000, env: process.env };
const run = (stages: string[][], over: Partial<typeof opts & { signal: AbortSignal }> = {}) =>
  runPipeline(stages, { ...opts, ...over });

describe('runPipeline', () => {
  it("connects each stage's stdout to the next one's stdin, with no shell, and reports the last stage", async () => {
    expect(await run([['printf', 'b\\na\\nc\\n'], ['sort'], ['head', '-n', '2']])).toEqual({
      exitCode: 0,
      stdout: 'a\nb\n',
      stderr: '',
      truncated: false,
    });
    expect(await run([['echo', '$(id) | x']])).toMatchObject({ exitCode: 0, stdout: '$(id) | x\n' });
    expect(
      await run([
        ['echo', 'x'],
        ['sh', '-c', 'cat >/dev/null; exit 4'],
      ]),
    ).toMatchObject({ exitCode: 4 });
  });

  it('gives the first stage no stdin, so a reader there ends at once', async () => {
    expect(await run([['cat']], { timeoutMs: 2_000 })).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: '',
      truncated: false,
    });
  });

  it("stops the stages feeding one that ended, as a shell's SIGPIPE would (yes | head)", async () => {
    const started = Date.now();
    expect(await run([['yes'], ['head', '-n', '2']], { timeoutMs: 4_000 })).toEqual({
      exitCode: 0,
      stdout: 'y\ny\n',
      stderr: '',
      truncated: false,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('drains a stage whose reader ended, so a writer that ignores SIGPIPE can finish', async () => {
    const started = Date.now();
    expect(
      await run(
        [
          ['sh', '-c', "trap '' PIPE; seq 1 200000"],
          ['head', '-n', '1'],
        ],
        { timeoutMs: 4_000 },
      ),
    ).toEqual({ exitCode: 0, stdout: '1\n', stderr: '', truncated: false });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('keeps output arriving in several pieces, and all of a large output', async () => {
    expect(await run([['sh', '-c', 'echo a; sleep 0.1; echo b']], { maxBytes: 1_000 })).toEqual({
      exitCode: 0,
      stdout: 'a\nb\n',
      stderr: '',
      truncated: false,
    });
    const big = await run([['head', '-c', '300000', '/dev/zero']], { maxBytes: 1_000_000 });
    expect([big.stdout.length, big.truncated]).toEqual([300_000, false]);
  });

  it('keeps stderr written in pieces up to the cap', async () => {
    const r = await run(
      [['sh', '-c', 'printf %30s x >&2; sleep 0.1; printf %30s y >&2; sleep 0.1; printf %30s z >&2']],
      { maxBytes: 70 },
    );
    expect(r.stderr).toBe(`${' '.repeat(29)}x${' '.repeat(29)}y${' '.repeat(10)}`);
  });

  it('keeps stderr of every stage, within the cap', async () => {
    const r = await run([
      ['sh', '-c', 'echo one >&2; echo data'],
      ['sh', '-c', 'cat >/dev/null; echo two >&2'],
    ]);
    expect(r.stderr.split('\n').filter(Boolean).sort()).toEqual(['one', 'two']);
    const capped = await run([['sh', '-c', 'head -c 3000 /dev/zero | tr "\\0" e >&2']], { maxBytes: 100 });
    expect(capped.stderr).toBe('e'.repeat(100));
  });

  it('keeps at most maxBytes of the output, says it cut, and stops every stage', async () => {
    const started = Date.now();
    const r = await run([['yes', 'abc'], ['cat']], { maxBytes: 1_000, timeoutMs: 4_000 });
    expect(r.stdout).toBe('abc\n'.repeat(250));
    expect(r.truncated).toBe(true);
    expect(r.stderr).toBe('');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await run([['printf', '%s', 'x'.repeat(1_000)]], { maxBytes: 1_000 })).toMatchObject({
      stdout: 'x'.repeat(1_000),
      truncated: false,
    });
  });

  it('stops everything on timeout: no exit code, and a note saying so', async () => {
    const started = Date.now();
    const r = await run([['sleep', '10'], ['cat']], { timeoutMs: 200 });
    expect(r).toEqual({ exitCode: null, stdout: '', stderr: 'timed out after 200 ms', truncated: false });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('stops everything when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const r = await run([['sleep', '10'], ['cat']], { signal: controller.signal, timeoutMs: 8_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(r.stderr).not.toContain('timed out');
  });

  it('passes the environment it is given', async () => {
    expect(
      await run([['sh', '-c', 'echo "$LESTRADE_PIPE_VAR"']], {
        env: { PATH: process.env.PATH, LESTRADE_PIPE_VAR: 'v1' },
      }),
    ).toMatchObject({ stdout: 'v1\n' });
  });

  it('names a stage that does not exist, and passes other failures to start through', async () => {
    await expect(run([['echo', 'x'], ['lestrade-no-such-command-y']])).rejects.toThrow(
      'command not found: lestrade-no-such-command-y',
    );
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-pipe-'));
    writeFileSync(join(dir, 'not-executable'), 'echo hi\n', { mode: 0o644 });
    await expect(run([[join(dir, 'not-executable')]])).rejects.toMatchObject({ code: 'EACCES' });
  });
});
