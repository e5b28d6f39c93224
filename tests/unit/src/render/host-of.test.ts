import { describe, expect, it } from 'vitest';
import { hostOf } from '../../../../src/render/sanitize-markdown.js';

describe('hostOf', () => {
  it('gives the lowercase host of an http or https URL', () => {
    expect(hostOf('https://Grafana.Example.COM:3000/d/x?y=1')).toBe('grafana.example.com');
    expect(hostOf('http://10.0.0.1/')).toBe('10.0.0.1');
  });

  it('gives null for another scheme or what is not a URL', () => {
    expect(hostOf('javascript:alert(1)')).toBeNull();
    expect(hostOf('ftp://files.example.com/a')).toBeNull();
    expect(hostOf('not a url')).toBeNull();
    expect(hostOf('')).toBeNull();
  });
});
