import type { Config } from '../src/config/schema.js';
import { toolsetConfig } from '../src/config/toolset-config.js';
import type { VerifyProbes } from '../src/remediation/probes.js';
import { alertmanagerProbe } from './alertmanager/alert-probe.js';
import { alertmanagerToolset } from './alertmanager/registration.js';
import { createRolloutProbe } from './kubernetes-remediation/index.js';
import { kubernetesRemediationToolset } from './kubernetes-remediation/registration.js';
import { prometheusProbe } from './prometheus/alert-probe.js';
import { prometheusToolset } from './prometheus/registration.js';

/**
 * What the remediation verifier checks with (docs/remediation.md, "Verified"), from the configured toolsets: the
 * rollout through the remediation context when that toolset is on; the alert through Alertmanager's API and
 * Prometheus' ALERTS when they are configured (Alertmanager first). For the composition root.
 */
export function verifyProbes(config: Config): VerifyProbes & { windowSeconds: number; intervalSeconds: number } {
  const rem = toolsetConfig(config, kubernetesRemediationToolset);
  const am = toolsetConfig(config, alertmanagerToolset);
  const prom = toolsetConfig(config, prometheusToolset);
  const amOn = am.enabled && config.toolsets.settings.alertmanager?.enabled !== false && am.url;
  const promOn = config.toolsets.settings.prometheus?.enabled !== false && prom.url;
  return {
    ...(rem.enabled && { rollout: createRolloutProbe(rem) }),
    alerts: [
      ...(amOn ? [alertmanagerProbe(am.url!, am.headers)] : []),
      ...(promOn ? [prometheusProbe(prom.url!, prom.headers)] : []),
    ],
    windowSeconds: rem.verifyWindowSeconds,
    intervalSeconds: rem.verifyIntervalSeconds,
  };
}
