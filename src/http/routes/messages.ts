import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { listMessages, parseReadOptions, readMessage } from '../../app/read-messages.js';
import { sendIdempotently } from '../../app/idempotent-send.js';
import { createdAnswer, sendMessage, type SendResult } from '../../app/send-message.js';
import { createMessageWriter } from '../../app/message-writer.js';
import { cancelMessage, setPaused } from '../../app/control-message.js';
import type { RawQuery } from '../../app/list-query.js';
import { accountOf, requireAccount } from '../auth.js';
import type { AppDeps } from '../app.js';
import { resource } from '../resource.js';
import {
  BadRequestBody,
  ForbiddenBody,
  IdempotencyInProgressBody,
  IdempotencyMismatchBody,
  NotFoundBody,
  accountErrors,
} from '../schemas/errors.js';
import {
  IdempotencyHeaders,
  MessageIdParams,
  MessageOptionsParams,
  OutboundList,
  OutboundListQuery,
  OutboundMessage,
  OutboundMessageWithOptions,
  PatchMessageBody,
  SendSmsCreated,
  SendSmsRefused,
  sendSmsBody,
} from '../schemas/messages.js';

export function messageRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];
  const SendBody = sendSmsBody(deps.config.maxRecipients);
  const send = { ...deps, writer: createMessageWriter(store) };

  resource(app, '/sms/message', {
    POST: {
      onRequest: auth,
      schema: {
        operationId: 'sendSms',
        tags: ['outbound'],
        summary: 'Send an SMS to one or more recipients',
        security,
        headers: IdempotencyHeaders,
        body: SendBody,
        response: {
          201: SendSmsCreated,
          200: SendSmsRefused,
          400: BadRequestBody,
          403: ForbiddenBody,
          404: NotFoundBody,
          409: IdempotencyInProgressBody,
          422: IdempotencyMismatchBody,
          ...accountErrors,
        },
      },
      handler: async (request, reply) => {
        const account = accountOf(request);
        const body = request.body as Static<typeof SendBody>;
        // Node joins a repeated header into one string; the type allows an array too.
        const header = request.headers['idempotency-key'];
        const key = Array.isArray(header) ? header.join(', ') : header;
        let result: SendResult;
        if (key === undefined) {
          result = await sendMessage(send, account, body);
        } else {
          const outcome = await sendIdempotently(send, account, body, key);
          if (outcome.kind === 'replay') {
            return reply
              .code(outcome.status)
              .header('idempotent-replayed', 'true')
              .type('application/json; charset=utf-8')
              .send(outcome.body);
          }
          result = outcome.result;
        }
        if (result.kind === 'too_many_parts') {
          return reply.code(200).send({
            num_parts: result.numParts,
            num_parts_max: result.numPartsMax,
            info: `The message needs ${result.numParts} parts, more than num_parts_max ${result.numPartsMax}; it was not sent`,
          });
        }
        return reply.code(201).send(createdAnswer(result.messageID, result.numParts, result.numRecipients));
      },
    },
  });

  resource(app, '/sms/messages', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexOutboundSms',
        tags: ['outbound'],
        summary: 'List outbound messages',
        security,
        querystring: OutboundListQuery,
        response: { 200: OutboundList, 400: BadRequestBody, ...accountErrors },
      },
      handler: async (request) =>
        listMessages(store, accountOf(request), request.query as RawQuery, deps.now()),
    },
  });

  resource(app, '/sms/message/:messageID', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getOutboundSms',
        tags: ['outbound'],
        summary: 'Read an outbound message',
        security,
        params: MessageIdParams,
        response: { 200: OutboundMessage, 404: NotFoundBody, ...accountErrors },
      },
      handler: async (request) =>
        readMessage(store, accountOf(request), (request.params as Static<typeof MessageIdParams>).messageID),
    },
    PATCH: {
      onRequest: auth,
      schema: {
        operationId: 'updateOutboundSms',
        tags: ['outbound'],
        summary: 'Release a paused message ({"paused": false}) or pause one still pending ({"paused": true})',
        security,
        params: MessageIdParams,
        body: PatchMessageBody,
        response: {
          200: OutboundMessage,
          400: BadRequestBody,
          403: ForbiddenBody,
          404: NotFoundBody,
          ...accountErrors,
        },
      },
      handler: async (request) =>
        setPaused(
          deps,
          accountOf(request),
          (request.params as Static<typeof MessageIdParams>).messageID,
          (request.body as Static<typeof PatchMessageBody>).paused,
        ),
    },
    DELETE: {
      onRequest: auth,
      schema: {
        operationId: 'cancelOutboundSms',
        tags: ['outbound'],
        summary: 'Cancel every recipient not yet sent; answers the message with its status fields',
        security,
        params: MessageIdParams,
        response: { 200: OutboundMessageWithOptions, 404: NotFoundBody, ...accountErrors },
      },
      handler: async (request) =>
        cancelMessage(deps, accountOf(request), (request.params as Static<typeof MessageIdParams>).messageID),
    },
  });

  resource(app, '/sms/message/:messageID/:options', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getOutboundSmsOptions',
        tags: ['outbound'],
        summary: 'Read an outbound message with meta and/or status fields',
        security,
        params: MessageOptionsParams,
        response: { 200: OutboundMessageWithOptions, 404: NotFoundBody, ...accountErrors },
      },
      handler: async (request) => {
        const params = request.params as Static<typeof MessageOptionsParams>;
        const options = parseReadOptions(params.options);
        return readMessage(store, accountOf(request), params.messageID, options);
      },
    },
  });
}
