import { listMessages, readMessage, readMessageWithOptions, readOptions } from '../../app/read-messages.js';
import { sendIdempotently } from '../../app/idempotent-send.js';
import { createdAnswer, sendMessage, type SendResult } from '../../app/send-message.js';
import { createMessageWriter } from '../../app/message-writer.js';
import { previewSend } from '../../app/preview-send.js';
import { cancelMessage, setPaused } from '../../app/control-message.js';
import { accountOf, requireAccount } from '../auth.js';
import type { App, AppDeps } from '../app.js';
import { resource } from '../resource.js';
import {
  BadRequestBody,
  ForbiddenBody,
  IdempotencyInProgressBody,
  IdempotencyMismatchBody,
  NotFoundBody,
  bodyErrors,
  publicErrors,
} from '../schemas/errors.js';
import {
  MessageIdParams,
  MessageOptionsParams,
  OutboundList,
  OutboundListQuery,
  OutboundMessage,
  OutboundMessageWithOptions,
  OutboundMessageWithStatus,
  PatchMessageBody,
  SendSmsCreated,
  SendSmsHeaders,
  SendSmsRefused,
  SmsPreview,
  sendSmsBody,
} from '../schemas/messages.js';

export function messageRoutes(app: App, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];
  const tags = ['outbound'];
  const send = { ...deps, writer: createMessageWriter(store) };

  resource(app, '/sms/message', {
    POST: {
      onRequest: auth,
      schema: {
        operationId: 'sendSms',
        tags,
        summary: 'Send an SMS to one or more recipients',
        description:
          'Accepts the message for every recipient (201), or refuses it without storing anything when it ' +
          'needs more parts than num_parts_max (200 with info).',
        security,
        headers: SendSmsHeaders,
        body: sendSmsBody(deps.config.maxRecipients),
        response: {
          201: SendSmsCreated,
          200: SendSmsRefused,
          ...bodyErrors,
          404: NotFoundBody,
          409: IdempotencyInProgressBody,
          422: IdempotencyMismatchBody,
          ...publicErrors,
        },
      },
      handler: async (request, reply) => {
        const account = accountOf(request);
        const { body } = request;
        // Node joins a repeated header into one value, so a key given twice is refused as malformed.
        const key = request.headers['idempotency-key'];
        let result: SendResult;
        if (key === undefined) {
          result = await sendMessage(send, account, body);
        } else {
          const outcome = await sendIdempotently(send, account, body, key);
          if (outcome.kind === 'replay') {
            return reply.code(201).header('idempotent-replayed', 'true').send(outcome.answer);
          }
          result = outcome.result;
        }
        if (result.kind === 'too_many_parts') return reply.code(200).send(refusal(result));
        return reply.code(201).send(createdAnswer(result.messageID, result.numParts, result.numRecipients));
      },
    },
  });

  resource(app, '/sms/preview', {
    POST: {
      onRequest: auth,
      schema: {
        operationId: 'previewSms',
        tags,
        summary: 'What sending this body would do and cost, without sending it',
        description:
          'Takes the body of POST /sms/message and answers what that POST would do now: parts, encoding, the ' +
          'body as sent, credits needed, and each recipient with its route, suppression and send time. The same ' +
          'validation and the same errors (CREDIT_INSUFFICIENT included); nothing is stored, sent or reserved. ' +
          '200 with info, as the POST, when the body needs more parts than num_parts_max.',
        security,
        body: sendSmsBody(deps.config.maxRecipients),
        response: {
          200: { anyOf: [SmsPreview, SendSmsRefused] },
          ...bodyErrors,
          404: NotFoundBody,
          ...publicErrors,
        },
      },
      handler: async (request, reply) => {
        const result = await previewSend(deps, accountOf(request), request.body);
        if (result.kind === 'too_many_parts') return reply.code(200).send(refusal(result));
        return reply.code(200).send(result.body);
      },
    },
  });

  resource(app, '/sms/messages', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexOutboundSms',
        tags,
        summary: 'List outbound messages',
        description: 'Newest first unless sorted otherwise; by default those created in the last 24 hours.',
        security,
        querystring: OutboundListQuery,
        response: { 200: OutboundList, 400: BadRequestBody, 403: ForbiddenBody, ...publicErrors },
      },
      handler: async (request) => listMessages(store, accountOf(request), request.query, deps.now()),
    },
  });

  resource(app, '/sms/message/:messageID', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getOutboundSms',
        tags,
        summary: 'Read an outbound message',
        security,
        params: MessageIdParams,
        response: { 200: OutboundMessage, 404: NotFoundBody, ...publicErrors },
      },
      handler: async (request) => readMessage(store, accountOf(request), request.params.messageID),
    },
    PATCH: {
      onRequest: auth,
      schema: {
        operationId: 'updateOutboundSms',
        tags,
        summary: 'Release a paused message, or pause one whose recipients are still pending',
        description:
          '{"paused": false} makes the recipients of a paused message due; {"paused": true} holds those still ' +
          'pending. 403 VAL_ILLEGAL when nothing can change.',
        security,
        params: MessageIdParams,
        body: PatchMessageBody,
        response: { 200: OutboundMessage, ...bodyErrors, 404: NotFoundBody, ...publicErrors },
      },
      handler: async (request) =>
        setPaused(deps, accountOf(request), request.params.messageID, request.body.paused),
    },
    DELETE: {
      onRequest: auth,
      schema: {
        operationId: 'cancelOutboundSms',
        tags,
        summary: 'Cancel every recipient not yet sent',
        description: 'Recipients still pending or submitted become cancelled; the message stays readable.',
        security,
        params: MessageIdParams,
        response: { 200: OutboundMessageWithStatus, 404: NotFoundBody, ...publicErrors },
      },
      handler: async (request) => cancelMessage(deps, accountOf(request), request.params.messageID),
    },
  });

  resource(app, '/sms/message/:messageID/:options', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getOutboundSmsOptions',
        tags,
        summary: 'Read an outbound message with meta and/or status fields',
        security,
        params: MessageOptionsParams,
        response: { 200: OutboundMessageWithOptions, 404: NotFoundBody, ...publicErrors },
      },
      handler: async (request) =>
        readMessageWithOptions(
          store,
          accountOf(request),
          request.params.messageID,
          readOptions(request.params.options),
        ),
    },
  });
}

/** The 200 refusal of decisions §5: the message needs more parts than num_parts_max. */
function refusal(result: { numParts: number; numPartsMax: number }) {
  return {
    num_parts: result.numParts,
    num_parts_max: result.numPartsMax,
    info: `The message needs ${result.numParts} parts, more than num_parts_max ${result.numPartsMax}; it was not sent`,
  };
}
