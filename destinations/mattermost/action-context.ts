import { createHmac, timingSafeEqual } from 'node:crypto';

/** The buttons Lestrade puts on a post: what the callback dispatches on. */
export const ACTIONS = ['approve', 'deny', 'rerun', 'correct', 'wrong'] as const;
export type ActionKind = (typeof ACTIONS)[number];

/**
 * A button's `integration.context`: the investigation, the action, the call (approve, deny), the run (re-run),
 * the post it sits on, and `s`, an HMAC-SHA256 of all of them with destinations.mattermost.actionSecret.
 * Mattermost signs nothing it sends back and keeps a button's context on the server (clients never see it), so a
 * context whose HMAC checks out was written by us, for that post; the post id in the callback must match it.
 */
export interface ActionContext {
  i: string;
  a: ActionKind;
  c?: string;
  r?: number;
  p: string;
  s: string;
}

export type Unsigned = Omit<ActionContext, 's'>;

function mac(secret: string, c: Unsigned): string {
  const fields = [c.i, c.a, c.c ?? '', c.r === undefined ? '' : String(c.r), c.p];
  return createHmac('sha256', secret).update(JSON.stringify(fields)).digest('hex');
}

export function signContext(secret: string, c: Unsigned): ActionContext {
  return { ...c, s: mac(secret, c) };
}

export type ContextCheck = { ok: true; context: ActionContext } | { ok: false; reason: string };

/** Checks a callback's context against the secret and the post the click came from. */
export function verifyContext(secret: string, raw: unknown, postId: string | undefined): ContextCheck {
  if (!raw || typeof raw !== 'object') return { ok: false, reason: 'no context' };
  const c = raw as Partial<Record<keyof ActionContext, unknown>>;
  if (typeof c.s !== 'string' || !/^[0-9a-f]{64}$/.test(c.s))
    return { ok: false, reason: 'no signature in the context' };
  if (typeof c.i !== 'string' || typeof c.p !== 'string' || !ACTIONS.includes(c.a as ActionKind))
    return { ok: false, reason: 'the context names no investigation, post or known action' };
  if (c.c !== undefined && typeof c.c !== 'string') return { ok: false, reason: 'bad call id' };
  if (c.r !== undefined && typeof c.r !== 'number') return { ok: false, reason: 'bad run' };
  const context: ActionContext = {
    i: c.i,
    a: c.a as ActionKind,
    p: c.p,
    s: c.s,
    ...(typeof c.c === 'string' ? { c: c.c } : {}),
    ...(typeof c.r === 'number' ? { r: c.r } : {}),
  };
  const want = Buffer.from(mac(secret, context), 'hex');
  if (!timingSafeEqual(want, Buffer.from(context.s, 'hex'))) return { ok: false, reason: 'signature mismatch' };
  if (postId !== context.p) return { ok: false, reason: 'the context was signed for another post' };
  return { ok: true, context };
}
