import { readFile } from 'node:fs/promises';
import type { Static } from '@sinclair/typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUSES, STATUS_CODES } from '../../src/domain/status.js';
import { DELIVERY_REPORT_TYPES } from '../../src/domain/delivery-report.js';
import type {
  DetailedDeliveryReport,
  InboundMessageWebhook,
  RecipientDeliveryReport,
  SummaryDeliveryReport,
} from '../../src/http/schemas/webhook-payloads.js';
import {
  detailedReport,
  inboundPayload,
  recipientReport,
  summaryReport,
  type DetailedReport,
  type InboundWebhookPayload,
  type RecipientReport,
  type SummaryReport,
} from '../../src/webhooks/payloads.js';
import { emptyCounts } from '../../src/domain/status.js';
import { SNAPSHOT, TYPES, documentText, typesText } from '../../scripts/openapi-snapshot.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { Contract } from '../helpers/contract.js';

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;

// The payload builders' types fit the schemas the document gives receivers (a compile-time check).
type Fits<T, S> = T extends S ? true : false;
const payloadsFit: [
  Fits<SummaryReport, Static<typeof SummaryDeliveryReport>>,
  Fits<DetailedReport, Static<typeof DetailedDeliveryReport>>,
  Fits<RecipientReport, Static<typeof RecipientDeliveryReport>>,
  Fits<InboundWebhookPayload, Static<typeof InboundMessageWebhook>>,
] = [true, true, true, true];

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(document: Document): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item?.[method];
      return operation === undefined ? [] : [{ path, method, operation }];
    }),
  );
}

