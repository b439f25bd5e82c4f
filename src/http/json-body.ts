/**
 * Request bodies are JSON, whatever their content type says (clients and `curl -d` often send
 * JSON without one). A body nested deeper than MAX_JSON_DEPTH is refused like malformed JSON
 * (decisions §4): JSON.parse takes any depth, but everything after it (the 403 body that
 * echoes the bad value, a fingerprint of the body) would walk it recursively, and a few
 * thousand levels overflow the stack. No request of the API nests beyond 3.
 */
export const MAX_JSON_DEPTH = 64;

export class JsonDepthError extends SyntaxError {
  constructor() {
    super(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonDepthError';
  }
}

/** The parsed body, or undefined for an empty one; throws SyntaxError for what is not JSON. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  const value: unknown = JSON.parse(text);
  if (depthExceeds(value, MAX_JSON_DEPTH)) throw new JsonDepthError();
  return value;
}

/**
 * True when `value` holds containers more than `levels` deep. It recurses, but never past
 * `levels` + 1 frames, so the check itself cannot overflow.
 */
function depthExceeds(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (child !== null && typeof child === 'object' && depthExceeds(child, levels - 1)) return true;
  }
  return false;
}
