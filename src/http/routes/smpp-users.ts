import { requireAccountById } from '../../app/directory.js';
import { removeSmppUser, setSmppUser, smppUserView } from '../../app/smpp-users.js';
import type { App, AppDeps } from '../app.js';
import { resource } from '../resource.js';
import { AccountParams } from '../schemas/admin.js';
import { ConflictBody, NotFoundBody, adminErrors, bodyErrors } from '../schemas/errors.js';
import { SmppUserBody, SmppUserRemoved, SmppUserView } from '../schemas/smpp-users.js';

/** PUT/DELETE /admin/v1/accounts/{accountID}/smpp (decisions §21); the admin hook checks the token. */
export function smppUserRoutes(app: App, deps: AppDeps): void {
  const { store, now } = deps;
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };
  resource(app, '/accounts/:accountID/smpp', {
    PUT: {
      schema: {
        ...base,
        operationId: 'setSmppUser',
        summary: 'Set the SMPP credentials the account binds to the SMPP server with',
        params: AccountParams,
        body: SmppUserBody,
        response: { 200: SmppUserView, ...bodyErrors, 404: NotFoundBody, 409: ConflictBody, ...adminErrors },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        const { body } = request;
        const user = await setSmppUser(
          store,
          account.id,
          {
            systemId: body.system_id,
            password: body.password,
            maxBinds: body.max_binds,
            window: body.window,
          },
          now(),
        );
        return smppUserView(user);
      },
    },
    DELETE: {
      schema: {
        ...base,
        operationId: 'removeSmppUser',
        summary: 'Turn SMPP off for the account: its credentials no longer bind',
        params: AccountParams,
        response: { 200: SmppUserRemoved, 404: NotFoundBody, ...adminErrors },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        await removeSmppUser(store, account.id);
        return { accountID: account.id, removed: true as const };
      },
    },
  });
}
