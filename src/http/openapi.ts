import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { addExamples, operationsOf } from './openapi-examples.js';
import { WEBHOOK_HEADERS, webhookPayloads, webhooks } from './openapi-webhooks.js';

/**
 * The OpenAPI 3.1 document: paths come from the route schemas that also validate requests and
 * serialize responses (@fastify/swagger); this file adds what no route carries: the document's
 * head, security schemes, the webhooks smsgw sends, examples, and the response headers.
 *
 * Every schema with an `$id` becomes a component of that name. A route that wants a named
 * schema in the document gives it an `$id`; one without is written inline.
 */

const description = `Send SMS to one or more recipients, read outbound and inbound messages, and receive delivery
reports and inbound messages by webhook (see \`webhooks\`).

- The public API lives under \`/v1\` and takes an account's API key: \`Authorization: Bearer <key>\` (the bare key
  is accepted too). The admin API under \`/admin/v1\` takes \`Authorization: Bearer $SMSGW_ADMIN_TOKEN\`.
- Every path also answers \`OPTIONS\` without a key: 200, header \`Allow\` and a JSON array of its methods. Any
  other method gets 405 with the same list.
- Every error body has an integer \`status_code\` and a \`status_msg\`; validation errors add \`error\`, \`type\`
  and \`arguement\` (spelled so), and 403 adds \`bad_value\` and \`info\`.
- Date-times are read in the forms of \`SendSmsRequest.send_at\` and written as RFC 3339 UTC with milliseconds.`;

/** Names each schema with an `$id` after it, instead of def-0, def-1… */
function componentName(json: { $id?: unknown }, _base: unknown, _fragment: string, i: number): string {
  return typeof json.$id === 'string' ? json.$id : `def-${i}`;
}

export const openApiOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'smsgw — Bulk SMS Messaging Service',
      version: '1.0.0',
      description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: [
      { name: 'outbound', description: 'Sending and reading outbound messages' },
      { name: 'inbound', description: 'Reading inbound messages' },
      { name: 'account', description: "The key's own account and its webhook deliveries" },
      {
        name: 'suppressions',
        description: 'Numbers the account never sends to: added by hand, by STOP replies or by import',
      },
      {
        name: 'admin',
        description: 'Accounts, keys, senders, numbers, webhooks, connectors and the simulator',
      },
      { name: 'webhooks', description: 'What smsgw sends to your callback and inbound URLs' },
      {
        name: 'operations',
        description: 'Health and readiness probes and Prometheus metrics, outside both APIs (no API key)',
      },
    ],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key of the account (`sk_…`); `Authorization: <key>` without Bearer works too',
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The value of SMSGW_ADMIN_TOKEN' },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The value of SMSGW_METRICS_TOKEN, when it is set',
        },
      },
      parameters: WEBHOOK_HEADERS,
      schemas: webhookPayloads,
    },
    webhooks,
  },
  refResolver: { buildLocalReference: componentName },
  transform: ({ schema, url }) => ({ schema: nameRootSchemas(schema), url }),
  transformObject: (document) => {
    if (!('openapiObject' in document) || !isOpenApi31(document.openapiObject))
      throw new Error('the document is configured as OpenAPI 3.1');
    return addResponseHeaders(addExamples(unwrapNamedSchemas(document.openapiObject)));
  },
};

/**
 * @fastify/swagger names the schemas with an `$id` nested in a route's schema, but writes the
 * route's own body and response schemas inline. Wrapped in an allOf for the document (the
 * route's schema itself is left alone), they are named too; unwrapNamedSchemas then turns
 * each `allOf: [{$ref}]` back into the plain `$ref`.
 */
function nameRootSchemas(schema: FastifySchema): FastifySchema {
  const wrap = (part: unknown): unknown =>
    isNamed(part) ? { description: part.description, allOf: [part] } : part;
  return {
    ...schema,
    ...(schema.body !== undefined && { body: wrap(schema.body) }),
    ...(isRecord(schema.response) && {
      response: Object.fromEntries(
        Object.entries(schema.response).map(([status, part]) => [status, wrap(part)]),
      ),
    }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function isNamed(value: unknown): value is { $id: string; description?: string } {
  return isRecord(value) && typeof value.$id === 'string';
}

function unwrapNamedSchemas<T extends Partial<OpenAPIV3_1.Document>>(document: T): T {
  const unwrap = (media: OpenAPIV3_1.MediaTypeObject) => {
    const only = media.schema !== undefined && 'allOf' in media.schema ? media.schema.allOf : undefined;
    if (only?.length === 1 && only[0] !== undefined && '$ref' in only[0])
      media.schema = { $ref: only[0].$ref };
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of operationsOf(item)) {
      const body = operation.requestBody;
      if (body !== undefined && 'content' in body) Object.values(body.content).forEach(unwrap);
      for (const response of Object.values(operation.responses ?? {})) {
        if ('content' in response) Object.values(response.content ?? {}).forEach(unwrap);
      }
    }
  }
  return document;
}

function isOpenApi31(document: { openapi?: string }): document is Partial<OpenAPIV3_1.Document> {
  return document.openapi?.startsWith('3.1.') === true;
}

/** Every response carries it (decisions §12), the protocol edges and errors included. */
const REQUEST_ID: Record<string, OpenAPIV3_1.HeaderObject> = {
  'x-request-id': {
    description:
      "The request's id, as in its log line: the client's own x-request-id if 1–128 of A-Za-z0-9._-, else a new one",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    required: true,
  },
};

const HEADERS_BY_STATUS: Record<string, Record<string, OpenAPIV3_1.HeaderObject>> = {
  '405': {
    Allow: { description: 'The methods this path supports', schema: { type: 'string' }, required: true },
  },
  '429': {
    'Retry-After': {
      description: 'Whole seconds (at least 1) to wait before retrying',
      schema: { type: 'integer', minimum: 1 },
      required: true,
    },
  },
};

/**
 * On the success an operation taking an Idempotency-Key keeps (decisions §14): present, and
 * `true`, only when the answer is the first one to that key sent again.
 */
const REPLAYED: Record<string, OpenAPIV3_1.HeaderObject> = {
  'Idempotent-Replayed': {
    description:
      'true: this is the first answer to the same Idempotency-Key and body, sent again; nothing new was created',
    schema: { type: 'string', enum: ['true'] },
  },
};

function takesIdempotencyKey(operation: OpenAPIV3_1.OperationObject): boolean {
  return (operation.parameters ?? []).some(
    (p) => 'in' in p && p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
  );
}

/** The headers some responses always carry, on every operation that can answer them. */
function addResponseHeaders<T extends Partial<OpenAPIV3_1.Document>>(document: T): T {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of operationsOf(item)) {
      const replays = takesIdempotencyKey(operation);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if ('$ref' in response) continue;
        response.headers = {
          ...response.headers,
          ...REQUEST_ID,
          ...HEADERS_BY_STATUS[status],
          ...(replays && status === '201' && REPLAYED),
        };
      }
    }
  }
  return document;
}
