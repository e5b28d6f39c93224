/** A deploy seen by Lestrade (a GitHub deployment_status `success`, or POST /webhooks/deploy), docs/checks.md. */
export interface DeployEvent {
  /** Stable id of the deploy notification (idempotency: the same deploy seen twice is one event). */
  id: string;
  service: string;
  namespace?: string;
  version?: string;
  url?: string;
  environment?: string;
  source: 'github' | 'webhook';
  receivedAt: string;
}

/** Told of every deploy once; the health checks subscribe (afterDeploy checks). */
export type DeployListener = (event: DeployEvent) => Promise<void>;
