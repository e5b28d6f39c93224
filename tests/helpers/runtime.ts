import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { amFixture } from './fixtures.js';
import { getJson, waitFor } from './service.js';

/** POSTs JSON to the service; returns status and parsed body. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** One Alertmanager alert (fingerprint varied so each test gets its own investigation); returns its id. */
export async function deliverOne(
  base: string,
  fingerprint = '0123456789abcdef',
  annotations: Record<string, string> = {},
): Promise<string> {
  const alert: Record<string, unknown> = { ...amFixture('group-next').body.alerts[0]!, fingerprint };
  alert.annotations = { ...(alert.annotations as Record<string, string>), ...annotations };
  const res = await postJson(`${base}/webhooks/alertmanager`, { ...amFixture('group-next').body, alerts: [alert] });
  if (res.status !== 200 || !res.body.queued[0])
    throw new Error(`delivery failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.queued[0];
}

export const investigation = async (base: string, id: string) =>
  (await getJson(`${base}/api/investigations/${id}`)).body;

/** Waits until the investigation's status (or, with `ask`, its last follow-up's) is one of `statuses`. */
export function statusIs(base: string, id: string, statuses: string[], timeoutMs = 20_000, ask = false): Promise<any> {
  return waitFor(
    `investigation ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const inv = await investigation(base, id);
      const status = ask ? inv.conversation?.at(-1)?.status : inv.status;
      return statuses.includes(status) && inv;
    },
    timeoutMs,
  );
}

/**
 * A folder with a config file and YAML toolsets for runtime tests: `say` (echo, read-only) and
 * `restart` (side-effecting: touches a marker file, so a test can tell whether it ran), `sleepy`
 * (takes 3 s, then touches a marker) and `numbers` (seq 1 n: output of any size).
 */
export function runtimeConfig(
  extraYaml = '',
  toolsetsYaml = '',
): { dir: string; config: string; marker: (name: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-runtime-'));
  writeFileSync(
    join(dir, 'say.yaml'),
    [
      'name: say',
      'description: test tools',
      'tools:',
      '  - name: say',
      '    description: echo a word',
      '    params: { word: { type: string } }',
      '    command: [echo, "{{ word }}"]',
      '  - name: restart',
      '    description: restart a service (touches a marker file)',
      '    sideEffects: true',
      '    params: { name: { type: string, pattern: "^[a-z0-9-]+$" } }',
      `    command: [touch, "${dir}/{{ name }}"]`,
      '  - name: sleepy',
      '    description: sleeps, then touches a marker',
      '    params: { name: { type: string, pattern: "^[a-z0-9-]+$" } }',
      `    command: [sh, -c, "sleep 3 && touch ${dir}/$0", "{{ name }}"]`,
      '  - name: numbers',
      '    description: prints the numbers 1 to n, one a line',
      '    params: { n: { type: integer, minimum: 1, maximum: 1000000 } }',
      '    command: [seq, 1, "{{ n }}"]',
      '',
    ].join('\n'),
  );
  const config = join(dir, 'lestrade.yaml');
  writeFileSync(
    config,
    `toolsets: { dirs: [${JSON.stringify(dir)}]${toolsetsYaml ? `, ${toolsetsYaml}` : ''} }\n${extraYaml}`,
  );
  return { dir, config, marker: (name: string) => join(dir, name) };
}
