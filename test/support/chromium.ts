import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Flags for Debian's chromium on a machine with no network beyond loopback. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Debian chromium with a fresh profile (removed on close). `preferences` seeds the
 * profile's Default/Preferences, e.g. to allow third-party cookies like a default Chrome.
 */
export async function launchChromium(preferences?: object): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  if (preferences) {
    fs.mkdirSync(path.join(profile, 'Default'));
    fs.writeFileSync(path.join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
  }
  const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
