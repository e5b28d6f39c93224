import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';
import { DEFAULT_NAMED_TWICE, defaultNamedOnce, instanceKeys } from '../../src/registration/toolset-instances.js';

/**
 * `toolsets.prometheus`: Prometheus' HTTP API (toolsets/prometheus): off without a URL. Several servers by name in
 * `instances` (`url` then is the one named default).
 */
export const PrometheusSettingsSchema = z
  .strictObject({
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    ...instanceKeys({ url: z.url(), headers: z.record(z.string(), z.string()).default({}) }),
  })
  .refine(defaultNamedOnce, { message: DEFAULT_NAMED_TWICE, path: ['instances'] });
export type PrometheusSettings = z.infer<typeof PrometheusSettingsSchema>;

/** Environment variables and where they land in `toolsets.prometheus`; env wins over the file. */
export const PROMETHEUS_ENV: EnvBinding[] = [['PROMETHEUS_URL', ['url'], 'string']];
