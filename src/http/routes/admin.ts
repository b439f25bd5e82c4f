import type { Static } from '@sinclair/typebox';
import { createAccount, issueKey, updateAccount, type AccountInput } from '../../app/accounts.js';
import {
  accountDetails,
  accountView,
  listAccounts,
  addNumber,
  addSender,
  normaliseSenderArgument,
  numberView,
  requireAccountById,
} from '../../app/directory.js';
import { simulateInbound } from '../../app/receive-inbound.js';
import { NotFoundError } from '../../domain/errors.js';
import { normaliseMsisdn } from '../../domain/msisdn.js';
import type { Stats } from '../../app/stats.js';
import type { App, AppDeps } from '../app.js';
import { requireAdmin } from '../auth.js';
import { AlreadyExistsError } from '../errors.js';
import { resource } from '../resource.js';
import {
  AccountList,
  AccountListQuery,
  AccountParams,
  AccountView,
  CreateAccountBody,
  CreatedAccount,
  CreatedKey,
  KeyParams,
  NumberBody,
  NumberParams,
  NumberRemoved,
  NumberView,
  PatchAccountBody,
  RevokedKey,
  SenderAdded,
  SenderBody,
  SenderParams,
  SenderRemoved,
} from '../schemas/admin.js';
import {
  BadRequestBody,
  ConflictBody,
  ForbiddenBody,
  NotFoundBody,
  adminErrors,
  bodyErrors,
} from '../schemas/errors.js';
import { SimulatedInboundBody, SimulatedInboundCreated } from '../schemas/inbound.js';
import { connectorRoutes } from './connectors.js';
import { smppUserRoutes } from './smpp-users.js';
import { statsRoutes } from './stats.js';
import { webhookAdminRoutes } from './webhooks.js';

