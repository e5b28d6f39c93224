/**
 * JSON.parse, except that integers beyond Number.MAX_SAFE_INTEGER come back as their exact
 * decimal string. OpsGenie-style payloads carry `alert.updatedAt` in epoch NANOseconds
 * (~1.6e18): parsed as a JS number its last digits are silently rounded away.
 *
 * One pass over the text: string literals are skipped (escapes honoured), and any integer token
 * outside them that is not a safe integer is wrapped in quotes; the result is parsed normally.
 * Only value positions can hold a number token in valid JSON, so quoting keeps it valid.
 * Throws SyntaxError exactly when JSON.parse would.
 */
export function parseLosslessJson(text: string): unknown {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i);
    } else if (c === MINUS || isDigit(c)) {
      const start = i;
      while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
      const token = text.slice(start, i);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(copied, start)}"${token}"`;
        copied = i;
      }
    } else {
      i++;
    }
  }
  return JSON.parse(copied === 0 ? text : out + text.slice(copied));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Digits, sign, decimal point and exponent: every character a JSON number token can hold. */
function isNumberChar(c: number): boolean {
  return isDigit(c) || c === MINUS || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** The index just past the string literal that opens at `i`. */
function endOfString(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (c === QUOTE) return j + 1;
    else j++;
  }
  return j;
}
