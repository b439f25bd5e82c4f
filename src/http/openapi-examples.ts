import type { OpenAPIV3_1 } from 'openapi-types';

/**
 * Examples of the main operations and of the webhooks, by operationId, placed in the document's
 * media types. The linter checks each against its schema (no-invalid-media-type-examples), and
 * an example for an operation or status the document lacks fails the document's generation.
 */

type Examples = Record<string, OpenAPIV3_1.ExampleObject>;

interface OperationExamples {
  readonly request?: Examples;
  readonly responses?: Readonly<Record<number, Examples>>;
}

const message = {
  messageID: 1,
  to: ['+61491570156', '+61491570150'],
  from: 'Acme',
  body: 'Your code is 1234',
  send_at: '2026-11-21T15:30:00.123Z',
  expires_at: null,
  ref: null,
  callbackURL: null,
  paused: false,
};

const statusCounts = {
  pending: 0,
  submitted: 0,
  sent: 1,
  delivered: 1,
  cancelled: 0,
  expired: 0,
  aborted: 0,
  rejected: 0,
  failed: 0,
  deleted: 0,
  unknown: 0,
};

const inbound = {
  messageID: 7,
  from: '+61400000001',
  to: '+61491570999',
  body: 'Hello back',
  ref: 'support',
};

const EXAMPLES: Record<string, OperationExamples> = {
  sendSms: {
    request: {
      simple: {
        summary: 'Send now to two recipients',
        value: { to: ['+61491570156', '+61491570150'], from: 'Acme', body: 'Your code is 1234' },
      },
      scheduled: {
        summary: 'Scheduled, paused, with a reference and a report per recipient',
        value: {
          to: ['+61491570151'],
          from: 'Acme',
          body: 'Sale starts now',
          send_at: '2030-01-01 09:00:00',
          paused: true,
          ref: 'campaign-7',
          delivery_report: 'per_recipient_final',
          callbackURL: 'https://example.com/dlr',
        },
      },
      expiring: {
        summary: 'Expires an hour after sending, refused if longer than one part',
        value: {
          to: ['61491570152'],
          from: '+61400000000',
          body: 'Your code is 5678',
          ttl: 3600,
          num_parts_max: 1,
        },
      },
    },
    responses: {
      201: { created: { summary: 'Accepted', value: { messageID: 1, num_parts: 1, num_recipients: 2 } } },
      200: {
        refused: {
          summary: 'More parts than num_parts_max: not sent',
          value: {
            num_parts: 2,
            num_parts_max: 1,
            info: 'The message needs 2 parts, more than num_parts_max 1; it was not sent',
          },
        },
      },
      400: {
        missing: {
          summary: 'A required argument is missing',
          value: {
            status_code: 400,
            status_msg: 'Bad Request',
            error: 'body is required',
            type: 'ARG_MISSING',
            arguement: 'body',
          },
        },
      },
      403: {
        msisdn: {
          summary: 'A malformed recipient',
          value: {
            status_code: 403,
            status_msg: 'Forbidden',
            error: '12 is not a valid msisdn; use E.164 format such as +61491570156',
            type: 'VAL_ILLEGAL',
            arguement: 'to',
            bad_value: '12',
            info: '12 is not a valid msisdn; use E.164 format such as +61491570156',
          },
        },
      },
    },
  },
  indexOutboundSms: {
    responses: { 200: { page: { summary: 'One message', value: { data: [message], more_results: false } } } },
  },
  getOutboundSms: { responses: { 200: { message: { summary: 'A message', value: message } } } },
  getOutboundSmsOptions: {
    responses: {
      200: {
        metaStatus: {
          summary: 'With meta,status',
          value: {
            ...message,
            to: { '+61491570156': 'delivered', '+61491570150': 'sent' },
            created_at: '2026-11-21T15:30:00.123Z',
            complete_at: null,
            num_parts: 1,
            balance_used: 2,
            status: statusCounts,
          },
        },
      },
    },
  },
  updateOutboundSms: {
    request: {
      release: { summary: 'Release a paused message', value: { paused: false } },
      pause: { summary: 'Pause a message whose recipients are still pending', value: { paused: true } },
    },
  },
  indexInboundSms: {
    responses: {
      200: {
        page: {
          summary: 'One message',
          value: { data: [{ ...inbound, received_at: '1763739000.123000' }], more_results: false },
        },
      },
    },
  },
  getInboundSms: {
    responses: {
      200: { message: { summary: 'A message', value: { ...inbound, received_at: '1763739000.123000' } } },
    },
  },
  createAccount: {
    request: {
      shop: {
        summary: 'An account with limited credit',
        value: {
          name: 'shop',
          timezone: 'Europe/London',
          credits: 1000,
          callback_url: 'https://example.com/dlr',
        },
      },
    },
  },
  summaryDeliveryReport: {
    request: {
      summary: {
        summary: 'Every recipient final',
        value: {
          tstamp: '2026-11-21T15:30:02.456Z',
          message_type: 'sms',
          ref: 'campaign-7',
          messageID: 1,
          balance_used: 2,
          statuses: { ...statusCounts, sent: 0, delivered: 1, failed: 1 },
          callback_type: 'summary_delivery_report',
        },
      },
    },
  },
  detailedDeliveryReport: {
    request: {
      detailed: {
        summary: 'Every recipient final',
        value: {
          tstamp: '2026-11-21T15:30:02.456Z',
          message_type: 'sms',
          ref: 'campaign-7',
          messageID: 1,
          balance_used: 2,
          statuses: {
            '200': { status: 'delivered', recipients: ['+61491570150'] },
            '440': { status: 'failed', recipients: ['+61491570155'] },
          },
          callback_type: 'summary_delivery_report',
        },
      },
    },
  },
  recipientFinalDeliveryReport: {
    request: {
      delivered: {
        summary: 'A recipient was delivered',
        value: {
          tstamp: '2026-11-21T15:30:02.456Z',
          message_type: 'sms',
          ref: 'campaign-7',
          messageID: 1,
          balance_used: 1,
          status: 'delivered',
          status_code: 200,
          recipients: '+61491570150',
          callback_type: 'recipient_delivery_report',
        },
      },
    },
  },
  inboundMessage: {
    request: {
      inbound: {
        summary: 'A reply',
        value: {
          ...inbound,
          tstamp: '2026-11-21T15:30:00.123Z',
          callback_type: 'inbound_message',
          message_type: 'sms',
        },
      },
    },
  },
};

