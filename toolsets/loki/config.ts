import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';
import { DEFAULT_NAMED_TWICE, defaultNamedOnce, instanceKeys } from '../../src/registration/toolset-instances.js';

const lokiServer = {
  /** Sent as X-Scope-OrgID, for a multi-tenant Loki. */
  tenant: z.string().min(1).optional(),
  bearerToken: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).default({}),
};

/** Grafana Loki (toolsets/loki): off without a URL. Several by name in `instances` (`url` is then the default one). */
export const LokiSettingsSchema = z
  .strictObject({
    url: z.url().optional(),
    ...lokiServer,
    ...instanceKeys({ url: z.url(), ...lokiServer }),
  })
  .refine(defaultNamedOnce, { message: DEFAULT_NAMED_TWICE, path: ['instances'] });
export type LokiSettings = z.infer<typeof LokiSettingsSchema>;

/** Environment variables and where they land in `toolsets.loki`; env wins over the file. */
export const LOKI_ENV: EnvBinding[] = [
  ['LOKI_URL', ['url'], 'string'],
  ['LOKI_TENANT', ['tenant'], 'string'],
  ['LOKI_TOKEN', ['bearerToken'], 'string'],
];
