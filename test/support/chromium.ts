import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Chromium {
  readonly context: BrowserContext;
  /** A new tab; what the page logs and throws goes to `errors` / `console`. */
  newPage(): Promise<Page>;
  /** Uncaught page errors and console errors of every page, for assertions. */
  readonly errors: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium driven by playwright-core, with a fresh profile that is removed on close. Browser
 * tests share this so every one of them launches the same way (sandbox off for root in CI, no GPU, no
 * background traffic).
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<Chromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'cohort-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    ...(options.viewport ? { viewport: options.viewport } : {}),
    timeout: 60_000,
  });
  const errors: string[] = [];
  const watch = (page: Page): void => {
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return {
    context,
    errors,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