export function addExamples<T extends Partial<OpenAPIV3_1.Document>>(document: T): T {
  const operations = new Map<string, OpenAPIV3_1.OperationObject>();
  for (const item of [...Object.values(document.paths ?? {}), ...Object.values(document.webhooks ?? {})]) {
    if (item !== undefined && !('$ref' in item && item.$ref !== undefined)) {
      for (const operation of operationsOf(item)) {
        if (operation.operationId !== undefined) operations.set(operation.operationId, operation);
      }
    }
  }
  for (const [operationId, examples] of Object.entries(EXAMPLES)) {
    const operation = operations.get(operationId);
    if (operation === undefined) throw new Error(`examples for an unknown operation ${operationId}`);
    if (examples.request !== undefined)
      jsonMedia(operation.requestBody, operationId).examples = examples.request;
    for (const [status, byName] of Object.entries(examples.responses ?? {})) {
      jsonMedia(operation.responses?.[status], `${operationId} ${status}`).examples = byName;
    }
  }
  return document;
}

function jsonMedia(
  holder:
    OpenAPIV3_1.RequestBodyObject | OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject | undefined,
  where: string,
): OpenAPIV3_1.MediaTypeObject {
  const media =
    holder !== undefined && 'content' in holder ? holder.content?.['application/json'] : undefined;
  if (media === undefined) throw new Error(`examples for ${where}, which has no JSON body`);
  return media;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function operationsOf(item: OpenAPIV3_1.PathItemObject | undefined): OpenAPIV3_1.OperationObject[] {
  if (item === undefined) return [];
  return METHODS.flatMap((m) => (item[m] === undefined ? [] : [item[m]]));
}
