import { rmSync } from 'node:fs';
import { fromInstances } from '../../src/tools/instanced-toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { loadYamlToolset } from '../../src/tools/yaml-toolset.js';
import type { KubernetesSettings } from './config.js';
import { kubeconfigView, kubeconfigViewDir } from './kubeconfig-view.js';

type Env = Record<string, string | undefined>;

/**
 * The shipped kubernetes toolset (loaded from its YAML file) over the configured clusters: the file loaded once per
 * instance, its commands run with that instance's KUBECONFIG view (kubeconfig-view.ts), one set of tools for the
 * model. Without `instances`, the toolset as loaded.
 */
export function kubernetesOverInstances(loaded: Toolset, settings: KubernetesSettings, env: Env): Toolset {
  if (!settings.instances) return loaded;
  const dir = kubeconfigViewDir();
  const build = (i: NonNullable<KubernetesSettings['instances']>[number]) =>
    loadYamlToolset(loaded.origin, env, { KUBECONFIG: kubeconfigView(dir, i, env) });
  const instanced = fromInstances(settings, 'toolsets.kubernetes', null, build);
  if (!instanced) return loaded;
  const close = instanced.close;
  // The views go with the toolset.
  instanced.close = async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  };
  return instanced;
}
