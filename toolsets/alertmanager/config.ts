import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';
import { DEFAULT_NAMED_TWICE, defaultNamedOnce, instanceKeys } from '../../src/registration/toolset-instances.js';

/** The Alertmanager toolset (toolsets/alertmanager): alerts, groups, silences; silences created with approval. */
export const AlertmanagerSettingsSchema = z
  .strictObject({
    /** Off here, or with settings.alertmanager.enabled (which wins). */
    enabled: z.boolean().default(true),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** The longest silence alertmanager_create_silence may create. */
    maxSilenceHours: z.number().positive().max(720).default(4),
    /** Several Alertmanagers by name (`url` is then the one named default). */
    ...instanceKeys({ url: z.url(), headers: z.record(z.string(), z.string()).default({}) }),
  })
  .refine(defaultNamedOnce, { message: DEFAULT_NAMED_TWICE, path: ['instances'] });
export type AlertmanagerSettings = z.infer<typeof AlertmanagerSettingsSchema>;

/** Environment variables and where they land in `toolsets.alertmanager`; env wins over the file. */
export const ALERTMANAGER_ENV: EnvBinding[] = [
  // Also sources.alertmanager.url (bound by the source): one Alertmanager, read by both.
  ['ALERTMANAGER_URL', ['url'], 'string'],
];
