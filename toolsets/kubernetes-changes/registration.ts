import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { createKubernetesChangesToolset } from './index.js';

/** The kubernetes_changes toolset's registration: no settings of its own (kubectl's context is the current one). */
export const kubernetesChangesToolset: ToolsetRegistration<undefined, Toolset> = {
  name: 'kubernetes_changes',
  create: () => [createKubernetesChangesToolset()],
};
