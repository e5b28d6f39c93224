import { z } from 'zod';
import type {
  Delivered,
  DeliveryContext,
  Destination,
  DestinationRegistration,
  DestinationView,
} from '../../src/delivery/destination.js';
import { postOnce } from '../http-post.js';
import { teamsMessage } from './card.js';

export const TeamsConfigSchema = z.strictObject({
  /** A Teams Workflows "when a Teams webhook request is received" URL (it carries its own signature: a secret). */
  webhookUrl: z.url().optional(),
  timeoutMs: z.int().positive().default(15_000),
});
export type TeamsConfig = z.infer<typeof TeamsConfigSchema>;

/**
 * Microsoft Teams through a Workflows webhook: an Adaptive Card per investigation. Such a webhook
 * can neither edit nor delete, so a resolve changes nothing there, a re-run posts a new card,
 * and follow-up answers are not posted (no threads to put them in).
 */
class TeamsDestination implements Destination {
  readonly name = 'teams';
  constructor(private readonly config: TeamsConfig & { webhookUrl: string }) {}

  describe(): string {
    return 'teams';
  }

  async deliver(view: DestinationView, _target: string | null, ctx: DeliveryContext): Promise<Delivered | null> {
    if (view.event !== 'completed') return null;
    const { id, run } = view.investigation;
    // A re-run's RCA is a new card (Teams cannot edit the first); run 1 keeps the key it always had.
    return postOnce(
      run > 1 ? `teams:${id}:run-${run}` : `teams:${id}`,
      {
        vendor: 'Teams',
        url: this.config.webhookUrl,
        body: JSON.stringify(teamsMessage(view)),
        headers: {},
        timeoutMs: this.config.timeoutMs,
        setting: 'TEAMS_WEBHOOK_URL (destinations.teams.webhookUrl)',
      },
      ctx,
    );
  }
}

export const teams: DestinationRegistration<TeamsConfig> = {
  name: 'teams',
  configSchema: TeamsConfigSchema,
  env: [['TEAMS_WEBHOOK_URL', ['webhookUrl'], 'string']],
  disabledReason: (c) => (c.webhookUrl ? null : 'no webhook URL (TEAMS_WEBHOOK_URL or destinations.teams.webhookUrl)'),
  create: (c) => new TeamsDestination(c as TeamsConfig & { webhookUrl: string }),
};
