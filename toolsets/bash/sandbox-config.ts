/** How the bash toolset's sandbox is set up (sandbox.ts), apart so the run (sandbox-run.ts) reads it without a cycle. */
export type SandboxMode = 'bubblewrap' | 'none';

export interface SandboxConfig {
  mode: SandboxMode;
  /** Host paths bound read-only at the same place (binaries elsewhere, certificates, cloud CLIs' config). */
  readOnlyPaths: string[];
  /** Environment variables passed in besides the base ones (PATH, locale, KUBECONFIG). */
  env: string[];
  /** The host:port pairs curl's egress proxy reaches (toolsets.bash.curlHosts). */
  curlHosts?: string[];
  /** The kubeconfig context kubectl is pinned to; the current one when not said. */
  kubeContext?: string;
}
