/** Headless Chromium for the browser tests: the machine's Chromium, quiet (no first-run, no background network, no updates). */
import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from './requirements.js';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
