import { chromium, type Browser } from 'playwright-core';
import { requireBinary } from './require-binary.js';

/**
 * Debian's chromium, headless, driven by playwright-core (which never downloads a browser).
 * No network beyond loopback is needed: the dashboard fetches nothing from the internet.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = requireBinary('chromium');
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Laptop and phone widths, for the screenshots the docs show. */
export const VIEWPORTS = { laptop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
