import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// Issue 16, defect 12: `investigate alertmanager --help` offered --update, which then exited 2
// (Alertmanager has nowhere to write). This test failed before the fix.
describe('lestrade investigate <source> --help', () => {
  it('offers --update only for sources that can write back', async () => {
    const am = await runCli(['investigate', 'alertmanager', '--help'], {});
    expect(am.code).toBe(0);
    expect(am.stdout).not.toContain('--update');
    const gh = await runCli(['investigate', 'github', '--help'], {});
    expect(gh.stdout).toContain('--update');
  }, 60_000);
});
