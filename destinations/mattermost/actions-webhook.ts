import { z } from 'zod';
import type { DecideReply } from '../../src/actions/decide-calls.js';
import type { HumanActions } from '../../src/actions/human-actions.js';
import type { DestinationView } from '../../src/delivery/destination.js';
import { destinationView } from '../../src/delivery/destination-view.js';
import { describeZodIssues, InputError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import type { ApprovalDecision, DecidedBy } from '../../src/records/approval.js';
import type { DeliveryOutcome, Verdict, WebhookHandler } from '../../src/registration/source.js';
import type { Investigation } from '../../src/store/investigation.js';
import { verifyContext, type ActionContext } from './action-context.js';
import type { Approvers } from './approvers.js';
import type { MattermostClient } from './mattermost-client.js';
import { renderReply } from './render.js';

/**
 * What Mattermost POSTs to an action's integration URL (PostActionIntegrationRequest): who clicked, on which post,
 * and the context we put on the button. Objects are loose: Mattermost adds fields.
 */
const Callback = z.looseObject({
  user_id: z.string().min(1).max(64),
  post_id: z.string().min(1).max(64),
  channel_id: z.string().max(64).optional(),
  context: z.record(z.string(), z.unknown()),
});
type CallbackBody = z.infer<typeof Callback>;

export interface ActionsDeps {
  client: MattermostClient;
  secret: string;
  actionUrl: string;
  publicUrl?: string;
  actions: HumanActions;
  approvers: Approvers;
  log: Logger;
}

type Answer = { ephemeral_text?: string; update?: { message: string; props: Record<string, unknown> } };
const reply = (body: Answer): DeliveryOutcome => ({ kind: 'reply', status: 200, body });
const tell = (text: string): DeliveryOutcome => reply({ ephemeral_text: text });

/**
 * POST /webhooks/mattermost/actions: a button's click. Mattermost signs nothing, so the button's context carries
 * our HMAC (action-context.ts), checked over the raw body before anything else: a missing or wrong one is a 401 and
 * changes nothing. Approve, Deny and Re-run are for destinations.mattermost.approvers; Correct and Wrong for anyone
 * in the channel. Decisions go through the API's path (src/actions), which makes a replay change nothing. The answer
 * is an `update` of the post showing who decided, and an ephemeral line for the clicker.
 */
export function actionsWebhook(deps: ActionsDeps): WebhookHandler {
  return {
    verify: (delivery) => verifyBody(deps.secret, delivery.rawBody),
    parse: parseCallback,
    handle: async (body) => {
      const p = body as CallbackBody;
      const check = verifyContext(deps.secret, p.context, p.post_id);
      if (!check.ok) return tell('This button is not one of Lestrade’s.');
      return onClick(deps, p, check.context);
    },
  };
}

function verifyBody(secret: string, raw: Buffer): Verdict {
  let doc: { context?: unknown; post_id?: unknown } | null;
  try {
    doc = JSON.parse(raw.toString('utf8')) as typeof doc;
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  const postId = typeof doc?.post_id === 'string' ? doc.post_id : undefined;
  const check = verifyContext(secret, doc?.context, postId);
  return check.ok ? { ok: true } : { ok: false, reason: `Mattermost action: ${check.reason}` };
}

export function parseCallback(raw: Buffer): CallbackBody {
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError('body', `not JSON: ${(err as Error).message}`);
  }
  const parsed = Callback.safeParse(doc);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.map(String).join('.') ?? '';
  throw new InputError(field || 'body', describeZodIssues(parsed.error.issues));
}

async function onClick(deps: ActionsDeps, p: CallbackBody, c: ActionContext): Promise<DeliveryOutcome> {
  const inv = await deps.actions.get(c.i);
  if (!inv) return tell(`No investigation ${c.i} (it may have expired).`);
  if (c.a === 'correct' || c.a === 'wrong') return verdict(deps, inv, p.user_id, c.a);
  const allowed = await deps.approvers.check(p.user_id);
  if (!allowed.ok) {
    deps.log.warn({ user: p.user_id, action: c.a, id: inv.id }, 'Mattermost action refused: not an approver');
    return tell(`Not allowed: ${allowed.why}.`);
  }
  const by: DecidedBy = { via: 'mattermost', user: p.user_id, ...(allowed.name ? { name: allowed.name } : {}) };
  if (c.a === 'rerun') return rerun(deps, inv, c, by);
  if (!c.c) return tell('This button names no call.');
  const earlier = await alreadyDecided(deps, inv, c.c);
  if (earlier) return tell(earlier);
  const result = await deps.actions.decide(inv, [{ toolCallId: c.c, approved: c.a === 'approve', decidedBy: by }]);
  if (result.status !== 202) return tell((await alreadyDecided(deps, inv, c.c)) ?? errorOf(result));
  await deps.actions.refresh(inv.id);
  const done = `${c.a === 'approve' ? 'Approved' : 'Denied'} by ${by.name ?? by.user}.`;
  const tool = inv.approvals?.pending.find((x) => x.toolCallId === c.c)?.tool ?? c.c;
  const decided = { toolCallId: c.c, tool, approved: c.a === 'approve', by };
  return reply({ ephemeral_text: done, ...(await updateFor(deps, inv.id, c.p, decided)) });
}

async function verdict(deps: ActionsDeps, inv: Investigation, user: string, v: 'correct' | 'wrong') {
  const result = await deps.actions.feedback(inv, { verdict: v, by: { via: 'mattermost', user } });
  if (result.status !== 200) return tell(`Not recorded: ${errorOf(result)}.`);
  deps.log.info({ id: inv.id, user, verdict: v }, 'verdict from Mattermost');
  if (!result.body.changed) return tell('You had already said so.');
  return tell(
    v === 'correct'
      ? 'Recorded: you said the analysis was correct. Thank you.'
      : 'Recorded: you said the analysis was wrong. Thank you.',
  );
}

/** Re-run only the run the button was rendered for: a replayed (or late) click re-runs nothing. */
async function rerun(deps: ActionsDeps, inv: Investigation, c: ActionContext, by: DecidedBy) {
  if (c.r !== (inv.run ?? 1)) return tell(`Already re-run (run ${inv.run ?? 1} is the latest).`);
  const result = await deps.actions.rerun(inv);
  if (result.status !== 202) return tell(`Not re-run: ${errorOf(result)}.`);
  deps.log.info({ id: inv.id, user: by.user, run: result.body.run }, 'investigation re-run from Mattermost');
  await deps.actions.refresh(inv.id);
  return reply({ ephemeral_text: `Re-run by ${by.name ?? by.user}.`, ...(await updateFor(deps, inv.id, c.p)) });
}

/**
 * The post re-rendered from the investigation as it now is, signed for the same post; the decision just taken is
 * shown even when the run has already resumed (its pause cleared, its tool call not yet recorded).
 */
async function updateFor(
  deps: ActionsDeps,
  id: string,
  postId: string,
  decided?: DestinationView['decided'][number],
): Promise<Pick<Answer, 'update'>> {
  const inv = await deps.actions.get(id);
  if (!inv) return {};
  const decisions = new Map<string, ApprovalDecision>();
  for (const p of inv.approvals?.pending ?? []) {
    const d = await deps.actions.decisionOf(inv, p.toolCallId);
    if (d) decisions.set(p.toolCallId, d);
  }
  const view = destinationView(inv, 'updated', deps.publicUrl ? { publicUrl: deps.publicUrl } : {}, decisions);
  const shown = view.pending.some((p) => p.decision) || view.decided.some((d) => d.toolCallId === decided?.toolCallId);
  if (decided && !shown) view.decided.push(decided);
  const msg = renderReply(view, `rca:${inv.id}`, { url: deps.actionUrl, secret: deps.secret, postId });
  return { update: msg };
}

async function alreadyDecided(deps: ActionsDeps, inv: Investigation, toolCallId: string): Promise<string | null> {
  const d = await deps.actions.decisionOf(inv, toolCallId);
  if (!d) return null;
  const by = d.decidedBy;
  return `Already ${d.approved ? 'approved' : 'denied'} by ${by ? `${by.name ?? by.user} (${by.via})` : 'someone'}.`;
}

function errorOf(r: DecideReply): string {
  return typeof r.body.error === 'string' ? r.body.error : `refused (${r.status})`;
}
