import { parseArgs } from 'node:util';
import { UsageError } from './context.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: string[];
}

export function parse(argv: string[], options: OptionSpec): Parsed {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalString(values: Record<string, unknown>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** `--credits 100` or `--credits unlimited`. */
export function credits(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'unlimited') return null;
  if (!/^\d+$/.test(value)) throw new UsageError('--credits takes a whole number or "unlimited"');
  return Number(value);
}

export function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number`);
  return Number(value);
}

/** `none` clears an optional setting such as a URL or the delivery report type. */
export function nullable(value: string | undefined): string | null | undefined {
  return value === 'none' ? null : value;
}
