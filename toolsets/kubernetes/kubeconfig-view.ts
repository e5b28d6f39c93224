import { mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * One instance's view of the kubeconfig, as KUBECONFIG: a file Lestrade writes holding only `current-context` (the
 * instance's), listed before the kubeconfig that defines that context. kubectl merges the list and takes
 * current-context from the first file that sets it, so every command of the instance runs in its context without
 * a `--context` on any command line, and nothing of the credentials is copied.
 */
export function kubeconfigView(
  dir: string,
  instance: { name: string; context: string; kubeconfig?: string | undefined },
  env: Record<string, string | undefined>,
): string {
  const file = join(dir, `${instance.name}.kubeconfig`);
  const view = { apiVersion: 'v1', kind: 'Config', 'current-context': instance.context };
  writeFileSync(file, JSON.stringify(view, null, 2), { mode: 0o600 });
  const base = instance.kubeconfig ?? env.KUBECONFIG ?? join(env.HOME ?? homedir(), '.kube', 'config');
  return `${file}${delimiter}${base}`;
}

/** A private folder for the views of one process. */
export function kubeconfigViewDir(): string {
  return mkdtempSync(join(tmpdir(), 'lestrade-kubeconfig-'));
}