function statuses(operation: Operation): string[] {
  return Object.keys(operation.responses ?? {});
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && 'openapi' in value;
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Document;
  let served: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    const r = await call(t, 'GET', '/v1/openapi.json', undefined, null);
    if (!isDocument(r.body)) throw new Error('no document');
    document = r.body;
    served = documentText(r.body);
  });
  afterAll(async () => t.close());

  it('is the committed docs/openapi.json, and docs/openapi.d.ts its types (npm run openapi:snapshot)', async () => {
    expect(served, 'docs/openapi.json is stale: run npm run openapi:snapshot').toBe(
      await readFile(SNAPSHOT, 'utf8'),
    );
    expect(await typesText(served), 'docs/openapi.d.ts is stale: run npm run openapi:snapshot').toBe(
      await readFile(TYPES, 'utf8'),
    );
  });

  it('is OpenAPI 3.1 with a unique operationId, a summary and tags on every operation', () => {
    expect(document.openapi).toBe('3.1.0');
    const all = [
      ...operations(document).map((o) => o.operation),
      ...Object.values(document.webhooks ?? {}).flatMap((item) =>
        'post' in item && item.post ? [item.post] : [],
      ),
    ];
    const ids = all.map((o) => o.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of all) {
      expect(o.summary, o.operationId).toEqual(expect.any(String));
      expect(o.tags, o.operationId).toHaveLength(1);
    }
    expect(ids).toEqual(
      expect.arrayContaining([
        'sendSms',
        'indexOutboundSms',
        'getOutboundSms',
        'getOutboundSmsOptions',
        'updateOutboundSms',
        'cancelOutboundSms',
        'indexInboundSms',
        'getInboundSms',
        'createAccount',
        'getAccount',
        'updateAccount',
        'createApiKey',
        'revokeApiKey',
        'addSender',
        'removeSender',
        'addNumber',
        'removeNumber',
        'simulateInbound',
        'listWebhookDeliveries',
        'replayWebhookDelivery',
        'listConnectors',
        'createConnector',
        'getConnector',
        'updateConnector',
        'deleteConnector',
        'listRoutes',
        'createRoute',
        'deleteRoute',
      ]),
    );
  });

  it('secures the public API with the API key and the admin API with the admin token', () => {
    expect(Object.keys(document.components?.securitySchemes ?? {})).toEqual([
      'apiKey',
      'adminToken',
      'metricsToken',
    ]);
    for (const { path, operation } of operations(document)) {
      // Operations endpoints outside both APIs (decisions §12) declare their own.
      if (path.startsWith('/v1/')) expect(operation.security, path).toEqual([{ apiKey: [] }]);
      if (path.startsWith('/admin/v1/')) expect(operation.security, path).toEqual([{ adminToken: [] }]);
    }
  });

  it('names its schemas, never def-N, and uses each of them', () => {
    const names = Object.keys(document.components?.schemas ?? {});
    expect(names.filter((n) => /^def-\d+$/.test(n))).toEqual([]);
    const text = JSON.stringify({ ...document, components: { ...document.components, schemas: {} } });
    const nested = JSON.stringify(document.components?.schemas);
    for (const name of names) {
      const ref = `"#/components/schemas/${name}"`;
      expect(text.includes(ref) || nested.includes(ref), name).toBe(true);
    }
  });

  it('types ids, counts and flags exactly, with the enumerations of the interface', () => {
    expect(document.components?.schemas).toMatchObject({
      OutboundMessage: {
        properties: {
          messageID: { type: 'integer', format: 'int64' },
          paused: { type: 'boolean' },
          expires_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
      Status: { type: 'string', enum: STATUSES },
      StatusCounts: { required: STATUSES },
      SendSmsRequest: {
        properties: {
          delivery_report: { enum: [...DELIVERY_REPORT_TYPES, null] },
          ttl: { type: ['string', 'integer', 'null'], minimum: 0 },
          num_parts_max: { type: ['integer', 'null'], minimum: 1 },
          paused: { type: ['boolean', 'null'] },
        },
      },
      WebhookDelivery: { properties: { state: { enum: ['pending', 'delivered', 'failed'] } } },
    });
    const parameters = (id: string) =>
      operations(document).find((o) => o.operation.operationId === id)!.operation.parameters;
    const parameter = (name: string, schema: object) =>
      expect.objectContaining({ name, schema: expect.objectContaining(schema) });
    expect(parameters('indexOutboundSms')).toEqual(
      expect.arrayContaining([
        parameter('limit', { type: 'integer', minimum: 0, maximum: 500 }),
        parameter('offset', { type: 'integer' }),
        parameter('messageID.min', { type: 'integer' }),
        parameter('paused', { type: 'boolean' }),
        parameter('completed', { type: 'boolean' }),
        parameter('sort', {
          type: 'array',
          items: expect.objectContaining({
            enum: expect.arrayContaining(['messageID', '-messageID', 'created_at', '-complete_at', 'ref']),
          }),
        }),
      ]),
    );
    expect(parameters('getOutboundSmsOptions')).toEqual(
      expect.arrayContaining([
        parameter('messageID', { type: 'integer', format: 'int64', minimum: 1 }),
        parameter('options', { enum: ['meta', 'status', 'meta,status', 'status,meta'] }),
      ]),
    );
  });

  it('documents every response an operation can give', () => {
    for (const { path, method, operation } of operations(document)) {
      const where = `${method.toUpperCase()} ${path}`;
      const codes = statuses(operation);
      expect(
        codes.some((c) => c.startsWith('2')),
        where,
      ).toBe(true);
      expect(codes, where).toEqual(expect.arrayContaining(['405', '500']));
      if ((operation.security ?? []).length > 0) expect(codes, where).toContain('401');
      if (path.startsWith('/v1/')) expect(codes, where).toContain('429');
      if (operation.requestBody !== undefined)
        expect(codes, where).toEqual(expect.arrayContaining(['400', '403', '413']));
      if (path.includes('{')) expect(codes, where).toContain('404');
      if (operation.parameters?.some((p) => 'in' in p && p.in === 'query'))
        expect(codes, where).toContain('400');
    }
    const byId = (id: string) => operations(document).find((o) => o.operation.operationId === id)!.operation;
    expect(statuses(byId('sendSms'))).toEqual(
      expect.arrayContaining(['200', '201', '400', '403', '404', '409', '413', '422', '429']),
    );
    expect(statuses(byId('indexOutboundSms'))).toEqual(expect.arrayContaining(['200', '400', '403']));
    expect(statuses(byId('indexInboundSms'))).toEqual(expect.arrayContaining(['200', '400', '403']));
    const tooMany = byId('getOutboundSms').responses?.['429'];
    expect(tooMany).toMatchObject({ headers: { 'Retry-After': { required: true } } });
  });

  it('has examples for the main operations, each valid for its schema', () => {
    const contract = new Contract(document);
    for (const id of [
      'sendSms',
      'indexOutboundSms',
      'getOutboundSms',
      'getOutboundSmsOptions',
      'indexInboundSms',
    ]) {
      const { path, method, operation } = operations(document).find((o) => o.operation.operationId === id)!;
      const ok = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'))!;
      const examples = 'content' in ok[1] ? ok[1].content?.['application/json']?.examples : undefined;
      expect(Object.keys(examples ?? {}).length, id).toBeGreaterThan(0);
      for (const example of Object.values(examples ?? {})) {
        const value = 'value' in example ? example.value : undefined;
        const problems = contract.check({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, (p) => (p === '{options}' ? 'meta' : '1')),
          status: Number(ok[0]),
          headers: { 'content-type': 'application/json', 'x-request-id': 'example' },
          body: JSON.stringify(value),
        });
        expect(problems, id).toEqual([]);
      }
    }
  });

  it('describes the five webhooks, signed with the Standard Webhooks headers', () => {
    const webhooks = document.webhooks ?? {};
    expect(Object.keys(webhooks)).toEqual([
      'summaryDeliveryReport',
      'detailedDeliveryReport',
      'recipientFinalDeliveryReport',
      'recipientDeliveryReport',
      'inboundMessage',
    ]);
    const headers = Object.values(document.components?.parameters ?? {}).map((p) =>
      'name' in p ? { name: p.name, in: p.in, required: p.required } : p,
    );
    expect(headers).toEqual([
      { name: 'webhook-id', in: 'header', required: true },
      { name: 'webhook-timestamp', in: 'header', required: true },
      { name: 'webhook-signature', in: 'header', required: true },
    ]);
    for (const item of Object.values(webhooks)) {
      const post = 'post' in item ? item.post : undefined;
      expect(post?.parameters).toHaveLength(3);
      expect(post?.requestBody).toMatchObject({ required: true });
    }
  });

  it('describes the webhook bodies src/webhooks/payloads.ts builds', () => {
    expect(payloadsFit).toEqual([true, true, true, true]);
    const contract = new Contract(document);
    const message = { id: 7, ref: null, balanceUsed: 4 };
    const at = Date.parse('2026-11-21T12:00:00.123Z');
    const counts = { ...emptyCounts(), delivered: 1, failed: 1 };
    const recipients = [
      { msisdn: '+61491570150', status: 'delivered' as const, code: STATUS_CODES.delivered },
      { msisdn: '+61491570155', status: 'failed' as const, code: STATUS_CODES.failed },
    ];
    expect(contract.checkSchema('SummaryDeliveryReport', summaryReport(message, counts, at))).toEqual([]);
    expect(contract.checkSchema('DetailedDeliveryReport', detailedReport(message, recipients, at))).toEqual(
      [],
    );
    expect(
      contract.checkSchema('RecipientDeliveryReport', recipientReport(message, recipients[0]!, 2, at)),
    ).toEqual([]);
    const inbound = {
      id: 9,
      from: '+61400000001',
      to: '+61491570999',
      body: 'hi',
      ref: 'support',
      receivedAt: at,
    };
    expect(contract.checkSchema('InboundMessageWebhook', inboundPayload(inbound))).toEqual([]);
    // And the schemas do refuse what a receiver would not expect.
    expect(
      contract.checkSchema('RecipientDeliveryReport', {
        ...recipientReport(message, recipients[0]!, 2, at),
        status: 'gone',
      }),
    ).not.toEqual([]);
  });
});
