import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

/** The operators' runbooks (docs/runbooks.md): Markdown files with front matter, and runbook URLs. */
export const RunbooksSettingsSchema = z.strictObject({
  /** Folders of `*.md` runbooks (searched recursively). */
  dirs: z.array(z.string().min(1)).default([]),
  /** Hosts whose runbook URLs (an alert's runbook_url) fetch_runbook may read: `wiki.example.com`, `*.example.com`. */
  allowedHosts: z
    .array(
      z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/, 'a host name or *.domain, with :port if not the default'),
    )
    .default([]),
  /** The most of one runbook URL's answer that is read. */
  maxBytes: z.int().min(1_024).max(10_485_760).default(262_144),
  timeoutSeconds: z.number().positive().max(120).default(10),
  /** How long a fetched runbook URL is remembered. */
  cacheSeconds: z.int().min(0).default(300),
});
export type RunbooksSettings = z.infer<typeof RunbooksSettingsSchema>;

/** Environment variables and where they land in `runbooks`; env wins over the file. */
export const RUNBOOKS_ENV: EnvBinding[] = [
  ['LESTRADE_RUNBOOKS_DIR', ['dirs'], 'list'],
  ['LESTRADE_RUNBOOK_HOSTS', ['allowedHosts'], 'list'],
];
