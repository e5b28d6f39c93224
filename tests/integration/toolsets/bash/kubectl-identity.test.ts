import { execFile } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey } from '../../../../src/tools/call-key.js';
import { runPipeline } from '../../../../src/tools/run-pipeline.js';
import { createBashToolset } from '../../../../toolsets/bash/index.js';
import { createSandbox } from '../../../../toolsets/bash/sandbox.js';
import { writePinnedKubeconfig } from '../../../../toolsets/bash/sandbox-kubeconfig.js';
import { startKubernetesApiDouble, type KubernetesApiDouble } from '../../../helpers/doubles/kubernetes-api-double.js';
import { requireBinary } from '../../../helpers/require-binary.js';

/**
 * issue 30, defect 3: `kubectl get configmaps --context admin` used the admin's credentials. The
 * host's kubeconfig here holds two contexts on the same API server double, "reader" (current, token
 * reader-token) and "admin" (token admin-token), and a third cluster "other" on a second double.
 * The sandbox sees only the kubeconfig Lestrade writes, holding "reader": whatever kubectl is told,
 * past the policy too, the doubles never see the admin's token and "other" is never reached.
 */
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'api-1', namespace: 'prod', labels: { app: 'api' } },
  status: { phase: 'Running' },
};
let k8s: KubernetesApiDouble;
let other: KubernetesApiDouble;
let hostKubeconfig = '';
const saved = { KUBECONFIG: process.env.KUBECONFIG };

beforeAll(async () => {
  requireBinary('bwrap');
  requireBinary('socat');
  requireBinary('kubectl');
  k8s = await startKubernetesApiDouble([POD], { tls: true });
  other = await startKubernetesApiDouble([POD], { tls: true });
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-kube-identity-'));
  writeFileSync(join(dir, 'admin-token'), 'admin-file-token\n');
  hostKubeconfig = join(dir, 'config');
  writeFileSync(
    hostKubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'reader',
      clusters: [
        { name: 'main', cluster: { server: k8s.url, 'certificate-authority-data': b64(k8s.caPem) } },
        { name: 'other', cluster: { server: other.url, 'certificate-authority-data': b64(other.caPem) } },
      ],
      users: [
        { name: 'reader', user: { token: 'reader-token' } },
        { name: 'admin', user: { token: 'admin-token' } },
        { name: 'file-admin', user: { tokenFile: join(dir, 'admin-token') } },
      ],
      contexts: [
        { name: 'reader', context: { cluster: 'main', user: 'reader', namespace: 'prod' } },
        { name: 'admin', context: { cluster: 'main', user: 'admin' } },
        { name: 'file-admin', context: { cluster: 'main', user: 'file-admin' } },
        { name: 'elsewhere', context: { cluster: 'other', user: 'admin' } },
      ],
    }),
  );
  process.env.KUBECONFIG = hostKubeconfig;
});
afterAll(async () => {
  if (saved.KUBECONFIG === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = saved.KUBECONFIG;
  await k8s.stop();
  await other.stop();
});

const b64 = (pem?: string) => Buffer.from(pem ?? '').toString('base64');
const tokensSeen = () => [...k8s.requests, ...other.requests].map((r) => r.authorization ?? '(none)');
const ctx = { signal: new AbortController().signal, approved: false };
const toolset = (kubeContext?: string) =>
  createBashToolset({
    allow: [],
    deny: [],
    curlHosts: [],
    timeoutMs: 20_000,
    maxOutputBytes: 100_000,
    env: [],
    ...(kubeContext && { kubeContext }),
  });

/** kubectl in the sandbox, past the policy (as an approved or mis-judged line would run). */
async function kubectlInSandbox(args: string[]) {
  const sandbox = createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [] });
  const run = await sandbox.open({ programs: ['kubectl'], approved: true });
  if ('error' in run) throw new Error(run.error);
  try {
    const argv = ['kubectl', '--request-timeout=5s', ...args];
    const out = await runPipeline([run.wrap(argv)], { timeoutMs: 20_000, maxBytes: 100_000, env: run.env });
    return out.stdout + out.stderr;
  } finally {
    await run.close();
  }
}

