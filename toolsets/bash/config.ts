import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

/** The bash toolset's policy (the toolset is off unless settings.bash.enabled is true). */
export const BashSettingsSchema = z.strictObject({
  allow: z.array(z.string().min(1)).default([]),
  deny: z.array(z.string().min(1)).default([]),
  /** host:port pairs (a bare host: ports 80 and 443) curl may GET from: the egress proxy reaches nothing else. */
  curlHosts: z.array(z.string().min(1)).default([]),
  /** The most pipeline stages one line may have; each stage is a process in its own sandbox. */
  maxStages: z.int().min(1).max(64).default(8),
  /** Sandboxes running at once in this process, across every run (at least maxStages). */
  maxSandboxes: z.int().min(1).max(1024).default(16),
  /** The kubeconfig context kubectl is pinned to, the only one its sandbox sees; the current context when not said. */
  kubeContext: z.string().min(1).optional(),
  timeoutMs: z.int().positive().default(30_000),
  maxOutputBytes: z.int().positive().default(1_048_576),
  env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
  /** Where commands run: "bubblewrap" (the default; the toolset fails to start without it) or "none", said explicitly. */
  sandbox: z.enum(['bubblewrap', 'none']).default('bubblewrap'),
  /** Host paths bound read-only into the sandbox (binaries outside /usr, certificates a kubeconfig names, cloud CLIs' config). */
  readOnlyPaths: z.array(z.string().regex(/^\//, 'an absolute path')).default([]),
});
export type BashSettings = z.infer<typeof BashSettingsSchema>;

/** Environment variables and where they land in `toolsets.bash`; env wins over the file. */
export const BASH_ENV: EnvBinding[] = [['LESTRADE_BASH_SANDBOX', ['sandbox'], 'string']];

/** Its switch in `toolsets.settings.bash` (the toolset is off unless switched on). */
export const BASH_SETTINGS_ENV: EnvBinding[] = [['LESTRADE_BASH_ENABLED', ['enabled'], 'boolean']];
