/**
 * The console talks to the same public API (/v1) and admin API (/admin/v1) as any client, with
 * the tab's credential as a bearer token. Errors arrive in the API's error body; the message a
 * person reads is its `error` or `info` text.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The argument the API named as the cause (`arguement`, as the API spells it). */
  get argument(): string | null {
    const a = this.body?.arguement;
    return typeof a === 'string' ? a : null;
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

/** Called with every 401: the credential stopped working (revoked key, changed token). */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function request<T>(
  secret: string,
  method: string,
  path: string,
  body?: unknown,
  options: { readonly quietUnauthorized?: boolean } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, null, 'The server could not be reached. Is smsgw running?');
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (response.ok) return json as T;
  const error = (json && typeof json === 'object' ? json : null) as Record<string, unknown> | null;
  if (response.status === 401 && !options.quietUnauthorized) onUnauthorized();
  throw new ApiError(response.status, error, describe(response.status, error));
}

function describe(status: number, body: Record<string, unknown> | null): string {
  for (const field of ['error', 'info']) {
    const text = body?.[field];
    if (typeof text === 'string' && text !== '') return text;
  }
  if (status === 429) return 'Too many requests; wait a moment and try again.';
  const msg = body?.status_msg;
  return typeof msg === 'string' ? `${status} ${msg}` : `The server answered ${status}.`;
}