/** The admin API of decisions §9, behind SMSGW_ADMIN_TOKEN. */
export function adminRoutes(app: App, deps: AppDeps & { stats: () => Promise<Stats> }): void {
  const { store, now } = deps;
  const adminAuth = requireAdmin(deps.config.adminToken);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.protocolEdge) return adminAuth(request, reply);
  });
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };
  /** What an operation on one account can answer besides its own: there is no such account. */
  const onAccount = { 404: NotFoundBody, ...adminErrors };

  resource(app, '/accounts', {
    GET: {
      schema: {
        ...base,
        operationId: 'listAccounts',
        summary: 'List accounts in accountID order',
        querystring: AccountListQuery,
        response: { 200: AccountList, 400: BadRequestBody, ...adminErrors },
      },
      handler: async (request) => listAccounts(store, request.query),
    },
    POST: {
      schema: {
        ...base,
        operationId: 'createAccount',
        summary: 'Create an account with its first API key',
        body: CreateAccountBody,
        response: { 201: CreatedAccount, ...bodyErrors, 409: ConflictBody, ...adminErrors },
      },
      handler: async (request, reply) => {
        const { body } = request;
        const { account, key } = await createAccount(
          store,
          { name: body.name, ...accountSettings(body) },
          now(),
        );
        return reply.code(201).send({ ...accountView(account), keyID: key.keyId, api_key: key.apiKey });
      },
    },
  });

  resource(app, '/accounts/:accountID', {
    GET: {
      schema: {
        ...base,
        operationId: 'getAccount',
        summary: 'Read an account with its senders, numbers and keys',
        params: AccountParams,
        response: { 200: AccountView, ...onAccount },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        return accountDetails(store, account);
      },
    },
    PATCH: {
      schema: {
        ...base,
        operationId: 'updateAccount',
        summary: 'Change settings, set or add credit, rotate the webhook secret',
        params: AccountParams,
        body: PatchAccountBody,
        response: { 200: AccountView, ...bodyErrors, 409: ConflictBody, ...onAccount },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        const { body } = request;
        const updated = await updateAccount(
          store,
          account.id,
          {
            name: body.name,
            ...accountSettings(body),
            addCredits: body.add_credits,
            rotateWebhookSecret: body.rotate_webhook_secret,
          },
          now(),
        );
        if (!updated) throw new NotFoundError('No account with that accountID');
        return accountDetails(store, updated);
      },
    },
  });

  resource(app, '/accounts/:accountID/keys', {
    POST: {
      schema: {
        ...base,
        operationId: 'createApiKey',
        summary: 'Issue a new API key (shown once)',
        params: AccountParams,
        response: { 201: CreatedKey, ...bodyErrors, ...onAccount },
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(store, request.params.accountID);
        const key = await issueKey(store, account.id, now());
        return reply
          .code(201)
          .send({ keyID: key.keyId, api_key: key.apiKey, prefix: key.apiKey.slice(0, 10) });
      },
    },
  });

  resource(app, '/accounts/:accountID/keys/:keyID', {
    DELETE: {
      schema: {
        ...base,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        params: KeyParams,
        response: { 200: RevokedKey, ...onAccount },
      },
      handler: async (request) => {
        const { accountID, keyID } = request.params;
        const account = await requireAccountById(store, accountID);
        if (!(await store.accounts.revokeKey(account.id, keyID, now())))
          throw new NotFoundError('No live key with that keyID');
        return { keyID, revoked: true as const };
      },
    },
  });

  resource(app, '/accounts/:accountID/senders', {
    POST: {
      schema: {
        ...base,
        operationId: 'addSender',
        summary: 'Validate a sender for the account',
        params: AccountParams,
        body: SenderBody,
        response: { 201: SenderAdded, ...bodyErrors, ...onAccount },
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(store, request.params.accountID);
        const sender = await addSender(store, account, request.body.sender, now());
        return reply.code(201).send({ accountID: account.id, sender });
      },
    },
  });

  resource(app, '/accounts/:accountID/senders/:sender', {
    DELETE: {
      schema: {
        ...base,
        operationId: 'removeSender',
        summary: 'Withdraw a sender',
        description: '403 VAL_ILLEGAL when the sender is neither an msisdn nor an alphanumeric id.',
        params: SenderParams,
        response: { 200: SenderRemoved, 403: ForbiddenBody, ...onAccount },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        const sender = normaliseSenderArgument(request.params.sender);
        if (!(await store.accounts.removeSender(account.id, sender)))
          throw new NotFoundError('That sender is not validated for the account');
        return { accountID: account.id, sender, removed: true as const };
      },
    },
  });

  resource(app, '/accounts/:accountID/numbers', {
    POST: {
      schema: {
        ...base,
        operationId: 'addNumber',
        summary: 'Route an inbound number to the account',
        params: AccountParams,
        body: NumberBody,
        response: { 201: NumberView, ...bodyErrors, 409: ConflictBody, ...onAccount },
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(store, request.params.accountID);
        const { body } = request;
        const number = await addNumber(
          store,
          account,
          { msisdn: body.msisdn, ref: body.ref, inboundUrl: body.inbound_url },
          now(),
        );
        if (!number) throw new AlreadyExistsError('That number already routes to an account');
        return reply.code(201).send(numberView(number));
      },
    },
  });

  resource(app, '/accounts/:accountID/numbers/:msisdn', {
    DELETE: {
      schema: {
        ...base,
        operationId: 'removeNumber',
        summary: 'Stop routing an inbound number to the account',
        params: NumberParams,
        response: { 200: NumberRemoved, ...onAccount },
      },
      handler: async (request) => {
        const account = await requireAccountById(store, request.params.accountID);
        const msisdn = normaliseMsisdn(request.params.msisdn);
        if (msisdn === null || !(await store.accounts.removeNumber(account.id, msisdn))) {
          throw new NotFoundError('That number does not route to the account');
        }
        return { accountID: account.id, msisdn, removed: true as const };
      },
    },
  });

  resource(app, '/simulator/inbound', {
    POST: {
      schema: {
        ...base,
        operationId: 'simulateInbound',
        summary: 'Inject an inbound message as if a handset sent it (simulator carrier only)',
        body: SimulatedInboundBody,
        response: { 201: SimulatedInboundCreated, ...bodyErrors, ...adminErrors },
      },
      handler: async (request, reply) => {
        const result = await simulateInbound(
          { store, now, logger: deps.logger, config: deps.config },
          request.body,
        );
        deps.metrics?.engine.inboundReceived();
        // An opt-out keyword may have queued its answer (decisions §17): send it now.
        deps.wake?.();
        return reply.code(201).send(result);
      },
    },
  });

  webhookAdminRoutes(app, deps);
  connectorRoutes(app, deps);
  smppUserRoutes(app, deps);
  statsRoutes(app, deps.stats);
}

/** The settings both account bodies carry, in the app's terms (the name and the PATCH's actions apart). */
function accountSettings(
  body: Omit<Static<typeof PatchAccountBody>, 'name' | 'add_credits' | 'rotate_webhook_secret'>,
): Omit<AccountInput, 'name'> {
  return {
    timezone: body.timezone,
    credits: body.credits,
    anySender: body.any_sender,
    callbackUrl: body.callback_url,
    inboundUrl: body.inbound_url,
    deliveryReport: body.delivery_report,
    rateLimit: body.rate_limit,
    sendRate: body.send_rate,
    optOutKeywords: body.opt_out_keywords,
    optOutReply: body.opt_out_reply,
    smartEncoding: body.smart_encoding,
    window: body.window,
  };
}
