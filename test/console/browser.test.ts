import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type Browser } from '../../console/chromium.js';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { ADMIN, KEY, api, startConsoleServer, type ConsoleServer } from './harness.js';

/**
 * The web console in a real Chromium against a real server: what a person does, by the labels
 * and roles they see. Every view is also scanned with axe-core.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => browser?.close());

async function signIn(page: Page, origin: string, label: 'API key' | 'Admin token', secret: string) {
  await page.goto(`${origin}/console/`);
  await page.getByLabel(label, { exact: true }).fill(secret);
  await page.getByRole('button', { name: `Sign in with ${label.toLowerCase()}` }).click();
}

/** axe-core on the page as it is now: no serious or critical violation. */
async function expectAccessible(page: Page, view: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
  expect(bad, `accessibility of ${view}`).toEqual([]);
}

describe('the console with the simulated carrier', () => {
  let s: ConsoleServer;
  let page: Page;
  beforeAll(async () => {
    s = await startConsoleServer();
    page = await browser.context.newPage();
    // The cancel button asks first; the person says yes.
    page.on('dialog', (dialog) => void dialog.accept());
  }, 120_000);
  afterAll(async () => {
    await page?.close();
    await s?.stop();
  });

  it('is served at /console/, and /console redirects there', async () => {
    const bare = await fetch(`${s.origin}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
    const index = await fetch(s.console);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="([^"]+\.js)"/.exec(await index.text())![1]!;
    const asset = await fetch(`${s.origin}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect((await fetch(`${s.origin}/console/assets/nothing.js`)).status).toBe(404);
  });

  it('signs in with an API key, says when a key is wrong, and signs out', async () => {
    await page.goto(s.console);
    await expectAccessible(page, 'sign-in');
    await signIn(page, s.origin, 'API key', 'not-a-key');
    await page.getByText('That API key was not accepted').waitFor();

    await signIn(page, s.origin, 'API key', KEY);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).toContain(KEY);
    expect(await page.evaluate<string>('JSON.stringify(localStorage)')).not.toContain(KEY);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
  });

  it('sends from the form, showing encoding and parts as it is typed, and the message is delivered', async () => {
    await signIn(page, s.origin, 'API key', KEY);
    await page.getByRole('link', { name: 'Send', exact: true }).click();
    await page.getByLabel('Recipients', { exact: true }).fill('+61491570150\n+61491570151, +61491570150');
    await page.getByLabel('Sender', { exact: true }).fill('Acme');
    const body = page.getByLabel('Message', { exact: true });
    await body.fill('a'.repeat(161));
    expect(await page.getByTestId('encoding').textContent()).toBe('GSM-7');
    expect(await page.getByTestId('parts').textContent()).toBe('2');
    expect(await page.getByTestId('cost').textContent()).toBe('4');
    await body.fill('Your code is 1234 ✓');
    expect(await page.getByTestId('encoding').textContent()).toBe('UCS-2');
    expect(await page.getByTestId('characters').textContent()).toBe('19');
    expect(await page.getByTestId('forcing').textContent()).toContain('U+2713');
    await expectAccessible(page, 'send');

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('heading', { name: /^Message \d+$/ }).waitFor();
    const recipients = page.getByRole('region', { name: 'Recipients' });
    await recipients.getByText('delivered').nth(1).waitFor({ timeout: 15_000 });
    expect(await recipients.getByRole('row').count()).toBe(3);
    await expectAccessible(page, 'message');
  });

  it('lists messages with their messageID, and opens one to show every recipient', async () => {
    const { messageID } = await api<{ messageID: number }>(s.origin, KEY, 'POST', '/v1/sms/message', {
      to: ['+61491570160', '+61491570165', '+61491570166'],
      from: 'Acme',
      body: 'three outcomes',
      ref: 'three',
    });
    await page.getByRole('link', { name: 'Messages', exact: true }).click();
    const link = page.getByRole('link', { name: `Message ${messageID}` });
    await link.waitFor();
    expect(await link.textContent()).toBe(String(messageID));
    await expectAccessible(page, 'messages');

    await link.click();
    const rows = page.getByRole('region', { name: 'Recipients' }).getByRole('row');
    await rows
      .filter({ hasText: '+61491570166' })
      .filter({ hasText: 'rejected' })
      .waitFor({ timeout: 15_000 });
    await rows.filter({ hasText: '+61491570165' }).filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
    await rows.filter({ hasText: '+61491570160' }).filter({ hasText: 'delivered' }).waitFor();
    expect(await rows.filter({ hasText: '+61491570165' }).textContent()).toContain('440');
  });

  it('cancels a scheduled message', async () => {
    const { messageID } = await api<{ messageID: number }>(s.origin, KEY, 'POST', '/v1/sms/message', {
      to: ['+61491570170', '+61491570171'],
      from: 'Acme',
      body: 'later',
      send_at: '2030-01-01T09:00:00Z',
    });
    await page.goto(`${s.console}#/messages/${messageID}`);
    await page.getByRole('button', { name: 'Cancel message' }).click();
    await page.getByText('Cancelled.').waitFor();
    const rows = page.getByRole('region', { name: 'Recipients' }).getByRole('row');
    await rows.filter({ hasText: 'cancelled' }).nth(1).waitFor();
    const read = await api<{ status: Record<string, number> }>(
      s.origin,
      KEY,
      'GET',
      `/v1/sms/message/${messageID}/status`,
    );
    expect(read.status.cancelled).toBe(2);
  });

  it('shows inbound messages, webhook deliveries and the balance, accessibly', async () => {
    for (const [view, heading] of [
      ['inbound', 'Inbound messages'],
      ['webhooks', 'Webhook deliveries'],
      ['account', 'Account'],
    ] as const) {
      await page.goto(`${s.console}#/${view}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await expectAccessible(page, view);
    }
    expect(await page.getByTestId('balance').textContent()).toBe('Unlimited');
  });

  it('lets the operator create an account and a key, and that key signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, s.origin, 'Admin token', 'wrong-token');
    await page.getByText('That admin token was not accepted').waitFor();
    await signIn(page, s.origin, 'Admin token', ADMIN);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByText(/Updated/).waitFor();
    await expectAccessible(page, 'dashboard');

    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByText('Create an account').click();
    await page.getByLabel('Name', { exact: true }).fill('shop');
    await page.getByLabel('Credits', { exact: true }).fill('100');
    await page.getByRole('button', { name: 'Create account' }).click();
    const firstKey = await page.getByTestId('shown-once').textContent();
    expect(firstKey).toMatch(/^sk_/);
    await expectAccessible(page, 'accounts');

    await page.getByRole('link', { name: /^Open account/ }).click();
    await page.getByRole('heading', { name: /^shop/ }).waitFor();
    await page.getByLabel('Credits to add').fill('25');
    await page.getByRole('button', { name: 'Add credits' }).click();
    await page.getByTestId('credits').filter({ hasText: '125' }).waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('shown-once').textContent())!;
    expect(key).toMatch(/^sk_/);
    expect(key).not.toBe(firstKey);
    // The key is shown before the list of keys has been read again: wait for its new row.
    const keyRows = page.getByRole('region', { name: 'API keys' }).getByRole('row');
    await keyRows.nth(2).waitFor();
    expect(await keyRows.count()).toBe(3);
    await expectAccessible(page, 'account (operator)');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, s.origin, 'API key', key);
    await page.getByText('Account: shop').waitFor();
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    expect(await page.getByTestId('balance').textContent()).toBe('125');
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Send', exact: true }).click();
    await page.getByLabel('Message', { exact: true }).fill('hi');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'send at phone width');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('the console with an SMPP connector', () => {
  let smsc: SmscSimulator;
  let s: ConsoleServer;
  beforeAll(async () => {
    smsc = await createSmscSimulator({ receiptDelayMs: 50 });
    s = await startConsoleServer({ SMSGW_CARRIER: 'smpp' });
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    await smsc?.close();
  });

  it("shows a connector's live state and edits it", async () => {
    await api(s.origin, ADMIN, 'POST', '/admin/v1/connectors', {
      name: 'telco',
      host: smsc.host,
      port: smsc.port,
      system_id: 'smsgw',
      password: 'secret',
    });
    await api(s.origin, ADMIN, 'POST', '/admin/v1/routes', { prefix: '+', connector: 'telco' });
    const page = await browser.context.newPage();
    try {
      await signIn(page, s.origin, 'Admin token', ADMIN);
      await page.getByRole('link', { name: 'Connectors', exact: true }).click();
      const row = page.locator('tr[data-connector="telco"]');
      // The live state refreshes by itself until the link is bound.
      await row.getByText('bound', { exact: true }).waitFor({ timeout: 20_000 });
      expect(await row.textContent()).toContain(`${smsc.host}:${smsc.port}`);
      await expectAccessible(page, 'connectors');

      await row.getByRole('button', { name: 'Edit connector telco' }).click();
      await page.getByLabel('Window', { exact: true }).fill('25');
      await page.getByRole('button', { name: 'Save connector' }).click();
      await page.getByText('Connector telco saved').waitFor();
      await row.getByText('of 25').waitFor();

      await api(s.origin, KEY, 'POST', '/v1/sms/message', { to: ['+61491570150'], from: 'Acme', body: 'hi' });
      await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
      // The connectors page has a region of that name too: look only once the dashboard shows.
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await page.getByRole('region', { name: 'Connectors' }).getByText('telco').waitFor();
      await page.getByRole('heading', { name: 'Connector throughput' }).waitFor({ timeout: 10_000 });
    } finally {
      await page.close();
    }
  });
});
