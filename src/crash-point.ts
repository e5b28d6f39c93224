/**
 * Crash points for the crash tests (docs/development.md): when `LESTRADE_TEST_CRASH_AT` names `point`, the process
 * kills itself there with SIGKILL, as a machine failing at that instant would, with no clean-up. Unset (always, in
 * production) this is one comparison. Points: approved-call:before-begin, approved-call:before-run,
 * approved-call:before-finish, approved-call:before-record (src/loop/approvals.ts).
 */
export function crashPoint(point: string): void {
  if (process.env.LESTRADE_TEST_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
}
