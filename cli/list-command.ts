import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';
import { terminalSafe } from './terminal-safe.js';

export interface ListOptions {
  status?: string;
  source?: string;
  severity?: string;
  since?: string;
  limit?: number;
  json?: boolean;
}

interface Summary {
  id: string;
  source: string;
  title: string;
  severity?: string;
  status: string;
  createdAt: string;
}

/** `lestrade list`: GET /api/investigations with the filters; a table, or the items as JSON. */
export async function listCommand(api: ApiOptions, opts: ListOptions, out: NodeJS.WriteStream): Promise<void> {
  const query = new URLSearchParams();
  for (const key of ['status', 'source', 'severity', 'since'] as const) if (opts[key]) query.set(key, opts[key]);
  if (opts.limit) query.set('limit', String(opts.limit));
  const { body } = await callApi<{ items: Summary[]; notice?: string }>(api, `/api/investigations?${query}`);
  if (opts.json) {
    out.write(`${JSON.stringify(body.items, null, 2)}\n`);
    return;
  }
  if (body.items.length === 0) {
    out.write('no investigations match\n');
    return;
  }
  out.write(table(body.items, out.isTTY ? out.columns : undefined));
  if (body.notice) out.write(`\n${body.notice}\n`);
}

/**
 * Aligned columns; on a terminal each line is clipped to its width. Ids are shown short: their first 8
 * characters, which every command takes (more when two listed ids share them).
 */
export function table(items: Summary[], width: number | undefined): string {
  const ids = shortIds(items.map((i) => i.id));
  const rows = [
    ['ID', 'STATUS', 'SEVERITY', 'SOURCE', 'CREATED', 'TITLE'],
    ...items.map((i, n) => [
      ids[n]!,
      i.status,
      i.severity ?? '',
      i.source,
      i.createdAt.slice(0, 19).replace('T', ' '),
      terminalSafe(i.title),
    ]),
  ];
  const widths = rows[0]!.map((_c, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows
    .map((r) => {
      const line = r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!))).join('  ');
      return `${width && line.length > width ? `${line.slice(0, width - 1)}…` : line}\n`;
    })
    .join('');
}

/** The shortest prefixes, 8 characters or more, that tell these ids apart. */
export function shortIds(ids: readonly string[]): string[] {
  for (let length = 8; length < 36; length++) {
    const short = ids.map((id) => id.slice(0, length));
    if (new Set(short).size === new Set(ids).size) return short;
  }
  return [...ids];
}
