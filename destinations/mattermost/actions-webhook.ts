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
import { FIELD, openDialog } from './dialogs.js';

/**
 * What Mattermost POSTs to an action's integration URL (PostActionIntegrationRequest): who clicked, on which post,
 * and the context we put on the button. Objects are loose: Mattermost adds fields.
 */
const Callback = z.looseObject({
  user_id: z.string().min(1).max(64),
  post_id: z.string().min(1).max(64),
  channel_id: z.string().max(64).optional(),
  trigger_id: z.string().max(1000).optional(),
  context: z.record(z.string(), z.unknown()),
});
type CallbackBody = z.infer<typeof Callback>;

/** A dialog's submission (Deny's reason, Wrong's root cause): `state` is the button's signed context. */
const Submission = z.looseObject({
  type: z.literal('dialog_submission'),
  user_id: z.string().min(1).max(64),
  state: z.string().max(4000),
  cancelled: z.boolean().optional(),
  submission: z.record(z.string(), z.unknown()).nullish(),
});
type SubmissionBody = z.infer<typeof Submission>;

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
      if ((body as { type?: unknown }).type === 'dialog_submission') return onSubmission(deps, body as SubmissionBody);
      const p = body as CallbackBody;
      const check = verifyContext(deps.secret, p.context, p.post_id);
      if (!check.ok) return tell('This button is not one of Lestrade’s.');
      return onClick(deps, p, check.context);
    },
  };
}

function verifyBody(secret: string, raw: Buffer): Verdict {
  let doc: { context?: unknown; post_id?: unknown; type?: unknown; state?: unknown } | null;
  try {
    doc = JSON.parse(raw.toString('utf8')) as typeof doc;
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (doc?.type === 'dialog_submission') {
    const state = stateOf(doc.state);
    const checked = verifyContext(secret, state, typeof state?.p === 'string' ? state.p : undefined);
    return checked.ok ? { ok: true } : { ok: false, reason: `Mattermost dialog: ${checked.reason}` };
  }
  const postId = typeof doc?.post_id === 'string' ? doc.post_id : undefined;
  const check = verifyContext(secret, doc?.context, postId);
  return check.ok ? { ok: true } : { ok: false, reason: `Mattermost action: ${check.reason}` };
}

export function parseCallback(raw: Buffer): CallbackBody | SubmissionBody {
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError('body', `not JSON: ${(err as Error).message}`);
  }
  const parsed = ((doc as { type?: unknown } | null)?.type === 'dialog_submission' ? Submission : Callback).safeParse(
    doc,
  );
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.map(String).join('.') ?? '';
  throw new InputError(field || 'body', describeZodIssues(parsed.error.issues));
}

async function onClick(deps: ActionsDeps, p: CallbackBody, c: ActionContext): Promise<DeliveryOutcome> {
  const inv = await deps.actions.get(c.i);
  if (!inv) return tell(`No investigation ${c.i} (it may have expired).`);
  if (c.a === 'wrong' && p.trigger_id) return dialogFor(deps, p.trigger_id, c, null);
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
  const tool = inv.approvals?.pending.find((x) => x.toolCallId === c.c)?.tool ?? null;
  if (c.a === 'deny' && p.trigger_id) return dialogFor(deps, p.trigger_id, c, tool);
  return decideCall(deps, inv, c, by);
}

/** Approve, or Deny (with the reason a dialog gave): through the API's path, then every destination re-renders. */
async function decideCall(
  deps: ActionsDeps,
  inv: Investigation,
  c: ActionContext & { c?: string },
  by: DecidedBy,
  reason?: string,
): Promise<DeliveryOutcome> {
  if (!c.c) return tell('This button names no call.');
  const decision = {
    toolCallId: c.c,
    approved: c.a === 'approve',
    decidedBy: by,
    ...(reason ? { feedback: reason } : {}),
  };
  const result = await deps.actions.decide(inv, [decision]);
  if (result.status !== 202) return tell((await alreadyDecided(deps, inv, c.c)) ?? errorOf(result));
  await deps.actions.refresh(inv.id);
  const done = `${c.a === 'approve' ? 'Approved' : 'Denied'} by ${by.name ?? by.user}.`;
  const shownTool = inv.approvals?.pending.find((x) => x.toolCallId === c.c)?.tool ?? c.c;
  const decided = { toolCallId: c.c, tool: shownTool, approved: c.a === 'approve', by };
  return reply({ ephemeral_text: done, ...(await updateFor(deps, inv.id, c.p, decided)) });
}

async function verdict(
  deps: ActionsDeps,
  inv: Investigation,
  user: string,
  v: 'correct' | 'wrong',
  rootCause?: string,
) {
  const given = { verdict: v, by: { via: 'mattermost' as const, user }, ...(rootCause ? { rootCause } : {}) };
  const result = await deps.actions.feedback(inv, given);
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

async function dialogFor(deps: ActionsDeps, triggerId: string, c: ActionContext, tool: string | null) {
  const opened = await openDialog(deps.client, deps.actionUrl, triggerId, c, tool);
  return opened ? reply({}) : tell('Could not open the dialog; try again.');
}

/** Deny's reason or Wrong's root cause, submitted: the state's HMAC was checked; the same rules as a click. */
async function onSubmission(deps: ActionsDeps, p: SubmissionBody): Promise<DeliveryOutcome> {
  const check = verifyContext(deps.secret, stateOf(p.state), stateOf(p.state)?.p as string | undefined);
  if (!check.ok || p.cancelled) return reply({});
  const c = check.context;
  const inv = await deps.actions.get(c.i);
  const fail = (error: string): DeliveryOutcome => ({ kind: 'reply', status: 200, body: { error } });
  if (!inv) return fail(`No investigation ${c.i} (it may have expired).`);
  const text = (field: string) => {
    const v = p.submission?.[field];
    return typeof v === 'string' ? v.trim().slice(0, 2000) : '';
  };
  if (c.a === 'wrong') {
    const rootCause = text(FIELD.rootCause);
    if (!rootCause)
      return {
        kind: 'reply',
        status: 200,
        body: { errors: { [FIELD.rootCause]: 'Write what the actual root cause was.' } },
      };
    const out = await verdict(deps, inv, p.user_id, 'wrong', rootCause);
    return errorOfTell(out);
  }
  if (c.a !== 'deny') return reply({});
  const allowed = await deps.approvers.check(p.user_id);
  if (!allowed.ok) return fail(`Not allowed: ${allowed.why}.`);
  const by: DecidedBy = { via: 'mattermost', user: p.user_id, ...(allowed.name ? { name: allowed.name } : {}) };
  const earlier = c.c ? await alreadyDecided(deps, inv, c.c) : null;
  if (earlier) return fail(earlier);
  return errorOfTell(await decideCall(deps, inv, c, by, text(FIELD.reason) || undefined));
}

/** A dialog's answer: `{}` closes it; a refusal is shown in it as `error`. */
function errorOfTell(out: DeliveryOutcome): DeliveryOutcome {
  const body = out.kind === 'reply' ? (out.body as Answer) : {};
  const refused = !body.update && body.ephemeral_text && !/^(Recorded|Denied|Approved)/.test(body.ephemeral_text);
  return { kind: 'reply', status: 200, body: refused ? { error: body.ephemeral_text } : {} };
}

function stateOf(state: unknown): Record<string, unknown> | null {
  if (typeof state !== 'string') return null;
  try {
    const v: unknown = JSON.parse(state);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null; // not our state: refused by the caller as unsigned
  }
}
