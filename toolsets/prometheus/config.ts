import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

/** `toolsets.prometheus`: Prometheus' HTTP API (toolsets/prometheus): off without a URL. */
export const PrometheusSettingsSchema = z.strictObject({
  url: z.url().optional(),
  headers: z.record(z.string(), z.string()).default({}),
});
export type PrometheusSettings = z.infer<typeof PrometheusSettingsSchema>;

/** Environment variables and where they land in `toolsets.prometheus`; env wins over the file. */
export const PROMETHEUS_ENV: EnvBinding[] = [['PROMETHEUS_URL', ['url'], 'string']];
