import { requireAccountById } from '../app/directory.js';
import { removeSmppUser, setSmppUser, smppUserView } from '../app/smpp-users.js';
import { integer, optionalString, parse, requireString } from './args.js';
import type { Command } from './commands.js';
import { print, withStore } from './context.js';

/** The CLI twins of PUT/DELETE /admin/v1/accounts/{id}/smpp (decisions §21). */
export const SMPP_USER_COMMANDS: Record<string, Command> = {
  'smpp-users set': {
    usage:
      'smsgw smpp-users set --account ACCOUNT_ID --system-id ID --password PW [--max-binds N] [--window N]',
    summary:
      'Set the SMPP credentials an account binds to the SMPP server with (system_id <= 15, password <= 8)',
    async run(argv, config) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        'system-id': { type: 'string' },
        password: { type: 'string' },
        'max-binds': { type: 'string' },
        window: { type: 'string' },
      });
      const input = {
        systemId: requireString(values, 'system-id'),
        password: requireString(values, 'password'),
        maxBinds: integer(optionalString(values, 'max-binds'), 'max-binds'),
        window: integer(optionalString(values, 'window'), 'window'),
      };
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        print(smppUserView(await setSmppUser(store, account.id, input, now())));
      });
    },
  },

  'smpp-users remove': {
    usage: 'smsgw smpp-users remove --account ACCOUNT_ID',
    summary: 'Turn SMPP off for an account: its credentials no longer bind',
    async run(argv, config) {
      const { values } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        await removeSmppUser(store, account.id);
        print({ accountID: account.id, removed: true });
      });
    },
  },
};
