import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { PROMETHEUS_ENV, PrometheusSettingsSchema, type PrometheusSettings } from './config.js';
import { createPrometheusToolsets } from './index.js';

/** The prometheus toolset's registration: `toolsets.prometheus`, its variables, and how it is built. */
export const prometheusToolset: ToolsetRegistration<PrometheusSettings, Toolset> = {
  name: 'prometheus',
  configSchema: PrometheusSettingsSchema,
  env: PROMETHEUS_ENV,
  create: (config) => [createPrometheusToolsets(config)],
};
