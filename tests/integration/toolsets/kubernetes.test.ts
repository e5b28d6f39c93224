/**
 * The shipped kubernetes toolsets where kubectl finds no cluster: the real kubectl, with no kubeconfig
 * and no in-cluster service account, falls back to localhost:8080 and says the connection was refused.
 * Users read that reason on the toolsets page, /readyz, the start-up summary and `lestrade toolsets
 * list`: it must say what is missing, not name a port that looks like Lestrade's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveToolsets } from '../../../src/tools/toolset-registry.js';
import { loadYamlToolset } from '../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../toolsets/index.js';
import { createKubernetesChangesToolset } from '../../../toolsets/kubernetes-changes/index.js';
import { requireBinary } from '../../helpers/require-binary.js';

const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME, SA: process.env.KUBERNETES_SERVICE_HOST };
let home: string;

/** Whether something answers on localhost:8080 (then kubectl's message is another one). */
const port8080Open = () =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: 'localhost', port: 8080 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

beforeAll(() => {
  requireBinary('kubectl');
  home = mkdtempSync(join(tmpdir(), 'lestrade-nokube-'));
  // No kubeconfig (an empty HOME, KUBECONFIG naming a file that does not exist) and no service account.
  process.env.HOME = home;
  process.env.KUBECONFIG = join(home, 'absent-kubeconfig');
  delete process.env.KUBERNETES_SERVICE_HOST;
});
afterAll(() => {
  for (const [k, v] of Object.entries({
    KUBECONFIG: saved.KUBECONFIG,
    HOME: saved.HOME,
    KUBERNETES_SERVICE_HOST: saved.SA,
  })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(home, { recursive: true, force: true });
});

describe('kubectl with no cluster configured', () => {
  it('disables both kubernetes toolsets saying no kubeconfig or in-cluster credentials were found', async (ctx) => {
    if (await port8080Open()) ctx.skip();
    const yaml = loadYamlToolset(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'));
    const resolved = await resolveToolsets([yaml, createKubernetesChangesToolset()], {}, process.env);
    const reasons = resolved.statuses.map((s) => [s.name, s.state, s.reason]);
    const said =
      'prerequisite not met: `kubectl version --request-timeout=5s` exited 1: no kubeconfig or in-cluster credentials ' +
      "found: set KUBECONFIG or run in a pod with a service account (kubectl's fallback, localhost:8080, refused; not " +
      "Lestrade's port)";
    expect(reasons).toEqual([
      ['kubernetes', 'disabled', said],
      ['kubernetes_changes', 'disabled', said],
    ]);
  }, 30_000);
});
