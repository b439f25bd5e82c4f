import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type ValidationResult = ReturnType<FastifySchemaCompiler<object>>;

/**
 * Request validation: the route schemas (the same ones the OpenAPI document is generated from)
 * compiled with Ajv, in two ways.
 *
 * - JSON bodies keep their JSON types: `"paused": "true"` or `"ttl": 1.5` is a wrong value,
 *   never coerced (decisions §4).
 * - Query strings and path segments are text, read as the types their schemas declare before
 *   Ajv checks them. Ajv's own coercion is not used: it takes `1e3` and `0x10` as integers
 *   and refuses `1`/`0` as booleans; these are the rules the list endpoints have always
 *   kept (digits only; true/false/1/0 in any case), and the form style of OpenAPI for arrays
 *   (comma-separated, or the parameter repeated).
 */

function createAjv(): Ajv {
  const ajv = new Ajv({
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    allErrors: false,
    // Route schemas embed named schemas ($id) that several routes share; none is looked up by id.
    addUsedSchema: false,
    strict: true,
    // `type: ["string", "null"]` is how the schemas spell nullable (OpenAPI 3.1).
    allowUnionTypes: true,
  });
  // ajv-formats is CommonJS whose types declare an ES default export: under NodeNext that is `.default`.
  ajvFormats.default(ajv);
  return ajv;
}

const bodies = createAjv();
const strings = createAjv();

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  if (httpPart === 'querystring' || httpPart === 'params') return stringValidator(schema);
  // Header values are text already; nothing to read first.
  if (httpPart === 'headers') return strings.compile(schema);
  return bodies.compile(schema);
};

interface PropertySchema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly items?: PropertySchema;
}

function stringValidator(schema: object): ValidationResult {
  const validate = strings.compile(schema);
  const properties: Readonly<Record<string, PropertySchema>> =
    'properties' in schema && isRecord(schema.properties) ? schema.properties : {};
  return (data: unknown) => {
    const value = readStrings(properties, data);
    return validate(value) ? { value } : { error: validate.errors ?? [] };
  };
}

/** Route schemas are our own TypeBox objects: their properties are schemas. */
function isRecord(value: unknown): value is Record<string, PropertySchema> {
  return value !== null && typeof value === 'object';
}

/** The query or path values typed as their schemas declare; values that do not read stay as given, for Ajv to refuse. */
export function readStrings(properties: Readonly<Record<string, PropertySchema>>, data: unknown): unknown {
  if (data === null || typeof data !== 'object') return data;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(data)) {
    const schema = properties[name];
    out[name] = schema === undefined ? raw : readValue(schema, raw);
  }
  return out;
}

function typeOf(schema: PropertySchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : (schema.type as string | undefined);
}

function readValue(schema: PropertySchema, raw: unknown): unknown {
  const type = typeOf(schema);
  if (type === 'array') {
    const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) =>
      typeof v === 'string' ? v.split(',').filter((part) => part !== '') : [v],
    );
    // Keywords (an enum) are read without the spaces around them; free text such as a sender
    // keeps a leading space, which stands for an unencoded '+'.
    const items = schema.items ?? {};
    return values.map((v) =>
      items.enum !== undefined && typeof v === 'string' ? v.trim() : readValue(items, v),
    );
  }
  if (typeof raw !== 'string') return raw;
  if (type === 'integer') return /^\s*\d{1,16}\s*$/.test(raw) ? Number(raw) : raw;
  if (type === 'boolean') {
    const word = raw.trim().toLowerCase();
    if (word === 'true' || word === '1') return true;
    if (word === 'false' || word === '0') return false;
  }
  return raw;
}
