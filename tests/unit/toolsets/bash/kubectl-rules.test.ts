import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../../toolsets/bash/policy.js';

const cfg = { allow: [], deny: [], curlHosts: [] };
const verdict = async (command: string) => (await checkCommand(command, cfg)).verdict;

/** issue 16, defect 2: kubectl printed any file through -o *-file=, and took any kubeconfig, server or identity. */
describe('kubectl: output formats that read files are refused', () => {
  it.each([
    'kubectl get pods -o go-template-file=/proc/1/environ',
    'kubectl get pods -o jsonpath-file=/proc/1/environ',
    'kubectl get pods -o=go-template-file=/proc/1/environ',
    'kubectl get pods -ogo-template-file=/etc/passwd',
    'kubectl get pods --output=templatefile=/etc/passwd',
    'kubectl get pods --output jsonpath-file=/etc/passwd',
    'kubectl get pods -o custom-columns-file=/etc/passwd',
    'kubectl get pods -o GO-TEMPLATE-FILE=/etc/passwd',
  ])('refuses %s', async (command) => {
    const v = await verdict(command);
    expect(v.decision).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(/reads a file/);
  });

  it.each([
    ['kubectl get pods -o weird', /output format/],
    ['kubectl get pods -o go-template --template=/etc/passwd', /template/],
    ['kubectl cluster-info dump', /cluster-info dump/],
    ['kubectl krew install x', /not on the read-only list/],
  ])('asks a human for %s', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('ask');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it('does not let an option that needs a human hide a refused verb behind its value', async () => {
    expect((await verdict('kubectl --template /x delete pod x')).decision).toBe('deny');
  });

  it.each([
    'kubectl get pods -o json',
    'kubectl get pods -o yaml',
    'kubectl get pods -owide',
    'kubectl get pods -o=name',
    "kubectl get pods -o jsonpath='{.items[*].metadata.name}'",
    "kubectl get pods -o 'custom-columns=NAME:.metadata.name,NODE:.spec.nodeName'",
    "kubectl get pods -o go-template='{{range .items}}{{.metadata.name}} {{end}}'",
    'kubectl get pods --namespace api',
  ])('still allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });
});

/**
 * issue 30, defect 3: --context, --cluster and --user were plain value options, and the API server
 * saw the admin's token. The identity and the cluster are Lestrade's choice (the sandbox's kubeconfig
 * holds one context): every option that picks either, or a file of credentials, is refused.
 */
describe('kubectl: options that pick the identity, the cluster or credentials are refused', () => {
  it.each([
    'kubectl get configmaps --context admin',
    'kubectl get configmaps --context=admin',
    'kubectl --context admin get configmaps',
    'kubectl get pods --cluster other',
    'kubectl get pods --user cluster-admin',
    'kubectl get pods --user=cluster-admin',
    'kubectl get pods --kubeconfig=/proc/1/environ',
    'kubectl --kubeconfig /etc/passwd get pods',
    'kubectl get pods --token=abc',
    'kubectl get pods --server=https://evil.example',
    'kubectl get pods -s https://evil.example',
    'kubectl get pods -shttps://evil.example',
    'kubectl get pods --as=system:admin',
    'kubectl get pods --as-group=system:masters',
    'kubectl get pods --as-uid=0',
    'kubectl get pods --certificate-authority=/etc/passwd',
    'kubectl get pods --client-key=/etc/passwd',
    'kubectl get pods --client-certificate=/etc/passwd',
    'kubectl get pods --username admin',
    'kubectl get pods --password secret',
    'kubectl get pods --insecure-skip-tls-verify',
    'kubectl get pods --insecure-skip-tls-verify=true',
    'kubectl get pods --tls-server-name other',
    'kubectl get pods --cont admin',
    'kubectl version --context admin',
    'kubectl config current-context --context admin',
  ])('refuses %s', async (command) => {
    const v = await verdict(command);
    expect(v.decision, command).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(/Lestrade pins the identity and the cluster/);
  });
});