describe("kubectl's identity, pinned by construction", () => {
  it('without the sandbox, --context admin does send the admin token (so the tests below can fail)', async () => {
    await promisify(execFile)('kubectl', ['get', 'pods', '--context', 'admin', '-n', 'prod'], {
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'kube-home-')), KUBECONFIG: hostKubeconfig },
    });
    expect(tokensSeen()).toContain('Bearer admin-token');
    k8s.requests.length = 0;
  });

  it('runs kubectl through the tool as the pinned context, reaching its API server through the egress proxy', async () => {
    const out = await toolset().tools[0]!.run({ command: 'kubectl get pods -o name' }, ctx);
    expect(out).toEqual({ status: 'success', data: 'pod/api-1\n', vouches: true });
    expect(k8s.requests.some((r) => r.path === '/api/v1/namespaces/prod/pods')).toBe(true);
    expect(new Set(tokensSeen())).toEqual(new Set(['Bearer reader-token']));
  });

  it('refuses identity options through the tool, approved or not', async () => {
    const tool = toolset().tools[0]!;
    for (const command of [
      'kubectl get configmaps --context admin',
      'kubectl get pods --user admin',
      'kubectl get pods --cluster other',
      `kubectl get pods --kubeconfig ${hostKubeconfig}`,
      'kubectl get pods --token admin-token',
      `kubectl get pods --server ${other.url}`,
      'kubectl get pods --as admin',
    ]) {
      const approved = { ...ctx, approved: true, approvedCall: paramsKey('bash', { command }) };
      expect(await tool.run({ command }, approved), command).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/^refused: kubectl .*Lestrade pins the identity and the cluster/),
      });
    }
  });

  it('holds past the policy: no other context, user or kubeconfig exists in the sandbox, no other server is reached', async () => {
    k8s.requests.length = 0;
    expect(await kubectlInSandbox(['get', 'pods', '--context', 'admin'])).toMatch(/context was not found|"admin"/);
    expect(await kubectlInSandbox(['get', 'pods', '--context', 'elsewhere'])).toMatch(
      /context was not found|"elsewhere"/,
    );
    expect(await kubectlInSandbox(['get', 'pods', '--user', 'admin'])).toMatch(/auth info "admin" does not exist/);
    expect(await kubectlInSandbox(['get', 'pods', '--kubeconfig', hostKubeconfig])).toMatch(/no such file|not exist/i);
    const view = await kubectlInSandbox(['config', 'view', '--raw']);
    expect(view).toContain('reader-token');
    expect(view).not.toMatch(/admin|other|elsewhere/);
    // Another server is out of the egress proxy's reach, and so is another cluster's.
    // Go reports the proxy's 403 to CONNECT as "Forbidden".
    expect(await kubectlInSandbox(['get', 'pods', '--server', other.url])).toMatch(/Forbidden/);
    expect(other.requests).toEqual([]);
    expect(tokensSeen().filter((t) => t !== 'Bearer reader-token')).toEqual([]);
  });

  it('pins the context toolsets.bash.kubeContext names, with its token file read in', async () => {
    k8s.requests.length = 0;
    const out = await toolset('file-admin').tools[0]!.run({ command: 'kubectl get pods -n prod -o name' }, ctx);
    expect(out).toEqual({ status: 'success', data: 'pod/api-1\n', vouches: true });
    expect(new Set(tokensSeen())).toEqual(new Set(['Bearer admin-file-token']));
  });

  it('pins the kubeconfig with sandbox: none too (no OS boundary there, but still one context)', async () => {
    k8s.requests.length = 0;
    const none = createBashToolset({
      allow: [],
      deny: [],
      curlHosts: [],
      timeoutMs: 20_000,
      maxOutputBytes: 100_000,
      env: [],
      sandbox: 'none',
    });
    const command = 'kubectl get pods --context admin';
    const approved = { ...ctx, approved: true, approvedCall: paramsKey('bash', { command }) };
    expect(await none.tools[0]!.run({ command }, approved)).toMatchObject({ status: 'error' });
    expect(await none.tools[0]!.run({ command: 'kubectl config get-contexts -o name' }, ctx)).toEqual({
      status: 'success',
      data: 'reader\n',
      vouches: true,
    });
    expect(tokensSeen().filter((t) => t !== 'Bearer reader-token')).toEqual([]);
  });

  it('says what to fix when the configured context does not exist', async () => {
    const out = await toolset('nope').tools[0]!.run({ command: 'kubectl get pods' }, ctx);
    expect(out).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/kubectl has no usable context to pin .*toolsets\.bash\.kubeContext/),
    });
  });
});

describe('the pinned kubeconfig file', () => {
  it('is private (0600), in a folder of its own, with the proxy on its one cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-pinned-'));
    const pinned = await writePinnedKubeconfig(dir, process.env, { proxyUrl: 'http://127.0.0.1:3128' });
    if (!pinned.ok) throw new Error(pinned.reason);
    expect(statSync(pinned.path).mode & 0o777).toBe(0o600);
    expect(pinned.apiServer).toEqual({ host: '127.0.0.1', port: Number(new URL(k8s.url).port) });
  });

  it("in a pod without a kubeconfig, is the service account's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-pinned-'));
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      KUBECONFIG: join(dir, 'none'),
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: '6443',
    };
    const pinned = await writePinnedKubeconfig(dir, env, {});
    if (!pinned.ok) throw new Error(pinned.reason);
    expect(pinned.apiServer).toEqual({ host: '10.0.0.1', port: 6443 });
  });
});
