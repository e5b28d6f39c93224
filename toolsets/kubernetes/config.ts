import { z } from 'zod';
import { instanceKeys } from '../../src/registration/toolset-instances.js';

/**
 * `toolsets.kubernetes`: the shipped kubectl tools (toolsets/kubernetes.yaml) over several clusters, a kubeconfig
 * context per instance. Without `instances`, kubectl's own current context, as always.
 */
export const KubernetesSettingsSchema = z.strictObject({
  ...instanceKeys({
    /** The kubeconfig context this instance's commands run in. */
    context: z.string().min(1),
    /** The kubeconfig holding it; else KUBECONFIG, else ~/.kube/config. */
    kubeconfig: z.string().regex(/^\//, 'an absolute path').optional(),
  }),
});
export type KubernetesSettings = z.infer<typeof KubernetesSettingsSchema>;
export type KubernetesInstance = NonNullable<KubernetesSettings['instances']>[number];
