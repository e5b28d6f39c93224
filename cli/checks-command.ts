import { callApi, type ApiOptions } from './api-client.js';
import { terminalSafe } from './terminal-safe.js';
import type { CheckOverview } from '../src/checks/checks.js';

/** The strip's letters, oldest to newest: . pass, w warn, F fail, E error. */
const MARK: Record<string, string> = { pass: '.', warn: 'w', fail: 'F', error: 'E' };

/** `lestrade checks list`: GET /api/checks as a table (or the API's JSON). */
export async function checksListCommand(
  api: ApiOptions,
  opts: { json?: boolean },
  out: NodeJS.WritableStream,
): Promise<void> {
  const { body } = await callApi<{ items: CheckOverview[] }>(api, '/api/checks?history=24');
  if (opts.json) return void out.write(`${JSON.stringify(body, null, 2)}\n`);
  out.write(checksText(body.items));
}

export function checksText(items: readonly CheckOverview[]): string {
  if (items.length === 0) return 'No checks configured (checks in the config file, docs/checks.md).\n';
  const rows = [
    ['CHECK', 'STATUS', 'SCHEDULE', 'NOTIFY', 'LAST 24 (oldest first)', 'LAST SUMMARY'],
    ...items.map((c) => [
      terminalSafe(c.name),
      `${c.state.lastStatus ?? '-'}${c.state.paused ? ' (paused)' : ''}${c.enabled ? '' : ' (disabled)'}`,
      terminalSafe(c.schedule ?? (c.afterDeploy ? 'after deploys' : '-')),
      c.notify,
      [...c.history]
        .reverse()
        .map((h) => MARK[h.status] ?? '?')
        .join(''),
      terminalSafe((c.history[0]?.summary ?? '').slice(0, 80)),
    ]),
  ];
  const widths = rows[0]!.map((_c, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return `${rows
    .map((r) =>
      r
        .map((c, col) => c.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** `lestrade checks run|pause|resume <name>`: POST /api/checks/:name/<action>. */
export async function checkActionCommand(
  api: ApiOptions,
  action: 'run' | 'pause' | 'resume',
  name: string,
  out: NodeJS.WritableStream,
): Promise<void> {
  await callApi(api, `/api/checks/${encodeURIComponent(name)}/${action}`, {});
  const said = { run: 'run requested', pause: 'paused', resume: 'resumed' }[action];
  out.write(`${terminalSafe(name)}: ${said}\n`);
}
