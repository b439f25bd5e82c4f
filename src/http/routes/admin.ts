import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createAccount, issueKey, updateAccount } from '../../app/accounts.js';
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
import type { RawQuery } from '../../app/list-query.js';
import { simulateInbound } from '../../app/receive-inbound.js';
import { NotFoundError } from '../../domain/errors.js';
import { normaliseMsisdn } from '../../domain/msisdn.js';
import type { AppDeps } from '../app.js';
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
  NumberView,
  PatchAccountBody,
  SenderBody,
  SenderParams,
} from '../schemas/admin.js';
import {
  BadRequestBody,
  ConflictBody,
  ForbiddenBody,
  NotFoundBody,
  commonErrors,
} from '../schemas/errors.js';
import { SimulatedInboundBody, SimulatedInboundCreated } from '../schemas/inbound.js';
import { connectorRoutes } from './connectors.js';
import { webhookAdminRoutes } from './webhooks.js';

type Params<T extends { static: unknown }> = T['static'];

/** The admin API of decisions §9, behind SMSGW_ADMIN_TOKEN. */
export function adminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store, now } = deps;
  const adminAuth = requireAdmin(deps.config.adminToken);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.protocolEdge) return adminAuth(request, reply);
  });
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };
  const errors = { 400: BadRequestBody, 403: ForbiddenBody, 404: NotFoundBody, ...commonErrors };

  resource(app, '/accounts', {
    GET: {
      schema: {
        ...base,
        summary: 'List accounts by accountID',
        querystring: AccountListQuery,
        response: { 200: AccountList, 400: BadRequestBody, ...commonErrors },
      },
      handler: async (request) => listAccounts(store, request.query as RawQuery),
    },
    POST: {
      schema: {
        ...base,
        summary: 'Create an account with its first API key',
        body: CreateAccountBody,
        response: { 201: CreatedAccount, 409: ConflictBody, ...errors },
      },
      handler: async (request, reply) => {
        const body = request.body as Static<typeof CreateAccountBody>;
        const { account, key } = await createAccount(
          store,
          {
            name: body.name,
            timezone: body.timezone,
            credits: body.credits,
            anySender: body.any_sender,
            callbackUrl: body.callback_url,
            inboundUrl: body.inbound_url,
            deliveryReport: body.delivery_report,
            rateLimit: body.rate_limit,
            sendRate: body.send_rate,
          },
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
        summary: 'Read an account with its senders, numbers and keys',
        params: AccountParams,
        response: { 200: AccountView, ...errors },
      },
      handler: async (request) => {
        const account = await requireAccountById(
          store,
          (request.params as Params<typeof AccountParams>).accountID,
        );
        return accountDetails(store, account);
      },
    },
    PATCH: {
      schema: {
        ...base,
        summary: 'Change settings, set or add credit, rotate the webhook secret',
        params: AccountParams,
        body: PatchAccountBody,
        response: { 200: AccountView, 409: ConflictBody, ...errors },
      },
      handler: async (request) => {
        const account = await requireAccountById(
          store,
          (request.params as Params<typeof AccountParams>).accountID,
        );
        const body = request.body as Static<typeof PatchAccountBody>;
        const updated = await updateAccount(
          store,
          account.id,
          {
            name: body.name,
            timezone: body.timezone,
            credits: body.credits,
            anySender: body.any_sender,
            callbackUrl: body.callback_url,
            inboundUrl: body.inbound_url,
            deliveryReport: body.delivery_report,
            rateLimit: body.rate_limit,
            sendRate: body.send_rate,
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
        summary: 'Issue a new API key (shown once)',
        params: AccountParams,
        response: { 201: CreatedKey, ...errors },
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(
          store,
          (request.params as Params<typeof AccountParams>).accountID,
        );
        const key = await issueKey(store, account.id, now());
        return reply
          .code(201)
          .send({ keyID: key.keyId, api_key: key.apiKey, prefix: key.apiKey.slice(0, 10) });
      },
    },
  });

  resource(app, '/accounts/:accountID/keys/:keyID', {
    DELETE: {
      schema: { ...base, summary: 'Revoke an API key', params: KeyParams, response: errors },
      handler: async (request) => {
        const params = request.params as Params<typeof KeyParams>;
        const account = await requireAccountById(store, params.accountID);
        const keyId = /^\d{1,16}$/.test(params.keyID) ? Number(params.keyID) : 0;
        if (!(await store.accounts.revokeKey(account.id, keyId, now())))
          throw new NotFoundError('No live key with that keyID');
        return { keyID: keyId, revoked: true };
      },
    },
  });

  resource(app, '/accounts/:accountID/senders', {
    POST: {
      schema: {
        ...base,
        summary: 'Validate a sender for the account',
        params: AccountParams,
        body: SenderBody,
        response: errors,
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(
          store,
          (request.params as Params<typeof AccountParams>).accountID,
        );
        const sender = await addSender(
          store,
          account,
          (request.body as Static<typeof SenderBody>).sender,
          now(),
        );
        return reply.code(201).send({ accountID: account.id, sender });
      },
    },
  });

  resource(app, '/accounts/:accountID/senders/:sender', {
    DELETE: {
      schema: { ...base, summary: 'Withdraw a sender', params: SenderParams, response: errors },
      handler: async (request) => {
        const params = request.params as Params<typeof SenderParams>;
        const account = await requireAccountById(store, params.accountID);
        const sender = normaliseSenderArgument(params.sender);
        if (!(await store.accounts.removeSender(account.id, sender)))
          throw new NotFoundError('That sender is not validated for the account');
        return { accountID: account.id, sender, removed: true };
      },
    },
  });

  resource(app, '/accounts/:accountID/numbers', {
    POST: {
      schema: {
        ...base,
        summary: 'Route an inbound number to the account',
        params: AccountParams,
        body: NumberBody,
        response: { 201: NumberView, 409: ConflictBody, ...errors },
      },
      handler: async (request, reply) => {
        const account = await requireAccountById(
          store,
          (request.params as Params<typeof AccountParams>).accountID,
        );
        const body = request.body as Static<typeof NumberBody>;
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
        summary: 'Stop routing an inbound number to the account',
        params: NumberParams,
        response: errors,
      },
      handler: async (request) => {
        const params = request.params as Params<typeof NumberParams>;
        const account = await requireAccountById(store, params.accountID);
        const msisdn = normaliseMsisdn(params.msisdn);
        if (msisdn === null || !(await store.accounts.removeNumber(account.id, msisdn))) {
          throw new NotFoundError('That number does not route to the account');
        }
        return { accountID: account.id, msisdn, removed: true };
      },
    },
  });

  resource(app, '/simulator/inbound', {
    POST: {
      schema: {
        ...base,
        summary: 'Inject an inbound message as if a handset sent it (simulator carrier only)',
        body: SimulatedInboundBody,
        response: { 201: SimulatedInboundCreated, ...errors },
      },
      handler: async (request, reply) => {
        const result = await simulateInbound(
          { store, now, logger: deps.logger, config: deps.config },
          request.body as Static<typeof SimulatedInboundBody>,
        );
        return reply.code(201).send(result);
      },
    },
  });

  webhookAdminRoutes(app, deps);
  connectorRoutes(app, deps);
}
