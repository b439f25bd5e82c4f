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

/** Walks with a stack of its own, so that the check itself cannot overflow. */
function depthExceeds(root: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
