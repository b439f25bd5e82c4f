import { createAccount, issueKey, updateAccount } from '../app/accounts.js';
import {
  accountDetails,
  accountView,
  listAccounts,
  addNumber,
  addSender,
  normaliseSenderArgument,
  numberView,
  parsePage,
  requireAccountById,
} from '../app/directory.js';
import { isDeliveryReportType, type DeliveryReportType } from '../domain/delivery-report.js';
import { NotFoundError, QueryError } from '../domain/errors.js';
import { normaliseMsisdn } from '../domain/msisdn.js';
import { migrate } from '../store/migrations/index.js';
import { connect } from '../store/connect.js';
import { credits, integer, nullable, optionalString, parse, requireString } from './args.js';
import { UsageError, print, withStore } from './context.js';
import { CONNECTOR_COMMANDS } from './connectors.js';
import { SMPP_USER_COMMANDS } from './smpp-users.js';
import { simulateInboundCommand } from './simulate.js';
import { SUPPRESSION_COMMANDS } from './suppressions.js';
import { WEBHOOK_COMMANDS } from './webhooks.js';
import type { Config } from '../config/config.js';
import type { WindowInput } from '../app/send-plan.js';

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(argv: string[], config: Config): Promise<void>;
}

const settingOptions = {
  timezone: { type: 'string' },
  credits: { type: 'string' },
  'any-sender': { type: 'boolean' },
  'callback-url': { type: 'string' },
  'inbound-url': { type: 'string' },
  'delivery-report': { type: 'string' },
  'rate-limit': { type: 'string' },
  'send-rate': { type: 'string' },
  'opt-out-keywords': { type: 'string' },
  'opt-out-reply': { type: 'string' },
  'smart-encoding': { type: 'string' },
  window: { type: 'string' },
} as const;

const SETTINGS_USAGE =
  '                      [--opt-out-keywords on|off] [--opt-out-reply TEXT|none] [--smart-encoding on|off]\n' +
  '                      [--window HH:MM-HH:MM@ZONE|none]   (ZONE: an IANA name or "recipient")';

/** `on` or `off`. */
function onOff(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new UsageError(`--${name} takes on or off`);
  return value === 'on';
}

/** `--window 09:00-20:00@recipient`, or `none` for no window; the values are checked as the API checks them. */
function windowOption(value: string | undefined): WindowInput | null | undefined {
  if (value === undefined || value === 'none') return value === 'none' ? null : undefined;
  const m = /^([^-@]+)-([^@]+)@(.+)$/.exec(value);
  if (!m) throw new UsageError('--window takes START-END@ZONE, e.g. 09:00-20:00@recipient, or none');
  return { start: m[1]!, end: m[2]!, timezone: m[3]! };
}

/** The compliance settings (decisions §17, §19, §20) of accounts create and update. */
function complianceOptions(values: Record<string, unknown>) {
  return {
    optOutKeywords: onOff(optionalString(values, 'opt-out-keywords'), 'opt-out-keywords'),
    optOutReply: nullable(optionalString(values, 'opt-out-reply')),
    smartEncoding: onOff(optionalString(values, 'smart-encoding'), 'smart-encoding'),
    window: windowOption(optionalString(values, 'window')),
  };
}

function deliveryReport(value: string | undefined): DeliveryReportType | null | undefined {
  const v = nullable(value);
  if (v === undefined || v === null) return v;
  if (!isDeliveryReportType(v))
    throw new UsageError(
      '--delivery-report is summary, detailed, per_recipient_final, per_recipient or none',
    );
  return v;
}

