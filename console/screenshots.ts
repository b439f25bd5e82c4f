/**
 * `npm run console:screenshots`: the pictures of docs/console/, taken in Chromium from a real
 * server with a little traffic (simulated carrier, then an SMPP link to the SMSC simulator).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createSmscSimulator } from '../src/carriers/smpp/smsc/index.js';
import { ADMIN, KEY, api, startConsoleServer, type ConsoleServer } from '../test/console/harness.js';
import { launchChromium } from './chromium.js';

const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function shoot(page: Page, name: string, size = LAPTOP) {
  await page.setViewportSize(size);
  // Let live views settle and fonts render before the picture.
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  process.stdout.write(`docs/console/${name}.png\n`);
}

async function signIn(page: Page, s: ConsoleServer, label: 'API key' | 'Admin token', secret: string) {
  await page.goto(s.console);
  await page.getByLabel(label, { exact: true }).fill(secret);
  await page.getByRole('button', { name: `Sign in with ${label.toLowerCase()}` }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function send(s: ConsoleServer, body: Record<string, unknown>) {
  return api<{ messageID: number }>(s.origin, KEY, 'POST', '/v1/sms/message', { from: 'Acme', ...body });
}

async function simulatorViews(page: Page) {
  // Webhooks to a closed port fail fast, so the log shows attempts and a replay button.
  const s = await startConsoleServer({ SMSGW_SIM_DELAY_MS: '300', SMSGW_WEBHOOK_RETRY: '1s' });
  try {
    const account = await api<{ accountID: number }>(s.origin, KEY, 'GET', '/v1/account');
    await api(s.origin, ADMIN, 'PATCH', `/admin/v1/accounts/${account.accountID}`, {
      callback_url: 'http://127.0.0.1:9/dlr',
      delivery_report: 'summary',
      inbound_url: 'http://127.0.0.1:9/inbound',
    });
    await api(s.origin, ADMIN, 'POST', `/admin/v1/accounts/${account.accountID}/numbers`, {
      msisdn: '+61491570999',
      ref: 'support',
    });
    await api(s.origin, ADMIN, 'POST', `/admin/v1/accounts/${account.accountID}/senders`, { sender: 'Acme' });
    await api(s.origin, ADMIN, 'POST', '/admin/v1/accounts', {
      name: 'shop',
      credits: 1000,
      timezone: 'Europe/London',
    });
    const big = await send(s, {
      to: ['+61491570150', '+61491570151', '+61491570155', '+61491570156', '+61491570157', '+61491570158'],
      body: 'Your order has shipped. Track it at https://example.com/t/123',
      ref: 'order-123',
    });
    await send(s, { to: ['+61491570160'], body: 'Your code is 4821', ref: 'otp' });
    await send(s, {
      to: ['+61491570170', '+61491570171'],
      body: 'Sale starts Monday',
      send_at: '2030-01-01T09:00:00Z',
      paused: true,
      ref: 'campaign-7',
    });
    for (const [from, body] of [
      ['+61400000001', 'Yes, please deliver after 5pm'],
      ['+61400000002', 'STOP'],
    ]) {
      await api(s.origin, ADMIN, 'POST', '/admin/v1/simulator/inbound', { from, to: '+61491570999', body });
    }
    await new Promise((r) => setTimeout(r, 3_000));

    await page.goto(s.console);
    await shoot(page, 'sign-in');
    await signIn(page, s, 'API key', KEY);
    await page.getByRole('link', { name: `Message ${big.messageID}` }).waitFor();
    await shoot(page, 'messages');
    await shoot(page, 'messages-phone', PHONE);
    await page.goto(`${s.console}#/messages/${big.messageID}`);
    await page.getByRole('region', { name: 'Recipients' }).getByText('delivered').first().waitFor();
    await shoot(page, 'message');
    await page.goto(`${s.console}#/send`);
    await page.getByLabel('Recipients', { exact: true }).fill('+61491570150\n+61491570151');
    await page.getByLabel('Sender', { exact: true }).fill('Acme');
    await page
      .getByLabel('Message', { exact: true })
      .fill('Your table for 4 is booked — see you at 7 “sharp”!');
    await shoot(page, 'send');
    await shoot(page, 'send-phone', PHONE);
    for (const view of ['inbound', 'webhooks', 'account']) {
      await page.goto(`${s.console}#/${view}`);
      await page.waitForLoadState('networkidle');
      await shoot(page, view);
    }

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, s, 'Admin token', ADMIN);
    // Traffic while the dashboard draws: a few messages a second for a while.
    const traffic = (async () => {
      for (let i = 0; i < 40; i++) {
        await send(s, {
          to: [`+6149157${String(1000 + i * 7).padStart(4, '0')}`, '+61491570150'],
          body: `Batch ${i}`,
        });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    await page.waitForTimeout(12_000);
    await traffic;
    await shoot(page, 'dashboard');
    await page.goto(`${s.console}#/accounts`);
    await page.getByRole('link', { name: 'shop' }).waitFor();
    await shoot(page, 'accounts');
    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: /^shop/ }).waitFor();
    await shoot(page, 'account-admin');
  } finally {
    await s.stop();
  }
}

async function smppViews(page: Page) {
  const smsc = await createSmscSimulator({ receiptDelayMs: 200 });
  const s = await startConsoleServer({ SMSGW_CARRIER: 'smpp' });
  try {
    for (const name of ['telco-a', 'telco-b']) {
      await api(s.origin, ADMIN, 'POST', '/admin/v1/connectors', {
        name,
        host: smsc.host,
        port: smsc.port,
        system_id: 'smsgw',
        password: 'secret',
        window: 20,
        throughput: 50,
      });
    }
    await api(s.origin, ADMIN, 'POST', '/admin/v1/routes', { prefix: '+61', connector: 'telco-a' });
    await api(s.origin, ADMIN, 'POST', '/admin/v1/routes', {
      prefix: '+',
      connector: 'telco-b',
      priority: 1,
    });
    await signIn(page, s, 'Admin token', ADMIN);
    await page.goto(`${s.console}#/connectors`);
    await page
      .locator('tr[data-connector="telco-b"]')
      .getByText('bound', { exact: true })
      .waitFor({ timeout: 20_000 });
    await send(s, { to: ['+61491570150', '+61491570151', '+4915112345678'], body: 'hello over SMPP' });
    await page.waitForTimeout(2_500);
    await shoot(page, 'connectors');
  } finally {
    await s.stop();
    await smsc.close();
  }
}

mkdirSync(OUT, { recursive: true });
const browser = await launchChromium();
try {
  const page = await browser.context.newPage();
  await simulatorViews(page);
  await smppViews(page);
} finally {
  await browser.close();
}
