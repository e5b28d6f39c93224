import { z } from 'zod';

/** What the remediation toolset may touch: `kinds` name them as kubectl does. */
export const REMEDIATION_KINDS = ['deployment', 'statefulset', 'daemonset', 'pod'] as const;
export type RemediationKind = (typeof REMEDIATION_KINDS)[number];

const k8sName = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a Kubernetes namespace name');

/**
 * `toolsets.kubernetes_remediation` (docs/remediation.md): off by default; every tool waits for a human. It
 * writes through a kubeconfig context of its own (`context`), never the read-only tools' one, and touches only
 * the namespaces and kinds listed here.
 */
export const RemediationSettingsSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** The kubeconfig context the writes use (its credentials: the ClusterRole of deploy/remediation). */
    context: z.string().min(1).optional(),
    /** A kubeconfig file for that context; default: kubectl's own (KUBECONFIG, ~/.kube/config, in-cluster). */
    kubeconfig: z.string().min(1).optional(),
    /** Namespaces it may change; empty (the default) means none. */
    namespaces: z.array(k8sName).default([]),
    kinds: z.array(z.enum(REMEDIATION_KINDS)).default([...REMEDIATION_KINDS]),
    /** kubectl_scale never sets more replicas than this. */
    maxReplicas: z.int().min(1).max(1000).default(10),
    /** kubectl_scale to 0 is refused unless this is true. */
    allowScaleToZero: z.boolean().default(false),
    /** Workloads and pods carrying this label (any value but "false") are never touched. */
    optOutLabel: z.string().min(1).default('lestrade.io/no-remediation'),
    timeoutSeconds: z.int().min(1).max(300).default(30),
    /** How long after an applied action Lestrade checks whether it helped (docs/remediation.md, "Verified"). */
    verifyWindowSeconds: z.int().min(10).max(86_400).default(600),
    /** How often it checks within that window. */
    verifyIntervalSeconds: z.int().min(5).max(3600).default(30),
    /** Applied actions per UTC day, every worker's together; proposals past it are refused before anyone is asked. */
    maxActionsPerDay: z.int().min(0).max(10_000).default(20),
    /**
     * How long a proposal holds its workload (one remediation in flight per workload) at most: pending approval,
     * then applying. Keep it above approvals.timeoutSeconds; a denied, expired or applied one frees it sooner.
     */
    inFlightSeconds: z
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(7200),
    /**
     * How long a workload stays held after an applied action, so no second remediation starts while the first is
     * being verified; default: verifyWindowSeconds; 0 frees it at once.
     */
    holdAfterApplySeconds: z.int().min(0).max(86_400).optional(),
  })
  .refine((s) => !s.enabled || s.context !== undefined, {
    path: ['context'],
    message:
      'set toolsets.kubernetes_remediation.context to the kubeconfig context the writes use (not the read-only ' +
      "tools' one): docs/remediation.md",
  });
export type RemediationSettings = z.infer<typeof RemediationSettingsSchema>;
