/**
 * The contract test: every response the tests see is checked against the OpenAPI document
 * for its operation and status. Apps built by the test helpers check in an onSend hook;
 * requests to a server in another process go through fetchChecked(), which checks against
 * the document that server serves. A mismatch is recorded and fails the running test
 * (test/helpers/contract-setup.ts), whatever the test itself asserts.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { App } from '../../src/http/app.js';

type Document = OpenAPIV3_1.Document;

export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
type Method = (typeof METHODS)[number];

const violations: string[] = [];

/** The mismatches seen since the last call. */
export function takeViolations(): string[] {
  return violations.splice(0);
}

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { readonly path: string; readonly segments: readonly string[] }[];

  constructor(readonly document: Document) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    ajvFormats.default(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    // Literal segments win over parameters, as in the router: /sms/messages is not /sms/{messageID}.
    this.templates = Object.keys(document.paths ?? {})
      .map((path) => ({ path, segments: path.split('/') }))
      .sort((a, b) => params(a.segments) - params(b.segments));
  }

  /**
   * What is wrong with the exchange, or an empty list. `protocolEdge`: the OPTIONS or 405
   * route of a path, which for a path the document hides (the document itself) is not checked.
   */
  check(exchange: Exchange, protocolEdge = false): string[] {
    const path = exchange.path.split('?')[0]!.replace(/(.)\/$/, '$1');
    const template = this.templateOf(path);
    if (template === undefined) {
      if (protocolEdge) return [];
      // Not a path of the API: the 404 of decisions §3.
      if (exchange.status !== 404) return [`a path outside the document answered ${exchange.status}`];
      return this.validate('#/components/schemas/NotFound', exchange.body);
    }
    const item = this.document.paths?.[template] ?? {};
    const documented = METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase());
    const method = exchange.method.toLowerCase();
    const operation = isMethod(method) ? item[method] : undefined;
    if (operation === undefined) return this.checkProtocolEdge(exchange, [...documented, 'OPTIONS']);

    const response = operation.responses?.[String(exchange.status)];
    if (response === undefined) {
      return [`${operation.operationId} does not document status ${exchange.status}`];
    }
    const problems: string[] = [];
    if ('headers' in response) {
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        if ('required' in header && header.required && exchange.headers[name.toLowerCase()] === undefined) {
          problems.push(`${operation.operationId} ${exchange.status} lacks the header ${name}`);
        }
      }
    }
    const content = 'content' in response ? response.content?.['application/json'] : undefined;
    if (content === undefined || exchange.method === 'HEAD') return problems;
    const type = String(exchange.headers['content-type'] ?? '');
    if (!type.startsWith('application/json')) problems.push(`content-type ${type}, not application/json`);
    const pointer = `#/paths/${escape(template)}/${method}/responses/${exchange.status}/content/application~1json/schema`;
    return [...problems, ...this.validate(pointer, exchange.body)];
  }

  /** OPTIONS and any method a path lacks (decisions §3), answered for every path alike. */
  private checkProtocolEdge(exchange: Exchange, allow: string[]): string[] {
    // The order of the methods is not part of the contract.
    const same = (methods: readonly string[]) => [...methods].sort().join() === [...allow].sort().join();
    const header = String(exchange.headers.allow ?? '');
    const problems = same(header.split(', ')) ? [] : [`Allow is "${header}", the document says ${allow}`];
    if (exchange.method === 'OPTIONS') {
      if (exchange.status !== 200) problems.push(`OPTIONS answered ${exchange.status}`);
      const body: unknown = JSON.parse(exchange.body);
      if (!Array.isArray(body) || !same(body.map(String))) problems.push(`OPTIONS answered ${exchange.body}`);
      return problems;
    }
    if (exchange.status !== 405)
      return [`${exchange.method} on a path without it answered ${exchange.status}`];
    if (exchange.method === 'HEAD') return problems;
    return [...problems, ...this.validate('#/components/schemas/MethodNotAllowed', exchange.body)];
  }

  /** What is wrong with `value` as the component schema `name`, or an empty list. */
  checkSchema(name: string, value: unknown): string[] {
    return this.validate(`#/components/schemas/${name}`, JSON.stringify(value));
  }

  private validate(pointer: string, body: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`the body is not JSON: ${body.slice(0, 200)}`];
    }
    let validate = this.validators.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${pointer.replace(/~1/g, '/')}: ${e.instancePath || '(body)'} ${e.message ?? ''} in ${body.slice(0, 300)}`,
    );
  }

  private templateOf(path: string): string | undefined {
    const segments = path.split('/');
    return this.templates.find(
      (t) =>
        t.segments.length === segments.length &&
        t.segments.every((s, i) => s === segments[i] || (s.startsWith('{') && segments[i] !== '')),
    )?.path;
  }
}

function openApi31(value: unknown): Document {
  if (!isDocument(value)) throw new Error('the served document is not OpenAPI 3.1');
  return value;
}

function isDocument(value: unknown): value is Document {
  return (
    value !== null &&
    typeof value === 'object' &&
    'openapi' in value &&
    typeof value.openapi === 'string' &&
    value.openapi.startsWith('3.1.')
  );
}

function params(segments: readonly string[]): number {
  return segments.filter((s) => s.startsWith('{')).length;
}

function isMethod(method: string): method is Method {
  return (METHODS as readonly string[]).includes(method);
}

function escape(path: string): string {
  return path.replace(/~/g, '~0').replace(/\//g, '~1');
}

function record(exchange: Exchange, problems: string[]): void {
  for (const problem of problems)
    violations.push(`${exchange.method} ${exchange.path} → ${exchange.status}: ${problem}`);
}

const contracts = new WeakMap<object, Contract>();

/**
 * Checks every response of `app` against the document it serves. Routes the document hides on
 * purpose (the docs pages, the document itself) are left out; the OPTIONS and 405 answers of
 * every path are checked against the methods the document lists for it.
 */
export function checkContract(app: App): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const { schema, config } = request.routeOptions;
    if (schema?.hide === true && config.protocolEdge !== true) return payload;
    let contract = contracts.get(app);
    if (contract === undefined) {
      contract = new Contract(openApi31(app.swagger()));
      contracts.set(app, contract);
    }
    const exchange: Exchange = {
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      headers: reply.getHeaders(),
      body: typeof payload === 'string' ? payload : String(payload),
    };
    record(exchange, contract.check(exchange, config.protocolEdge === true));
    return payload;
  });
}

const served = new Map<string, Promise<Contract>>();

/**
 * fetch() against a server in another process, its answer checked against the document that
 * server serves. Takes what fetch takes, so a generated client can be given it as its fetch.
 */
export async function fetchChecked(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const method = request.method;
  const response = await fetch(request);
  const body = await response.text();
  const { origin, pathname } = new URL(request.url);
  let contract = served.get(origin);
  if (contract === undefined) {
    contract = fetch(`${origin}/v1/openapi.json`)
      .then((r) => r.json())
      .then((document) => new Contract(openApi31(document)));
    served.set(origin, contract);
  }
  const exchange: Exchange = {
    method,
    path: pathname,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body,
  };
  record(exchange, (await contract).check(exchange));
  return new Response(body === '' ? null : body, { status: response.status, headers: response.headers });
}
