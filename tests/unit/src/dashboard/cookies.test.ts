import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { readCookie, sameOrigin, sessionCookie } from '../../../../src/dashboard/cookies.js';

function req(headers: Record<string, string>, secure = false): Request {
  return { secure, get: (name: string) => headers[name.toLowerCase()] } as unknown as Request;
}

describe('dashboard cookies', () => {
  it('reads one cookie among several, by exact name', () => {
    expect(readCookie('a=1; lestrade_session=abc; b=2', 'lestrade_session')).toBe('abc');
    expect(readCookie('xlestrade_session=abc', 'lestrade_session')).toBeUndefined();
    expect(readCookie(undefined, 'lestrade_session')).toBeUndefined();
  });

  it('sets HttpOnly and SameSite=Strict always, Secure only over https', () => {
    const plain = sessionCookie(req({ host: 'h' }), 'v', 60);
    expect(plain).toBe('lestrade_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(sessionCookie(req({ host: 'h' }, true), 'v', 60)).toMatch(/; Secure$/);
    expect(sessionCookie(req({ host: 'h', 'x-forwarded-proto': 'https' }), 'v', 60)).toMatch(/; Secure$/);
  });

  it('accepts only an Origin naming this host (either scheme: a proxy may hide which)', () => {
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'http://lestrade:8080' }))).toBe(true);
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'http://evil.example' }))).toBe(false);
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'https://lestrade:8080' }))).toBe(true);
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'http://lestrade:8081' }))).toBe(false);
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'http://lestrade:8080.evil.example' }))).toBe(false);
    expect(sameOrigin(req({ host: 'lestrade:8080', origin: 'null' }))).toBe(false);
    expect(sameOrigin(req({ host: 'lestrade:8080' }))).toBe(false);
    expect(sameOrigin(req({ host: 'lestrade', origin: 'https://lestrade', 'x-forwarded-proto': 'https' }))).toBe(true);
  });
});
