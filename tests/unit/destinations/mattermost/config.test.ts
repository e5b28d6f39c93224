import { describe, expect, it } from 'vitest';
import { channelError, MattermostConfigSchema } from '../../../../destinations/mattermost/config.js';

const ID = '4xp9fdt3zbfxumjjh6u1rqzoyc';

describe('destinations.mattermost', () => {
  it('takes the documented defaults', () => {
    expect(MattermostConfigSchema.parse({})).toEqual({ approvers: [], timeoutMs: 15_000 });
  });

  it('refuses an action URL without a secret, naming MATTERMOST_ACTION_SECRET (buttons are never unsigned)', () => {
    const r = MattermostConfigSchema.safeParse({ actionUrl: 'https://lestrade.example/webhooks/mattermost/actions' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['actionSecret']);
    expect(r.error!.issues[0]!.message).toContain('MATTERMOST_ACTION_SECRET');
  });

  it('refuses a short secret and takes a long one', () => {
    const url = 'https://lestrade.example/webhooks/mattermost/actions';
    expect(MattermostConfigSchema.safeParse({ actionUrl: url, actionSecret: 'short' }).success).toBe(false);
    expect(MattermostConfigSchema.safeParse({ actionUrl: url, actionSecret: 'x'.repeat(32) }).success).toBe(true);
  });

  it('approvers are user ids or usernames; a channel is an id', () => {
    expect(MattermostConfigSchema.parse({ approvers: [ID, 'alice', '@bob.ops'] }).approvers).toEqual([
      ID,
      'alice',
      '@bob.ops',
    ]);
    expect(MattermostConfigSchema.safeParse({ approvers: ['Not A Name!'] }).success).toBe(false);
    expect(MattermostConfigSchema.safeParse({ channel: 'town-square' }).success).toBe(false);
    expect(channelError(ID)).toBeNull();
    expect(channelError('town-square')).toContain('26 lower-case letters and digits');
  });
});
