import { describe, expect, it } from 'vitest';
import { withoutUrlQueries } from '../../../../src/tools/url-without-query.js';

describe('withoutUrlQueries', () => {
  it("drops every URL's query and fragment, keeping its scheme, user, host and path", () => {
    expect(
      withoutUrlQueries('at http://u:***@svc:80/a/b?token=x&y=1 and https://h/p#sig=z, then ftp://f/?k (done)'),
    ).toBe('at http://u:***@svc:80/a/b and https://h/p then ftp://f/ (done)');
  });

  it('stops at the end of the URL: quotes and spaces end it', () => {
    expect(withoutUrlQueries('"http://h/x?k=v" next')).toBe('"http://h/x" next');
  });

  it('leaves text without URLs alone', () => {
    expect(withoutUrlQueries('what? a #1 question')).toBe('what? a #1 question');
  });
});
