import { createHash } from 'node:crypto';
import { z } from 'zod';
import { paramsKey } from '../../src/tools/call-key.js';
import type { Tool, ToolContext, ToolOutput } from '../../src/tools/types.js';
import type { AlertmanagerClient } from './alertmanager-client.js';
import { compactSilence } from './compact.js';
import { apiMatcher, matchersParam, parseMatchers, silencesSomething } from './matchers.js';

export const CREATE_SILENCE = 'alertmanager_create_silence';
/** Every silence Lestrade creates says so; with the call's marker in its comment, it is found again. */
export const CREATED_BY = 'lestrade';

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/;

/** "2h", "30m", "1h30m", "1d": minutes, or null when it is not a duration. */
export function durationMinutes(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (!m || text.trim() === '') return null;
  return Number(m[1] ?? 0) * 1440 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

const params = z.strictObject({
  matchers: matchersParam.min(1),
  comment: z.string().min(1).max(1000).describe('why: the cause found and what the silence waits for'),
  duration: z.string().max(20).optional().describe('how long from startsAt (now by default), e.g. 30m, 2h'),
  startsAt: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; default now'),
  endsAt: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; give this or duration'),
});

/**
 * Creates a silence: side-effecting, so every call waits for a human, and the runner posts only the call
 * that was approved, as it was approved. Found again by its marker (a hash of that call) before it is
 * posted, so a call run twice (a worker that died after posting) makes one silence.
 */
export function createSilenceTool(client: AlertmanagerClient | null, maxHours: number): Tool {
  return {
    name: CREATE_SILENCE,
    description:
      `Create an Alertmanager silence for the alerts the matchers select, for at most ${maxHours} h, with a comment ` +
      "saying why. Always waits for a human's approval.",
    params,
    sideEffects: true,
    // Found again by its marker before it is posted: running it again after a stop makes no second silence.
    idempotent: true,
    async run(p, ctx): Promise<ToolOutput> {
      if (!(ctx.approved && ctx.approvedCall === paramsKey(CREATE_SILENCE, p)))
        return { status: 'error', error: "refused: creating a silence needs a human's approval of this exact call" };
      const plan = silencePlan(p as z.infer<typeof params>, maxHours, Date.now());
      if ('error' in plan) return { status: 'error', error: plan.error };
      return post(client!, plan, ctx);
    },
  };
}

interface SilencePlan {
  body: { matchers: ReturnType<typeof apiMatcher>[]; startsAt: string; endsAt: string; comment: string };
  marker: string;
}

function silencePlan(p: z.infer<typeof params>, maxHours: number, now: number): SilencePlan | { error: string } {
  const parsed = parseMatchers(p.matchers);
  if ('error' in parsed) return parsed;
  if (!silencesSomething(parsed.matchers))
    return { error: 'matchers: at least one must not match the empty string (e.g. alertname="X")' };
  if ((p.duration === undefined) === (p.endsAt === undefined))
    return { error: 'give exactly one of duration or endsAt' };
  const start = p.startsAt ? Date.parse(p.startsAt) : now;
  let end: number;
  if (p.duration !== undefined) {
    const minutes = durationMinutes(p.duration);
    if (!minutes) return { error: `duration: "${p.duration}" is not a duration like 30m, 2h or 1h30m` };
    end = start + minutes * 60_000;
  } else end = Date.parse(p.endsAt!);
  if (end <= Math.max(start, now)) return { error: 'the silence must end after it starts and after now' };
  if (end - start > maxHours * 3_600_000)
    return { error: `a silence may last at most ${maxHours} h (toolsets.alertmanager.maxSilenceHours)` };
  const marker = `lestrade:${createHash('sha256').update(paramsKey(CREATE_SILENCE, p)).digest('hex').slice(0, 16)}`;
  return {
    marker,
    body: {
      matchers: parsed.matchers.map(apiMatcher),
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(end).toISOString(),
      comment: `${p.comment} [${marker}]`,
    },
  };
}

async function post(client: AlertmanagerClient, plan: SilencePlan, ctx: ToolContext): Promise<ToolOutput> {
  const earlier = ((await client.get('silences', {}, ctx.signal)) as Array<Parameters<typeof compactSilence>[0]>).find(
    (s) => s.createdBy === CREATED_BY && s.status?.state !== 'expired' && s.comment?.includes(`[${plan.marker}]`),
  );
  if (earlier) return { status: 'success', data: { created: false, silence: compactSilence(earlier) } };
  const res = (await client.post('silences', { ...plan.body, createdBy: CREATED_BY }, ctx.signal)) as {
    silenceID?: string;
  };
  const silence = compactSilence({
    ...plan.body,
    id: res.silenceID,
    createdBy: CREATED_BY,
    status: { state: Date.parse(plan.body.startsAt) > Date.now() ? 'pending' : 'active' },
  });
  return { status: 'success', data: { created: true, silence } };
}