/** `--rate-limit 50` or `--rate-limit unlimited`. */
function rate(value: string | undefined, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'unlimited' || value === 'none') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number per second or "unlimited"`);
  return Number(value);
}

function positional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`${name} is required`);
  return value;
}

export const COMMANDS: Record<string, Command> = {
  migrate: {
    usage: 'smsgw migrate',
    summary: 'Apply pending database migrations and exit',
    async run(_argv, config) {
      const conn = connect(config.database);
      try {
        const { pino } = await import('pino');
        const applied = await migrate(conn, pino({ level: config.logLevel }));
        print({ applied });
      } finally {
        await conn.close();
      }
    },
  },

  'accounts create': {
    usage:
      'smsgw accounts create --name NAME [--timezone TZ] [--credits N|unlimited] [--any-sender]\n' +
      '                      [--callback-url URL] [--inbound-url URL] [--delivery-report TYPE]\n' +
      '                      [--rate-limit N] [--send-rate N]\n' +
      SETTINGS_USAGE,
    summary: 'Create an account and print it with its first API key (shown once)',
    async run(argv, config) {
      const { values } = parse(argv, { name: { type: 'string' }, ...settingOptions });
      const name = requireString(values, 'name');
      await withStore(config, async ({ store, now }) => {
        const { account, key } = await createAccount(
          store,
          {
            name,
            timezone: optionalString(values, 'timezone'),
            credits: credits(optionalString(values, 'credits')),
            anySender: values['any-sender'] === true,
            callbackUrl: optionalString(values, 'callback-url'),
            inboundUrl: optionalString(values, 'inbound-url'),
            deliveryReport: deliveryReport(optionalString(values, 'delivery-report')),
            rateLimit: rate(optionalString(values, 'rate-limit'), 'rate-limit'),
            sendRate: rate(optionalString(values, 'send-rate'), 'send-rate'),
            ...complianceOptions(values),
          },
          now(),
        );
        print({ ...accountView(account), keyID: key.keyId, api_key: key.apiKey });
      });
    },
  },

  'accounts list': {
    usage: 'smsgw accounts list [--limit N] [--offset N]',
    summary: 'Print accounts by accountID (at most 500 at a time), as GET /admin/v1/accounts',
    async run(argv, config) {
      const { values } = parse(argv, { limit: { type: 'string' }, offset: { type: 'string' } });
      const query = Object.fromEntries(
        (['limit', 'offset'] as const).flatMap((name) => {
          const value = optionalString(values, name);
          return value === undefined ? [] : [[name, value]];
        }),
      );
      await withStore(config, async ({ store }) => {
        try {
          print(await listAccounts(store, parsePage(query)));
        } catch (error) {
          if (error instanceof QueryError) throw new UsageError(`--${error.message}`);
          throw error;
        }
      });
    },
  },

  'accounts show': {
    usage: 'smsgw accounts show ACCOUNT_ID',
    summary: 'Print an account with its senders, numbers and keys',
    async run(argv, config) {
      const { positionals } = parse(argv, {});
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, positional(positionals, 0, 'ACCOUNT_ID'));
        print(await accountDetails(store, account));
      });
    },
  },

  'accounts update': {
    usage:
      'smsgw accounts update ACCOUNT_ID [--name NAME] [--credits N|unlimited] [--add-credits N] [--timezone TZ]\n' +
      '                      [--any-sender | --no-any-sender] [--callback-url URL|none] [--inbound-url URL|none]\n' +
      '                      [--delivery-report TYPE|none] [--rate-limit N|unlimited] [--send-rate N|unlimited]\n' +
      '                      [--rotate-webhook-secret]\n' +
      SETTINGS_USAGE,
    summary: 'Change account settings, set or add credit, rotate the webhook secret',
    async run(argv, config) {
      const { values, positionals } = parse(argv, {
        ...settingOptions,
        name: { type: 'string' },
        'no-any-sender': { type: 'boolean' },
        'add-credits': { type: 'string' },
        'rotate-webhook-secret': { type: 'boolean' },
      });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, positional(positionals, 0, 'ACCOUNT_ID'));
        const anySender =
          values['any-sender'] === true ? true : values['no-any-sender'] === true ? false : undefined;
        const updated = await updateAccount(
          store,
          account.id,
          {
            name: optionalString(values, 'name'),
            timezone: optionalString(values, 'timezone'),
            credits: credits(optionalString(values, 'credits')),
            rateLimit: rate(optionalString(values, 'rate-limit'), 'rate-limit'),
            sendRate: rate(optionalString(values, 'send-rate'), 'send-rate'),
            addCredits: integer(optionalString(values, 'add-credits'), 'add-credits'),
            anySender,
            callbackUrl: nullable(optionalString(values, 'callback-url')),
            inboundUrl: nullable(optionalString(values, 'inbound-url')),
            deliveryReport: deliveryReport(optionalString(values, 'delivery-report')),
            rotateWebhookSecret: values['rotate-webhook-secret'] === true,
            ...complianceOptions(values),
          },
          now(),
        );
        if (!updated) throw new NotFoundError('No account with that accountID');
        print(await accountDetails(store, updated));
      });
    },
  },

  'keys create': {
    usage: 'smsgw keys create --account ACCOUNT_ID',
    summary: 'Issue a new API key for an account (shown once)',
    async run(argv, config) {
      const { values } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const key = await issueKey(store, account.id, now());
        print({ accountID: account.id, keyID: key.keyId, api_key: key.apiKey });
      });
    },
  },

  'keys revoke': {
    usage: 'smsgw keys revoke --account ACCOUNT_ID --key KEY_ID',
    summary: 'Revoke an API key',
    async run(argv, config) {
      const { values } = parse(argv, { account: { type: 'string' }, key: { type: 'string' } });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const keyId = integer(requireString(values, 'key'), 'key')!;
        if (!(await store.accounts.revokeKey(account.id, keyId, now())))
          throw new NotFoundError('No live key with that keyID');
        print({ accountID: account.id, keyID: keyId, revoked: true });
      });
    },
  },

  'senders add': {
    usage: 'smsgw senders add --account ACCOUNT_ID SENDER',
    summary: 'Validate a sender (msisdn or alphanumeric id) for an account',
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        print({
          accountID: account.id,
          sender: await addSender(store, account, positional(positionals, 0, 'SENDER'), now()),
        });
      });
    },
  },

  'senders remove': {
    usage: 'smsgw senders remove --account ACCOUNT_ID SENDER',
    summary: 'Withdraw a validated sender',
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const sender = normaliseSenderArgument(positional(positionals, 0, 'SENDER'));
        if (!(await store.accounts.removeSender(account.id, sender)))
          throw new NotFoundError('That sender is not validated for the account');
        print({ accountID: account.id, sender, removed: true });
      });
    },
  },

  'numbers add': {
    usage: 'smsgw numbers add --account ACCOUNT_ID MSISDN [--ref REF] [--inbound-url URL]',
    summary: 'Route an inbound number to an account',
    async run(argv, config) {
      const { values, positionals } = parse(argv, {
        account: { type: 'string' },
        ref: { type: 'string' },
        'inbound-url': { type: 'string' },
      });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const number = await addNumber(
          store,
          account,
          {
            msisdn: positional(positionals, 0, 'MSISDN'),
            ref: optionalString(values, 'ref'),
            inboundUrl: optionalString(values, 'inbound-url'),
          },
          now(),
        );
        if (!number) throw new UsageError('that number already routes to an account');
        print(numberView(number));
      });
    },
  },

  'numbers remove': {
    usage: 'smsgw numbers remove --account ACCOUNT_ID MSISDN',
    summary: 'Stop routing an inbound number to an account',
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const msisdn = normaliseMsisdn(positional(positionals, 0, 'MSISDN'));
        if (msisdn === null || !(await store.accounts.removeNumber(account.id, msisdn))) {
          throw new NotFoundError('That number does not route to the account');
        }
        print({ accountID: account.id, msisdn, removed: true });
      });
    },
  },

  'simulate inbound': simulateInboundCommand,
  ...CONNECTOR_COMMANDS,
  ...SMPP_USER_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...SUPPRESSION_COMMANDS,
};
