import { describe, expect, it } from 'vitest';
import { signContext, verifyContext } from '../../../../destinations/mattermost/action-context.js';

const SECRET = 'k'.repeat(40);
const base = { i: 'inv-1', a: 'approve' as const, c: 'call-1', p: 'post1' };

describe('Mattermost action contexts', () => {
  it('a context signed with the secret verifies for its own post', () => {
    const ctx = signContext(SECRET, base);
    expect(ctx.s).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyContext(SECRET, ctx, 'post1')).toEqual({ ok: true, context: ctx });
  });

  it.each([
    ['another secret', (c: Record<string, unknown>) => c, 'x'.repeat(40), 'post1', 'signature mismatch'],
    ['another post', (c: Record<string, unknown>) => c, SECRET, 'post2', 'the context was signed for another post'],
    ['a changed call', (c: Record<string, unknown>) => ({ ...c, c: 'call-2' }), SECRET, 'post1', 'signature mismatch'],
    ['a changed action', (c: Record<string, unknown>) => ({ ...c, a: 'deny' }), SECRET, 'post1', 'signature mismatch'],
    ['a changed run', (c: Record<string, unknown>) => ({ ...c, r: 2 }), SECRET, 'post1', 'signature mismatch'],
    ['no signature', ({ s: _s, ...c }: Record<string, unknown>) => c, SECRET, 'post1', 'no signature in the context'],
    [
      'an unknown action',
      (c: Record<string, unknown>) => ({ ...c, a: 'delete' }),
      SECRET,
      'post1',
      'the context names no investigation, post or known action',
    ],
  ])('refuses %s', (_what, change, secret, post, reason) => {
    const ctx = change(signContext(SECRET, base) as unknown as Record<string, unknown>);
    expect(verifyContext(secret, ctx, post)).toEqual({ ok: false, reason });
  });

  it('refuses what is not a context', () => {
    expect(verifyContext(SECRET, null, 'post1')).toEqual({ ok: false, reason: 'no context' });
    expect(verifyContext(SECRET, 'x', 'post1')).toEqual({ ok: false, reason: 'no context' });
  });
});
