import { PermanentError } from '../errors.js';
import { isWellFormed } from '../text.js';

/**
 * A vendor-supplied value as one URL path segment. A string with a lone UTF-16 surrogate has no
 * UTF-8 form, so no URL can name it (encodeURIComponent throws): no vendor API can hold such an
 * id, and asking again will not help.
 */
export function pathSegment(value: string): string {
  if (!isWellFormed(value))
    throw new PermanentError('a value cannot be written in a URL (it holds a lone UTF-16 surrogate)');
  return encodeURIComponent(value);
}

/** The same for a link we only show: null when the value cannot be written in a URL. */
export function linkSegment(value: string): string | null {
  return isWellFormed(value) ? encodeURIComponent(value) : null;
}
