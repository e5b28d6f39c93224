import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { RemediationSettingsSchema, type RemediationSettings } from './config.js';
import { createRemediationToolset } from './index.js';

/** `toolsets.kubernetes_remediation`: off by default; its writes use a kubeconfig context of their own. */
export const kubernetesRemediationToolset: ToolsetRegistration<RemediationSettings, Toolset> = {
  name: 'kubernetes_remediation',
  configSchema: RemediationSettingsSchema,
  create: (config) => [createRemediationToolset(config)],
};
