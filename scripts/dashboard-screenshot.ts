/**
 * `npx tsx scripts/dashboard-screenshot.ts [--minutes 6]` after `npm run build`: each query of
 * docs/grafana-dashboard.json checked against, and drawn from, live traffic (docs/monitoring/).
 * Grafana is not installable on the build machine: Debian's Prometheus (`apt-get install
 * prometheus chromium`) scrapes smsgw (dist/, SMPP to `smsgw smsc-sim`) and draws the queries.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from '../console/chromium.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const [ADMIN, KEY] = ['dashboard-admin', 'dashboard-key'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Query = ReturnType<typeof dashboardQueries>[number];

/** Every panel target in dashboard order, with Grafana's variables made plain PromQL. */
function dashboardQueries() {
  const { panels } = JSON.parse(readFileSync(join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as {
    panels: { type: string; title: string; targets?: { expr: string; legendFormat?: string }[] }[];
  };
  let row = '';
  return panels.flatMap((panel) => {
    if (panel.type === 'row') row = panel.title;
    const targets = panel.targets ?? [];
    return targets.map((t) => ({
      row,
      title: panel.title + (targets.length > 1 ? ` — ${t.legendFormat}` : ''),
      expr: t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*'),
    }));
  });
}

async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

function start(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'inherit' });
  return Object.assign(child, { exited: new Promise((r) => child.once('exit', r)) });
}

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 300; i++) {
    if (await check().catch(() => false)) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function call(url: string, token: string, method = 'GET', body?: unknown) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // JSON.stringify(undefined) is undefined: no body.
  const r = await fetch(url, { method, headers, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

/**
 * One bulk send a second, swinging between about 150 and 450 recipients (all the simulator's
 * outcomes, by last digit), a list query, and now and then a refused request and an inbound SMS.
 */
async function drive(api: string, smscHttp: string, stop: () => boolean) {
  for (let second = 0, n = 0; !stop(); second++) {
    const size = Math.round(300 + 150 * Math.sin(second / 30));
    const to = Array.from({ length: size }, () => `+4670${String(n++).padStart(8, '0')}`);
    const mo = { from: `+4673${String(second).padStart(7, '0')}`, to: '+46700000999', body: 'Hello back' };
    await Promise.all([
      call(`${api}/v1/sms/message`, KEY, 'POST', { to, from: 'Shop', body: 'Your order has shipped' }),
      call(`${api}/v1/sms/messages?limit=20`, KEY),
      second % 3 === 0 && call(`${api}/v1/sms/message`, KEY, 'POST', { to: ['nope'], body: 'x' }),
      second % 7 === 0 && call(`${api}/v1/account`, 'wrong-key'),
      second % 2 === 0 && call(`${smscHttp}/mo`, '', 'POST', mo),
      sleep(1000),
    ]);
  }
}

async function main() {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '6' } } });
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-dashboard-'));
  const ports = [freePort(), freePort(), freePort(), freePort(), freePort()] as const;
  const [apiPort, smpp, smscHttp, hookPort, promPort] = await Promise.all(ports);
  const local = (port: number) => `http://127.0.0.1:${port}`;
  const [api, hook, prom] = [local(apiPort), local(hookPort), local(promPort)];
  // The customer's receiver: 2% of webhooks answered 503 (retried), 1% 410 (given up).
  const receiver = createServer((req, res) => {
    const roll = Math.random();
    req.resume().on('end', () => res.writeHead(roll < 0.02 ? 503 : roll < 0.03 ? 410 : 200).end());
  }).listen(hookPort, '127.0.0.1');
  const targets = `static_configs: [{ targets: ['127.0.0.1:${apiPort}'] }]`;
  const config = `global: { scrape_interval: 5s }\nscrape_configs: [{ job_name: smsgw, ${targets} }]\n`;
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const prometheus = `--config.file=${dir}/prometheus.yml --storage.tsdb.path=${dir}/tsdb --web.listen-address=127.0.0.1:${promPort} --log.level=warn`;
  const sim = `smsc-sim --port ${smpp} --http-port ${smscHttp} --receipt-delay-ms 800 --window 50`;
  const children = [
    start('node', ['dist/cli/main.js', ...sim.split(' '), '--log-level', 'warn']),
    start('node', ['dist/main.js'], {
      SMSGW_PORT: `${apiPort}`,
      SMSGW_DATABASE_URL: `sqlite:${join(dir, 'smsgw.sqlite')}`,
      SMSGW_CARRIER: 'smpp',
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_BOOTSTRAP_KEY: KEY,
      SMSGW_WEBHOOK_ALLOW_PRIVATE: 'true',
      SMSGW_WEBHOOK_RETRY: '2s,5s',
      SMSGW_LOG_LEVEL: 'warn',
    }),
    start('prometheus', prometheus.split(' ')),
  ];
  let stopped = false;
  try {
    await until(async () => (await fetch(`${api}/readyz`)).ok, 'smsgw');
    const admin = async (method: string, path: string, body: unknown) => {
      const r = await call(`${api}/admin/v1${path}`, ADMIN, method, body);
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    };
    const smsc = { host: '127.0.0.1', port: smpp, system_id: 'smsgw', password: 'x' };
    await admin('POST', '/connectors', { name: 'sim', ...smsc });
    await admin('POST', '/routes', { prefix: '+', connector: 'sim' });
    const reports = { delivery_report: 'per_recipient_final', callback_url: `${hook}/dlr` };
    await admin('PATCH', '/accounts/1', { ...reports, inbound_url: `${hook}/inbound` });
    await admin('POST', '/accounts/1/numbers', { msisdn: '+46700000999' });
    const bound = async () => (await call(`${api}/admin/v1/connectors`, ADMIN)).text.includes('"bound":true');
    await until(bound, 'the SMPP bind');
    await until(async () => (await fetch(`${prom}/-/ready`)).ok, 'prometheus');
    const traffic = drive(api, local(smscHttp), () => stopped);
    process.stderr.write(`traffic for ${values.minutes} minutes…\n`);
    // A failed request (smsgw gone) ends the run at once.
    await Promise.race([sleep(Number(values.minutes) * 60_000), traffic]);
    const queries = dashboardQueries();
    for (const q of queries) {
      const r = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(q.expr)}`);
      const result = ((await r.json()) as { data?: { result: { metric: object }[] } }).data?.result ?? [];
      const labels = JSON.stringify(result.slice(0, 2).map((s) => s.metric)).slice(0, 120);
      const count = result.length === 0 ? 'NO DATA' : `${result.length} series`;
      process.stdout.write(`${count.padStart(9)}  ${q.row} / ${q.title}  ${labels}\n`);
    }
    await screenshots(prom, queries);
    stopped = true;
    await traffic;
  } finally {
    stopped = true;
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prometheus's graph page, one titled graph per query over the last 10 minutes. */
async function screenshots(prom: string, queries: Query[]) {
  // The classic graph page sorts a URL's parameters as strings (g10 before g2), so it reads at
  // most 10 graphs in order: whole dashboard rows, up to 10 graphs a picture.
  const pages: Query[][] = [];
  for (const row of new Set(queries.map((q) => q.row))) {
    const graphs = queries.filter((q) => q.row === row);
    const last = pages.at(-1);
    if (last && last.length + graphs.length <= 10) last.push(...graphs);
    else pages.push(graphs);
  }
  mkdirSync(join(ROOT, 'docs/monitoring'), { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    for (const [n, graphs] of pages.entries()) {
      const params = graphs.flatMap((q, i): [string, string][] => [
        [`g${i}.expr`, q.expr],
        [`g${i}.tab`, '0'],
        [`g${i}.range_input`, '10m'],
      ]);
      await page.goto(`${prom}/graph?${new URLSearchParams(params)}`);
      await page.waitForLoadState('networkidle');
      // Titles as on the dashboard; a fixed navigation bar would land mid-picture.
      const titles = graphs.map(
        (q, i) => `#graph_wrapper${i}::before { content: ${JSON.stringify(`${q.row} / ${q.title}`)} }`,
      );
      await page.addStyleTag({
        content: `nav.navbar { position: static !important } ${titles.join(' ')} .graph_wrapper::before { display: block; font-size: 1.5rem; margin: 24px 0 4px }`,
      });
      const file = `docs/monitoring/dashboard-live-${n + 1}.png`;
      await page.screenshot({ path: join(ROOT, file), fullPage: true });
      process.stdout.write(`${file}\n`);
    }
  } finally {
    await browser.close();
  }
}

await main();
